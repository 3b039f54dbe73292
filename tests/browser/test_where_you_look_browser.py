"""Where you look, in JupyterLab and Notebook 7: a long run's header with Stop stays in reach while
the notebook scrolls to the run's end (sticky within the view, never over the box below it), and
the transcript search opens the folded card that holds a word, marks it, counts the matches and
steps through them. Screenshots in the light and the dark theme."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from tests.support.notebook_ui import RUN_TIMEOUT, code_cell, expect, menu, open_notebook

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

TURNS = 36  # each a line of text and a write_file card: a view far taller than the page
WORD = "quokka"  # only in one write_file's content, past what its folded card's one line shows
FILLER = "Tide pools hold water when the sea goes out. " * 8
TAIL_WORDS = 400  # the last answer streams slowly: the run still runs at the end of the page


def _script(path: Any) -> None:
    turns: list[dict[str, Any]] = []
    for n in range(TURNS):
        content = FILLER + (f"A {WORD} was seen near pool {n}." if n in (7, 21) else "Nothing else.")
        turns.append(
            {
                "text": f"Notes on pool {n}.",
                "tool_calls": [
                    {"name": "write_file", "args": {"file_path": f"/pool{n}.md", "content": content}}
                ],
            }
        )
    turns.append({"text": " ".join(f"word{n}" for n in range(TAIL_WORDS))})
    path.write_text(yaml.safe_dump({"delay": 0.02, "agents": {"main": turns}}))


@pytest.fixture
def long_run(jupyter_server: Any) -> Iterator[str]:
    """A notebook whose second cell runs a long scripted run."""
    script = jupyter_server.root / "long.yaml"
    _script(script)
    name = "where-you-look.ipynb"
    jupyter_server.put_notebook(
        name, ["%load_ext deepnb", f"%%deepagent -m scripted:{script}\nSurvey the pools."]
    )
    yield name


# Whether the header is what shows at its own centre (on top of everything there, in the viewport).
ON_TOP = """(bar) => {
  const r = bar.getBoundingClientRect();
  const x = Math.min(r.left + 20, r.right - 1), y = r.top + r.height / 2;
  const hit = document.elementFromPoint(x, y);
  return {top: r.top, bottom: r.bottom, height: window.innerHeight, onTop: !!hit && bar.contains(hit)};
}"""


def _run(page: Any, server: Any, name: str, *, lab: bool) -> Any:
    open_notebook(page, server, name, lab=lab)
    menu(page, "Run", "Run All Cells")
    view = code_cell(page, "%%deepagent").locator(".deepnb-run")
    expect(view).to_have_attribute("data-status", "running", timeout=RUN_TIMEOUT)
    # the transcript reaches the last card while the last answer streams
    expect(view.locator(".dnb-item.dnb-tool")).to_have_count(TURNS, timeout=RUN_TIMEOUT)
    return view


def _header_stays(page: Any, view: Any) -> None:
    bar = view.locator(".dnb-progress")
    stop = view.locator(".dnb-stop")
    view.locator(".dnb-transcript > .dnb-item").last.evaluate("(el) => el.scrollIntoView({block: 'end'})")
    page.wait_for_timeout(300)
    shown = bar.evaluate(ON_TOP)
    view_top = view.evaluate("(el) => el.getBoundingClientRect().top")
    assert view_top < 0, f"the view is not scrolled past its top: {view_top}"  # else nothing to show
    assert shown["top"] >= 0 and shown["bottom"] <= shown["height"], shown
    assert shown["onTop"], shown
    expect(stop).to_be_visible()
    expect(stop).to_be_in_viewport()
    background = bar.evaluate("(el) => getComputedStyle(el).backgroundColor")
    assert "rgba" not in background or background.endswith(", 1)"), background  # opaque


def _clear_of_header(view: Any, selector: str) -> None:
    """Scrolled to, ``selector`` (the box, a card) comes to rest below the stuck header."""
    target = view.locator(selector).first
    target.evaluate("(el) => el.scrollIntoView({block: 'start'})")
    bottom = view.locator(".dnb-progress").evaluate("(el) => el.getBoundingClientRect().bottom")
    top = target.evaluate("(el) => el.getBoundingClientRect().top")
    assert top >= bottom, (selector, top, bottom)


LABS = pytest.mark.parametrize("lab", [True, False], ids=["jupyterlab", "notebook7"])


@LABS
def test_the_header_with_stop_stays_in_reach(
    page: Any, jupyter_server: Any, long_run: str, lab: bool
) -> None:
    view = _run(page, jupyter_server, long_run, lab=lab)
    _header_stays(page, view)
    _clear_of_header(view, ".dnb-compose")  # Steer, while the run runs
    _clear_of_header(view, ".dnb-transcript > .dnb-item:nth-child(40)")


@LABS
def test_the_header_sticks_in_a_scrolled_output(
    page: Any, jupyter_server: Any, long_run: str, lab: bool
) -> None:
    view = _run(page, jupyter_server, long_run, lab=lab)
    cell = code_cell(page, "%%deepagent")
    cell.locator(".jp-OutputArea-promptOverlay").first.click()  # output collapsed into a scroll box
    expect(cell).to_have_class(re.compile(r"\bjp-mod-outputsScrolled\b"))
    box = cell.locator(".jp-Cell-outputArea")
    box.evaluate("(el) => el.scrollTop = el.scrollHeight")
    page.wait_for_timeout(300)
    sizes = box.evaluate("(el) => [el.scrollHeight, el.clientHeight, el.getBoundingClientRect().top]")
    assert sizes[0] > sizes[1] * 2, sizes  # still a scroll box, the run view far taller than it
    shown = view.locator(".dnb-progress").evaluate(ON_TOP)
    assert shown["onTop"], shown
    assert abs(shown["top"] - sizes[2]) < 4, (shown, sizes)  # at the top of the box
    expect(view.locator(".dnb-stop")).to_be_in_viewport()
