"""Untrusted content makes no requests: what deepnb renders from model text, summaries and files
loads no image from a URL, every link has ``rel="noopener noreferrer"``, and bidi control
characters in names are shown, not obeyed."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from deepnb.core import events as ev
from deepnb.core.text.bidi import BIDI_CONTROLS
from deepnb.core.text.markup import escape, markdown
from deepnb.engine.files.sources import Entry
from deepnb.engine.state import RunState
from deepnb.views.files.file_preview import FileDisplay, render_file
from deepnb.views.listings import FolderListing, Table, TodoList
from deepnb.views.run.snapshot import snapshot_bundle

HOSTILE_IMAGES = {
    "http": "![pixel](http://tracker.example/p.png?u=1)",
    "https": "![pixel](https://tracker.example/p.png)",
    "upper-case scheme": "![pixel](HTTPS://TRACKER.EXAMPLE/p.png)",
    "protocol-relative": "![pixel](//tracker.example/p.png)",
    "with a title": '![pixel](https://tracker.example/p.png "title")',
    "angle brackets": "![pixel](<https://tracker.example/a b.png>)",
    "reference": "![pixel][r]\n\n[r]: https://tracker.example/ref.png",
    "collapsed reference": "![r][]\n\n[r]: https://tracker.example/ref2.png",
    "shortcut reference": "![r]\n\n[r]: https://tracker.example/ref3.png",
    "nested in a link": "[![pixel](https://tracker.example/in.png)](https://example.com)",
    "relative": "![pixel](./chart.png)",
    "absolute path": "![pixel](/notes/chart.png)",
    "javascript": "![pixel](javascript:alert(1))",
    "file": "![pixel](file:///etc/passwd)",
    "svg data": "![pixel](data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=)",
    "text data": "![pixel](data:text/html;base64,PHNjcmlwdD4=)",
    "raw html img": '<img src="https://tracker.example/raw.png">',
    "raw html srcset": '<img srcset="https://tracker.example/s.png 2x">',
    "raw html picture": '<picture><source srcset="https://tracker.example/p.webp"></picture>',
    "raw html inline": "text <img src=https://tracker.example/i.png> text",
    "raw html style": '<div style="background:url(https://tracker.example/bg.png)">x</div>',
    "autolink": "<https://tracker.example/auto>",
    "link": "[docs](https://example.com/docs)",
    "email autolink": "<someone@example.com>",
    "aligned table": "| a |\n|--:|\n| ![x](https://tracker.example/cell.png) |",
}
URL_ATTRIBUTES = {"src", "srcset", "href", "poster", "background", "data", "action", "style"}


class Tags(HTMLParser):
    """Every start tag of an HTML fragment, with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))


def tags(fragment: str) -> list[tuple[str, dict[str, str]]]:
    parser = Tags()
    parser.feed(fragment)
    return parser.tags


def assert_makes_no_request(fragment: str) -> None:
    """Nothing in ``fragment`` loads anything: an image only from ``data:image/``, no other
    URL-bearing attribute but a link's ``href``, and every link with ``rel="noopener noreferrer"``."""
    for tag, attrs in tags(fragment):
        for name in URL_ATTRIBUTES & attrs.keys():
            if tag == "img" and name == "src":
                assert attrs[name].lower().startswith("data:image/"), (tag, attrs)
            elif name == "style":  # a table column's alignment; never a url(…)
                assert "url(" not in attrs[name].lower() and "@import" not in attrs[name].lower(), attrs
            elif tag == "a" and name == "href":
                assert set(attrs.get("rel", "").split()) >= {"noopener", "noreferrer"}, attrs
                assert attrs.get("target") == "_blank", attrs
            else:
                pytest.fail(f"<{tag} {name}={attrs[name]!r}> can make a request")
        assert tag not in ("script", "iframe", "object", "embed", "link", "source", "video", "audio")


@pytest.mark.parametrize("text", HOSTILE_IMAGES.values(), ids=HOSTILE_IMAGES.keys())
def test_markdown_loads_nothing(text: str) -> None:
    assert_makes_no_request(markdown(text))


