"""``deepnb.export``: a thread as a standalone notebook — valid nbformat 4, no widget, each prompt
escaped, the run's view where this kernel has the run, else the replies, and the files; bad input
refused in one line with nothing written."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import nbformat
import pytest

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.session.local import Workbench
from deepnb.ship.exporting import export_thread, fenced, markdown_text
from tests.support.agents import scripted, unique
from tests.support.waiting import WAIT

FILE = "<b>x</b>\n```"
HOSTILE = "<img src=x onerror=alert(1)> **not bold** [link](http://x)"


def read(path: Path) -> Any:
    return nbformat.read(path, as_version=4)


def mimetypes(notebook: Any) -> set[str]:
    return {m for c in notebook.cells for o in c.get("outputs", []) for m in o.get("data", {})}


@pytest.fixture(scope="module")
def two_prompts() -> Workbench:
    """A thread with two prompts: the second run is this kernel's latest, the first is not."""
    model = scripted(
        {
            "main": [
                {"tool_calls": [{"name": "write_file", "args": {"file_path": "/a.md", "content": FILE}}]},
                f"First answer {HOSTILE}",
            ]
        }
    )
    bench = deepnb.agent(unique("export"), model)
    assert bench.start("first <script>x</script>").wait(WAIT).status == "done"
    assert bench.start("second").wait(WAIT).status == "done"
    return bench


def test_the_notebook_is_valid_and_shows_each_prompt_its_run_and_the_files(
    two_prompts: Workbench, tmp_path: Path
) -> None:
    path = tmp_path / "thread.ipynb"
    exported = deepnb.export(path, agent=two_prompts.name)
    notebook = read(path)
    nbformat.validate(notebook)
    assert (exported.prompts, exported.snapshots, exported.files) == (2, 1, 1)
    kinds = [c.cell_type for c in notebook.cells]
    assert kinds == ["markdown"] * 8 + ["code"] * 3  # the views are Markdown: nothing Run All could clear
    title, first, replies, second, view, _heading, file_cell, again, load, ask, ask_more = notebook.cells
    # not recorded: the cells at the end ask the agent the prompts again, in order, on a new thread
    assert "not recorded" in again.source and "define first" in again.source  # a model object
    assert load.source == "%load_ext deepnb"
    name = two_prompts.name
    assert ask.source == f"%%deepagent -a {name} --new --no-interpolate\nfirst <script>x</script>"
    assert ask_more.source == f"%%deepagent -a {name} --no-interpolate\nsecond"
    assert two_prompts.current_thread in title.source
    assert "first &lt;script&gt;x&lt;/script&gt;" in first.source
    assert "<script>" not in first.source
    assert "First answer &lt;img src=x onerror=alert\\(1\\)&gt; \\*\\*not bold\\*\\*" in replies.source
    assert "write\\_file" in replies.source
    assert "second" in second.source
    assert view.metadata["deepnb"] == {"view": "run", "prompt": 2}
    assert view.source.startswith("<style>") and 'class="deepnb-snapshot' in view.source
    assert not re.search(r"\n\s*\n", view.source)  # one HTML block: Markdown reads none of it
    assert "First answer" in view.source  # each run replays the script
    assert "&lt;img src=x" in view.source
    assert "<img src=x" not in view.source
    assert "<script" not in json.dumps([c for c in notebook.cells if c.cell_type == "markdown"])
    assert mimetypes(notebook) == set()
    assert "/a\\.md" in file_cell.source
    assert "````md\n<b>x</b>\n```\n````" in file_cell.source
    assert [p.name for p in tmp_path.iterdir()] == ["thread.ipynb"]


def test_an_existing_path_is_refused_unless_forced(two_prompts: Workbench, tmp_path: Path) -> None:
    path = tmp_path / "kept.ipynb"
    path.write_text("mine", encoding="utf-8")
    with pytest.raises(DeepnbError, match=r"exists.*--force"):
        export_thread(two_prompts, path)
    assert path.read_text(encoding="utf-8") == "mine"
    export_thread(two_prompts, path, force=True)
    nbformat.validate(read(path))
    assert [p.name for p in tmp_path.iterdir()] == ["kept.ipynb"]


