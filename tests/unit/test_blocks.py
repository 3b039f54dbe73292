"""A section described once reads the same as HTML and as text: the same words in the same order,
every text escaped in the HTML, a block's body further in than its head in the text."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

import pytest

from deepnb.views import blocks
from deepnb.views.blocks import Em, Fields, Fold, Group, Line, List, Pre
from deepnb.views.listings import todos_block
from deepnb.views.run.given import given_block
from deepnb.views.run.output_table import output_block
from deepnb.views.run.questions import question_block
from deepnb.views.run.snapshot import _closing_blocks

HOSTILE = '<img src=x onerror="alert(1)">'


class _Words(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.words: list[str] = []

    def handle_data(self, data: str) -> None:
        self.words += data.split()


def html_words(markup: str) -> str:
    """The text of ``markup``, without spaces or colons (a field's name and value are apart in
    HTML, ``name: value`` in text)."""
    parser = _Words()
    parser.feed(markup)
    return "".join(parser.words).replace(":", "")


def text_words(lines: list[str]) -> str:
    return "".join(" ".join(lines).replace("~~", "").split()).replace(":", "")


SECTIONS: dict[str, Any] = {
    "given": given_block(
        {
            "skills": [{"name": "web", "agent": "main", "description": f"search {HOSTILE}"}],
            "memory": [{"path": "/AGENTS.md", "agent": "critic"}],
            "tools": {"main": ["ls", "task"], "critic": ["read_file"]},
        }
    ),
    "question (text)": question_block({"id": "q1", "agent": "main", "value": f"Name? {HOSTILE}"}),
    "question (fields)": question_block(
        {"id": "q2", "agent": "main/critic", "value": {"pick": HOSTILE, "of": [1, 2]}, "answer": "a"}
    ),
    "question (clipped)": question_block({"id": "q3", "agent": "main", "value": None, "value_json": "{…"}),
    "output": output_block([("name", HOSTILE), ("age", "36")]),
    "todos": todos_block(
        [
            {"content": f"Read {HOSTILE}", "status": "completed"},
            {"content": "Write", "status": "in_progress"},
            {"content": "Check", "status": "pending"},
        ],
        "Task 2 of 3",
        run_status="cancelled",
    ),
    "the snapshot's end": Group(
        tuple(
            _closing_blocks(
                {
                    "files_changed": ["/a.md", HOSTILE],
                    "files_not_written": ["/b.md", "/c.md"],
                    "pending": [
                        {
                            "id": "i1",
                            "agent": "main/critic",
                            "kind": "approval",
                            "actions": [{"name": "write_file", "args": HOSTILE, "description": "Check it"}],
                        }
                    ],
                    "decisions": [
                        {
                            "at": "12:00:01",
                            "tool": "edit_file",
                            "decision": {"type": "approve"},
                            "diff": "-a\n+b",
                        }
                    ],
                    "decisions_folded": 3,
                }
            )
        )
    ),
}


@pytest.mark.parametrize("name", list(SECTIONS))
def test_each_section_says_the_same_words_as_html_and_as_text(name: str) -> None:
    block = SECTIONS[name]
    markup, lines = blocks.html(block), blocks.text(block)
    assert html_words(markup) == text_words(lines)
    assert "<img" not in markup  # every text escaped
    assert HTMLParser().feed(markup) is None


def test_a_body_is_further_in_than_its_head_and_emphasis_reads_as_text() -> None:
    block = Group(
        (
            List((Line.of("one"), Line.of(Em("gone", "s")))),
            Fold(("More",), (Line.of("inside"), Pre("a\nb"))),
            Fields((("key", "value"), ("code", Em("[1]", "code")))),
        ),
        head=Line.of(Em("Head"), ":"),
    )
    assert blocks.text(block) == [
        "Head:",
        "  one",
        "  ~~gone~~",
        "  More",
        "    inside",
        "    a",
        "    b",
        "  key: value",
        "  code: [1]",
    ]
    assert blocks.html(block) == (
        "<div><div><b>Head</b>:</div><ul><li>one</li><li><s>gone</s></li></ul>"
        "<details><summary>More</summary><div>inside</div><pre>a\nb</pre></details>"
        "<dl><dt>key</dt><dd>value</dd><dt>code</dt><dd><code>[1]</code></dd></dl></div>"
    )


def test_attributes_and_classes_are_escaped() -> None:
    line = Line.of("x", css='a" onclick="b', data_id='"><script>')
    assert (
        blocks.html(line) == '<div class="a&quot; onclick=&quot;b" data-id="&quot;&gt;&lt;script&gt;">x</div>'
    )