@pytest.mark.parametrize("text", HOSTILE_IMAGES.values(), ids=HOSTILE_IMAGES.keys())
def test_answers_summaries_and_md_files_load_nothing(text: str) -> None:
    """The three places Markdown reaches a view: a model's answer, a summary, a ``.md`` file."""
    state = RunState(agent="a", thread_id="t")
    state.apply(ev.ModelTurn("main", text))
    state.apply(ev.Summarized("main", cutoff=3, summary=text))
    state.apply(ev.RunFinished("main", text))
    shown = state.to_json()
    assert_makes_no_request(shown["items"][0]["html"])
    assert_makes_no_request(shown["items"][1]["summary_html"])
    assert_makes_no_request(snapshot_bundle(state)["text/html"])
    rendered = render_file("/notes/hostile.md", text.encode())
    assert rendered.kind == "markdown"
    assert_makes_no_request(rendered.html)
    assert_makes_no_request(FileDisplay(rendered)._repr_html_())


def test_a_remote_image_becomes_a_placeholder_naming_its_url() -> None:
    html = markdown("See ![the chart](https://tracker.example/chart.png?id=7&u=me).")
    (attrs,) = [a for _, a in tags(html) if "dnb-image-blocked" in a.get("class", "")]
    assert attrs["data-src"] == "https://tracker.example/chart.png?id=7&u=me"  # for click-to-load
    assert attrs["data-alt"] == "the chart"
    assert "https://tracker.example/chart.png?id=7&amp;u=me" in html  # shown as text
    assert "<img" not in html


def test_only_remote_images_are_offered_for_loading() -> None:
    """A relative path would go to the notebook server: named, not offered."""
    assert "data-src" not in markdown("![x](./chart.png)")
    assert "data-src" in markdown("![x](//cdn.example/chart.png)")


def test_data_images_still_show() -> None:
    pixel = "data:image/png;base64,iVBORw0KGgo="
    assert f'<img src="{pixel}" alt="dot">' in markdown(f"![dot]({pixel})")


# -- bidi control characters ---------------------------------------------------------------------

RLO = "\u202e"


@pytest.mark.parametrize("char", list(BIDI_CONTROLS), ids=lambda c: f"U+{ord(c):04X}")
def test_escape_shows_every_bidi_control(char: str) -> None:
    shown = escape(f"invoice{char}fdp.exe")
    assert char not in shown
    assert f"\\u{ord(char):04x}" in shown


def test_names_with_bidi_controls_are_shown_escaped_everywhere() -> None:
    """Tool names, file paths, subagent labels, todos and file names in HTML and text/plain."""
    path = f"/reports/invoice{RLO}fdp.exe"
    state = RunState(agent="a", thread_id="t")
    state.apply(ev.TodosChanged("main", ({"content": f"Read {path}", "status": "pending"},)))
    state.apply(ev.ToolCallStarted("main", "c1", f"read{RLO}_file", {"file_path": path}))
    state.apply(ev.ToolCallStarted("main", "c2", "write_file", {"file_path": path, "content": "x"}))
    state.apply(ev.ToolCallFinished("main", "c2", "write_file", f"Wrote {path}"))
    state.apply(ev.SubagentStarted("main", "t1", "c3", f"help{RLO}er", f"Check {path}", "main/helper"))
    state.apply(ev.FilesChanged("main", written=(path,)))
    state.apply(ev.RunFinished("main", f"Done: {path}"))
    bundle = snapshot_bundle(state)
    shown = {
        **bundle,
        "folder": repr(FolderListing("/reports/", (Entry(path),))),
        "folder html": FolderListing("/reports/", (Entry(path),))._repr_html_(),
        "table": repr(Table(("path",), ((path,),))),
        "table html": Table(("path",), ((path,),))._repr_html_(),
        "todos": repr(TodoList(state.todos, "Todos")),
        "todos html": TodoList(state.todos, "Todos")._repr_html_(),
        "file": FileDisplay(render_file(path, b"text"))._repr_html_(),
    }
    for where, text in shown.items():
        assert RLO not in text, where
    assert "invoice\\u202efdp.exe" in bundle["text/plain"]
    assert "invoice\\u202efdp.exe" in bundle["text/html"]
