"""An MCP tool's answer shown by kind, and its server's stderr kept out of the cells: a FastMCP
server (tests/support/mcp_gallery.py) answers two texts, an image, a web resource, a
``javascript:`` resource and an SVG, and writes a banner to its stderr at every start."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import deepnb
from deepnb.views.listings import mcp_listing
from deepnb.views.run.snapshot import snapshot_html, snapshot_text
from tests.support.agents import scripted, unique
from tests.support.fresh_session import fresh_session
from tests.support.mcp_gallery import BANNER, PNG

GALLERY = str(Path(__file__).parents[1] / "support" / "mcp_gallery.py")


@pytest.fixture(autouse=True)
def clean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("DEEPNB_HOME", str(tmp_path / "home"))
    with fresh_session():
        yield


def test_content_blocks_by_kind_and_the_banner_in_the_mcp_listing_only(
    capfd: pytest.CaptureFixture[str],
) -> None:
    model = scripted({"main": [{"tool_calls": [{"name": "gallery", "args": {}}]}, {"text": "Done."}]})
    connection = {"transport": "stdio", "command": sys.executable, "args": [GALLERY]}
    bench = deepnb.agent(unique("mcp-gallery"), model, mcp_servers={"gallery": connection})
    run = bench.run("Show the gallery.")
    assert run.status == "done", run.error

    card = next(i for i in run.state.to_json()["items"] if i["kind"] == "tool")
    kinds = [(p["kind"], p["text"]) for p in card["parts"]]
    assert kinds[:2] == [("text", "First block: <b>reef</b> survey."), ("text", "Second block: 12 sites.")]
    assert [k for k, _ in kinds] == ["text", "text", "image", "link", "note", "note"]
    image, link, trap, svg = card["parts"][2:]
    assert image["src"] == f"data:image/png;base64,{PNG}" and image["text"] == "image/png, 72 bytes"
    assert link["src"] == "https://example.org/reef.txt"
    assert "src" not in trap and "javascript:alert(1)" in trap["text"]
    assert "src" not in svg and "image/svg+xml" in svg["text"]
    assert "First block: <b>reef</b> survey.\n\nSecond block" in card["result_full"]  # not run together

    data = run.state.to_json()
    html, text = snapshot_html(data), snapshot_text(data)
    assert "First block: &lt;b&gt;reef&lt;/b&gt; survey." in html and "<b>reef</b>" not in html
    assert html.count("<img ") == 1 and f'src="data:image/png;base64,{PNG}"' in html
    assert "max-height:20em" in html  # the image is bounded on screen
    assert (
        '<a href="https://example.org/reef.txt" target="_blank" rel="noopener noreferrer nofollow">' in html
    )
    assert 'href="javascript' not in html and "data:image/svg" not in html
    assert "│ First block: <b>reef</b> survey.\n" in text and "[image: image/png, 72 bytes]" in text

    captured = capfd.readouterr()  # what the kernel's own stdout and stderr got: shown in a cell
    assert BANNER not in captured.err and BANNER not in captured.out
    (server,) = bench.mcp()
    assert BANNER in server.said  # kept with the server, shown by %deepagent mcp
    listing = mcp_listing(bench.name, bench.mcp())
    assert BANNER in repr(listing) and "Stderr" in listing._repr_html_()
