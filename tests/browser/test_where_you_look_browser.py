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

from tests.browser.conftest import ARTIFACTS
from tests.support.notebook_ui import (
    RUN_TIMEOUT,
    code_cell,
    expect,
    luminance,
    open_notebook,
    run_all_cells,
)
from tests.support.waiting import eventually

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

SHOTS = ARTIFACTS.parent / "screenshots"

TURNS = 36  # each a line of text and a write_file card: a view far taller than the page
WORD = "quokka"  # only in one write_file's content, past what its folded card's one line shows
FILLER = "Tide pools hold water when the sea goes out. " * 8
SUB_WORD = "wombat"  # only in a subagent's transcript, not in its answer: in its closed card
TAIL_WORDS = 1500  # the last answer streams for 30 s: the run still runs while the test looks


def _script(path: Any) -> None:
    turns: list[dict[str, Any]] = [
        {
            "tool_calls": [
                {"name": "task", "args": {"subagent_type": "general-purpose", "description": "Check pool 3"}}
            ]
        }
    ]
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
    sub = [
        {
            "text": f"Looking for a {SUB_WORD} in pool 3.",
            "tool_calls": [{"name": "ls", "args": {"path": "/"}}],
        },
        {"text": "Pool 3 is empty."},
    ]
    path.write_text(yaml.safe_dump({"delay": 0.02, "agents": {"main": turns, "general-purpose": sub}}))


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


# Whether something else shows where a mark is (the stuck header over it, say).
COVERED = """(m) => {
  const r = m.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + 2, r.top + r.height / 2);
  return !(hit && (hit === m || m.contains(hit)));
}"""


def _run(page: Any, server: Any, name: str, *, lab: bool) -> Any:
    open_notebook(page, server, name, lab=lab)
    run_all_cells(page)
    view = code_cell(page, "%%deepagent").locator(".deepnb-run")
    expect(view).to_have_attribute("data-status", "running", timeout=RUN_TIMEOUT)
    # the transcript reaches the last card while the last answer streams
    expect(view.locator(".dnb-transcript .dnb-item.dnb-tool")).to_have_count(TURNS + 1, timeout=RUN_TIMEOUT)
    return view


def _header_stays(page: Any, view: Any) -> None:
    def scrolled_to_the_end() -> None:  # again while the run still grows
        view.locator(".dnb-transcript > .dnb-item").last.evaluate("(el) => el.scrollIntoView({block: 'end'})")
        _header_stays_shown(view)

    eventually(scrolled_to_the_end, "the header with Stop shown on top, scrolled")


def _header_stays_shown(view: Any) -> None:
    """The view is scrolled past its top, and its header with Stop shows, on top, in the viewport."""
    bar = view.locator(".dnb-progress")
    stop = view.locator(".dnb-stop")
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
    # the task card's link, pressed at the end of the page, brings the subagent's card up below it
    view.locator(".dnb-transcript > .dnb-item").last.evaluate("(el) => el.scrollIntoView({block: 'end'})")
    view.locator(".dnb-tool-subagent").first.evaluate("(button) => button.click()")
    node = view.locator(".dnb-tree .dnb-node").first
    expect(node).to_have_class(re.compile(r"\bdnb-flash\b"))

    def below_header() -> None:  # once the smooth scroll comes to rest
        bottom = view.locator(".dnb-progress").evaluate("(el) => el.getBoundingClientRect().bottom")
        assert node.evaluate("(el) => el.getBoundingClientRect().top") >= bottom

    eventually(below_header, "the subagent's node brought up below the header")


@LABS
def test_the_header_sticks_in_a_scrolled_output(
    page: Any, jupyter_server: Any, long_run: str, lab: bool
) -> None:
    view = _run(page, jupyter_server, long_run, lab=lab)
    cell = code_cell(page, "%%deepagent")
    cell.locator(".jp-OutputArea-promptOverlay").first.click()  # output collapsed into a scroll box
    expect(cell).to_have_class(re.compile(r"\bjp-mod-outputsScrolled\b"))
    box = cell.locator(".jp-Cell-outputArea")

    def stuck_at_the_top() -> None:  # scrolled to the end again while the run still grows
        box.scroll_into_view_if_needed()  # the notebook may have scrolled it away meanwhile
        box.evaluate("(el) => el.scrollTop = el.scrollHeight")
        sizes = box.evaluate("(el) => [el.scrollHeight, el.clientHeight, el.getBoundingClientRect().top]")
        assert sizes[0] > sizes[1] * 2, sizes  # still a scroll box, the run view far taller than it
        shown = view.locator(".dnb-progress").evaluate(ON_TOP)
        assert shown["onTop"], shown
        assert abs(shown["top"] - sizes[2]) < 4, (shown, sizes)  # at the top of the box

    eventually(stuck_at_the_top, "the header stuck at the top of the scrolled output")
    expect(view.locator(".dnb-stop")).to_be_in_viewport()


