"""A disk backend's refusal of a link out of its folder reads as a refusal, not as a bug: every
file tool that resolves a path (read, list, write, edit; through a linked file or a linked
folder) ends with one line naming the tool and what to do, and no host path of the link's
target or the backend's root reaches the run's error or its cards."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from deepagents.backends import FilesystemBackend

import deepnb
from tests.support.agents import scripted, unique

CALLS = [
    ("read_file", {"file_path": "/link.txt"}),
    ("read_file", {"file_path": "/linkdir/target.txt"}),
    ("ls", {"path": "/linkdir"}),
    ("write_file", {"file_path": "/link.txt", "content": "overwritten"}),
    ("write_file", {"file_path": "/linkdir/new.txt", "content": "planted"}),
    ("edit_file", {"file_path": "/link.txt", "old_string": "secret", "new_string": "changed"}),
]


@pytest.mark.parametrize(("tool", "args"), CALLS, ids=[f"{t}:{next(iter(a.values()))}" for t, a in CALLS])
def test_a_link_out_of_the_folder_is_refused_in_one_line(
    tmp_path: Path, tool: str, args: dict[str, Any]
) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "target.txt").write_text("secret")
    (root / "link.txt").symlink_to(outside / "target.txt")
    (root / "linkdir").symlink_to(outside)
    model = scripted({"main": [{"tool_calls": [{"name": tool, "args": args}]}, "Done."]})
    bench = deepnb.agent(
        unique("links"), model, backend=FilesystemBackend(root_dir=str(root), virtual_mode=True)
    )

    run = bench.run("Use the file.", thread=uuid.uuid4().hex)

    shown = [run.error, *(str(i.get("result") or "") + str(i.get("error") or "") for i in run.state.items)]
    assert run.error.startswith(f"{tool} refused the path: it leads outside the agent's folder on disk")
    assert "follow no link out of their folder" in run.error and "a bug in" not in run.error
    assert not any(str(tmp_path) in text for text in shown), shown
    assert (outside / "target.txt").read_text() == "secret" and sorted(p.name for p in outside.iterdir()) == [
        "target.txt"
    ]
