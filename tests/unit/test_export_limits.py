"""A long thread exports to a bounded notebook: each long reply cell keeps its start and its end,
each long file its start, at most FILE_CELLS files are shown (the rest listed by path), each cut
says what it left out and where the rest is, and the files are read in one pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest

import deepnb
from deepnb.engine.files import sources
from deepnb.session.local import Workbench
from deepnb.ship.export_limits import CONVERSATION_CHARS, FILE_CELLS, FILE_CHARS, head, head_and_tail
from tests.support.agents import scripted, unique
from tests.support.waiting import WAIT

FILES = FILE_CELLS + 10
BIG = "\n".join(f"line {n} " + "x" * 60 for n in range(1_000))  # ~67,000 characters
PROSE = "The agent works through a step and writes its note. " * 10


@pytest.fixture(scope="module")
def long_thread() -> Workbench:
    """A first prompt answered by many turns that write many files (one of them large), then a
    second prompt: the first prompt's replies are exported as a conversation cell."""
    turns: list[Any] = [
        {
            "text": PROSE,
            "tool_calls": [{"name": "write_file", "args": {"file_path": f"/n/{n:03}.md", "content": PROSE}}],
        }
        for n in range(FILES)
    ]
    turns.append({"tool_calls": [{"name": "write_file", "args": {"file_path": "/big.md", "content": BIG}}]})
    turns += ["All the notes are written.", "Second answer."]
    bench = deepnb.agent(unique("export-long"), scripted({"main": turns}))
    assert bench.start("write the notes").wait(WAIT).status == "done"
    assert bench.start("second").wait(WAIT).status == "done"
    return bench


def sources_of(path: Path) -> list[str]:
    return [cell.source for cell in nbformat.read(path, as_version=4).cells]


@pytest.mark.volume
def test_a_long_thread_exports_bounded_and_says_where_the_rest_is(
    long_thread: Workbench, tmp_path: Path
) -> None:
    path = tmp_path / "long.ipynb"
    deepnb.export(path, agent=long_thread.name)
    cells = sources_of(path)
    thread = long_thread.selected_thread

    conversation = cells[2]
    assert len(conversation) < CONVERSATION_CHARS * 1.2
    assert "replies and tool calls left out here" in conversation
    assert f"%deepagent history \\-a {long_thread.name.replace('-', chr(92) + '-')}" in conversation
    assert "n/000\\.md" in conversation and "big\\.md" in conversation  # its start and its end

    files = [c for c in cells if c.startswith("### File ")]
    assert len(files) == FILE_CELLS
    big = next(c for c in files if c.startswith("### File /big"))
    assert len(big) < FILE_CHARS * 1.1
    assert f"of {len(BIG):,} characters" in big and "%deepagent files PATH" in big
    assert thread is not None and thread in big.replace("\\", "")
    rest = next(c for c in cells if "more file(s), left out" in c)
    assert rest.count("\n- ") == FILES + 1 - FILE_CELLS
    assert len(path.read_bytes()) < 200_000


def test_the_files_of_an_export_are_read_in_one_pass(
    long_thread: Workbench, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = []
    original = sources.StateSource._files

    async def counted(self: Any) -> Any:
        reads.append(1)
        return await original(self)

    monkeypatch.setattr(sources.StateSource, "_files", counted)
    deepnb.export(tmp_path / "once.ipynb", agent=long_thread.name)
    assert 1 <= len(reads) <= 3  # a few (the listing, the contents), not one a file: FILES + 1 of them


def test_head_cuts_at_a_line_and_head_and_tail_keeps_both_ends() -> None:
    assert head("ab\ncd\nef", 6) == "ab\ncd" and head("abcdef", 3) == "abc" and head("ab", 5) == "ab"
    parts = [f"part {n}" * 10 for n in range(100)]
    first, last, left_out = head_and_tail(parts, 1_000)
    assert first[0] == parts[0] and last[-1] == parts[-1]
    assert len(first) + len(last) + left_out == 100 and left_out > 80
    assert head_and_tail(parts[:2], 10_000) == (parts[:2], [], 0)