@pytest.mark.parametrize(
    ("name", "thread", "error"),
    [
        ("notes.txt", None, r"ending in \.ipynb"),
        ("missing/x.ipynb", None, "does not exist"),
        ("x.ipynb", "no-such-thread", "has no thread 'no-such-thread'"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(
    two_prompts: Workbench, tmp_path: Path, name: str, thread: str | None, error: str
) -> None:
    with pytest.raises(DeepnbError, match=error) as caught:
        export_thread(two_prompts, tmp_path / name, thread=thread)
    assert "\n" not in str(caught.value)
    assert list(tmp_path.iterdir()) == []


class Remote:
    """A session reached only through the protocol, with messages as dicts (as a remote thread's)."""

    name = "remote"
    label = "a server's agent"
    selected_thread = "t1"

    def __init__(self, messages: list[dict[str, Any]]) -> None:
        self.messages = messages

    def threads(self) -> list[Any]:
        return [SimpleNamespace(thread_id="t1")]

    def state_values(self, thread_id: str | None = None) -> dict[str, Any]:
        return {"messages": self.messages}

    def latest_run(self, thread_id: str | None = None) -> None:
        return None

    def files(self, thread_id: str | None = None) -> dict[str, str]:
        return {}


def test_a_thread_without_a_prompt_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DeepnbError, match="no prompt yet"):
        export_thread(Remote([]), tmp_path / "x.ipynb")  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


def test_a_session_without_the_run_exports_its_replies(tmp_path: Path) -> None:
    messages = [
        {"type": "human", "content": [{"type": "text", "text": "hello"}]},
        {"type": "ai", "content": f"hi {HOSTILE}", "tool_calls": []},
    ]
    exported = export_thread(Remote(messages), tmp_path / "r.ipynb")  # type: ignore[arg-type]
    notebook = read(tmp_path / "r.ipynb")
    nbformat.validate(notebook)
    assert exported.snapshots == 0
    assert [c.cell_type for c in notebook.cells] == ["markdown"] * 4 + ["code"] * 2
    assert "hello" in notebook.cells[1].source
    assert notebook.cells[-1].source == "%%deepagent -a remote --new --no-interpolate\nhello"
    assert "hi &lt;img" in notebook.cells[2].source
    assert not mimetypes(notebook)


def test_markdown_text_shows_text_literally() -> None:
    assert markdown_text("# a_b *c* <i>&") == "\\# a\\_b \\*c\\* &lt;i&gt;&amp;"
    assert markdown_text("one\n    two") == "one  \n&nbsp;&nbsp;&nbsp;&nbsp;two"
    assert json.dumps(markdown_text("`x`")) == json.dumps("\\`x\\`")


def test_a_fence_is_longer_than_any_backticks_inside() -> None:
    assert fenced("a ````` b", "py") == "``````py\na ````` b\n``````"
    assert fenced("x", "no such!") == "```\nx\n```"


def test_a_view_is_one_html_block_that_keeps_its_preformatted_lines() -> None:
    """A blank line would end Markdown's raw HTML block and read the rest as Markdown (an
    indented line as code): they go, except in ``<pre>``, where each stays a line."""
    from deepnb.ship.exporting import html_block

    html = '<div class="a">\n\n  <p>one</p>\n   \n<pre class="x">a\n\n\nb</pre>\n\n    <p>two</p></div>\n'
    block = html_block(html)
    assert (
        block
        == '<div class="a">\n  <p>one</p>\n<pre class="x">a\n&#8203;\n&#8203;\nb</pre>\n    <p>two</p></div>'
    )
    import markdown_it

    rendered = markdown_it.MarkdownIt("commonmark").render(block)
    assert "<code>" not in rendered and rendered.strip() == block  # passed through as it is