def _search(page: Any, view: Any) -> None:
    """Search a word found only in two folded cards' full arguments: both open, marked, counted;
    Enter goes to the second; Escape folds them again."""
    cards = (
        view.locator(".dnb-item.dnb-tool")
        .filter(has_text="/pool7.md")
        .or_(view.locator(".dnb-item.dnb-tool").filter(has_text="/pool21.md"))
    )
    expect(cards).to_have_count(2)
    for i in range(2):
        expect(cards.nth(i)).not_to_have_class(re.compile(r"\bdnb-open\b"))
    box = view.get_by_role("searchbox", name="Search the transcript")
    box.click()
    box.press_sequentially(WORD.upper(), delay=30)
    count = view.locator(".dnb-search-count")
    expect(count).to_have_text(re.compile(r"^match 1 of 2 · 2 of \d+ items$"))
    marks = view.locator("mark.dnb-hit")
    expect(marks).to_have_count(2)
    for i in range(2):
        expect(cards.nth(i)).to_have_class(re.compile(r"\bdnb-open\b"))
        expect(cards.nth(i).locator(".dnb-tool-args-full mark.dnb-hit")).to_have_text(WORD)
    expect(marks.nth(0)).to_have_class(re.compile(r"\bdnb-hit-current\b"))
    expect(marks.nth(0)).to_be_in_viewport()
    box.press("Enter")
    expect(count).to_have_text(re.compile(r"^match 2 of 2 "))
    expect(marks.nth(1)).to_have_class(re.compile(r"\bdnb-hit-current\b"))
    expect(marks.nth(0)).not_to_have_class(re.compile(r"\bdnb-hit-current\b"))
    expect(marks.nth(1)).to_be_in_viewport()
    covered = marks.nth(1).evaluate(COVERED)
    assert not covered, "the match the search went to is under something (the stuck header?)"
    view.get_by_role("button", name="Previous match").click()
    expect(count).to_have_text(re.compile(r"^match 1 of 2 "))
    expect(marks.nth(0)).to_have_class(re.compile(r"\bdnb-hit-current\b"))
    for i in range(2):  # a mark's text is the word as written, a text node (never HTML)
        assert cards.nth(i).locator(".dnb-tool-args-full").inner_text().count(WORD) == 1


def _shoot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    shot = SHOTS / f"{name}.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 2_000, shot


def _search_subagent(view: Any) -> None:
    """A word only in a subagent's transcript opens its closed card, marked; Escape closes it."""
    card = view.locator(".dnb-tree .dnb-node").first
    expect(card).not_to_have_class(re.compile(r"\bdnb-open\b"))
    box = view.get_by_role("searchbox", name="Search the transcript")
    box.fill(SUB_WORD)
    expect(card).to_have_class(re.compile(r"\bdnb-open\b"))
    expect(card.locator(".dnb-node-transcript mark.dnb-hit")).to_have_text(SUB_WORD)
    expect(view.locator(".dnb-search-count")).to_have_text(re.compile(r"^match 1 of \d+ · "))
    box.press("Escape")
    expect(card).not_to_have_class(re.compile(r"\bdnb-open\b"))
    expect(view.locator("mark.dnb-hit")).to_have_count(0)


@LABS
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_search_opens_marks_counts_and_steps(
    page: Any, jupyter_server: Any, long_run: str, lab: bool, theme: str, request: pytest.FixtureRequest
) -> None:
    if theme == "dark":
        request.getfixturevalue("dark")
    view = _run(page, jupyter_server, long_run, lab=lab)
    background = view.evaluate("(el) => getComputedStyle(el).backgroundColor")
    assert (luminance(background) < 0.3) == (theme == "dark"), (theme, background)
    where = f"{'jupyterlab' if lab else 'notebook7'}-{theme}"
    _header_stays(page, view)
    _shoot(page, f"sticky-header-{where}")
    _search(page, view)
    view.locator(".dnb-search-next").click()  # at the second match
    expect(view.locator(".dnb-stop")).to_be_in_viewport()
    _shoot(page, f"transcript-search-{where}")
    box = view.get_by_role("searchbox", name="Search the transcript")
    box.press("Escape")
    expect(view.locator("mark.dnb-hit")).to_have_count(0)
    expect(view.locator(".dnb-item.dnb-tool.dnb-open")).to_have_count(0)  # folded again, as they were
    expect(view.locator(".dnb-transcript .dnb-item.dnb-tool:not([hidden])")).to_have_count(
        TURNS + 1
    )  # none hidden
    _search_subagent(view)
    expect(view).to_have_attribute("data-status", "running")  # all of it while the run ran
