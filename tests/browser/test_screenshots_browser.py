"""Screenshots of every view in JupyterLab 4, light and dark: the run view (todos, tool cards,
subagents, a summary card, the thread switcher), a run waiting on approval cards, the file browser
with a file open in the viewer, an agent's anatomy (``%deepagent inspect``) and a run's static
snapshot; and the daily loop around a run: a follow-up from the box, a steered run, the step
numbers in the header chips, timeline and history, a file opened at its link, Reject all and Stop
while approvals wait, a run stopped there, and an exported thread. Written to
``test-artifacts/screenshots/<view>-<theme>.png`` (git-ignored) for review;
the test checks that each view is there, that the theme is applied, and that each file is written.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import deepnb
from tests.browser.conftest import ARTIFACTS
from tests.support.notebook_ui import (
    RUN_TIMEOUT,
    code_cell,
    expect,
    open_notebook,
    run_all_cells,
    scroll_to,
    wait_for_notebook_run,
)
from tests.unit.conftest import unique

pytestmark = [pytest.mark.browser, pytest.mark.timeout(480)]

SHOTS = ARTIFACTS.parent / "screenshots"
RESEARCH = "%%deepagent -m demo:research -o research"
GATED = "%%deepagent -a gated -m demo:approvals --interrupt-on write_file,edit_file -o gated"
CELLS = [
    "%load_ext deepnb",
    f"{RESEARCH}\nWrite a short report on how coral reefs recover after bleaching.",
    "%deepagent files",
    "%deepagent inspect",
    "from IPython.display import display\nfrom deepnb.views.run.snapshot import snapshot_bundle\n"
    "display(snapshot_bundle(research.state), raw=True)",
    f"{GATED}\nPlan our product launch.",
]


def set_theme(page: Any, theme: str) -> None:
    """Settings → Theme → ``theme``, then wait until the page has it."""
    page.locator(".lm-MenuBar-item", has_text=re.compile(r"^Settings$")).click()
    page.locator(
        ".lm-Menu .lm-Menu-item", has=page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Theme$"))
    ).hover()
    page.locator(
        ".lm-Menu .lm-Menu-item", has=page.locator(".lm-Menu-itemLabel", has_text=re.compile(rf"^{theme}$"))
    ).click()
    light = "true" if "Light" in theme else "false"
    expect(page.locator(f'body[data-jp-theme-light="{light}"]')).to_have_count(1, timeout=20_000)
    page.wait_for_timeout(500)  # the theme's stylesheet applied


def shoot(locator: Any, name: str) -> Path:
    scroll_to(locator)
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    locator.screenshot(path=str(path))
    assert path.stat().st_size > 2_000, path
    return path


THEMES = (("JupyterLab Light", "light"), ("JupyterLab Dark", "dark"))


def shoot_in_both_themes(page: Any, shots: dict[str, Any], themes: Any = THEMES) -> list[Path]:
    """Each of ``shots`` (name → locator) in each theme, as ``<name>-<light|dark>.png``."""
    written = []
    for theme, label in themes:
        set_theme(page, theme)
        written += [shoot(locator, f"{name}-{label}") for name, locator in shots.items()]
    return written


def test_screenshots_of_every_view_in_both_themes(page: Any, jupyter_server: Any) -> None:
    page.set_viewport_size({"width": 1280, "height": 2600})  # each view whole in its screenshot
    jupyter_server.put_notebook("screens.ipynb", CELLS)
    open_notebook(page, jupyter_server, "screens.ipynb")
    run_all_cells(page)
    gated = code_cell(page, GATED).first.locator(".deepnb-run")
    expect(gated.locator(".dnb-approval").first).to_be_visible(timeout=RUN_TIMEOUT)
    wait_for_notebook_run(page)

    research = code_cell(page, RESEARCH).first.locator(".deepnb-run")
    expect(research.locator(".dnb-node").first).to_be_visible()
    expect(research.locator(".dnb-summary-head").first).to_be_visible()
    research.locator(".dnb-threads-toggle").click()
    expect(research.locator(".dnb-thread-pick").first).to_be_visible()
    files = code_cell(page, "%deepagent files").first.locator(".deepnb-files")
    file_row = files.locator('.dnb-fv-tree .dnb-fv-row[data-kind="file"]').first
    scroll_to(file_row)
    file_row.click()
    expect(files.locator(".dnb-fv-viewer")).to_have_attribute("data-state", "ready")
    anatomy = code_cell(page, "%deepagent inspect").first.locator(".jp-OutputArea-output").first
    snapshot = code_cell(page, "snapshot_bundle").first.locator(".deepnb-snapshot").first
    expect(anatomy).to_contain_text("Agent")
    expect(snapshot).to_be_visible()

    shots = {"run-view": research, "run-view-approvals": gated, "file-browser-and-viewer": files}
    written = shoot_in_both_themes(page, {**shots, "anatomy": anatomy, "static-snapshot": snapshot})
    set_theme(page, "JupyterLab Light")
    assert len({p.name for p in written}) == 10


TALK = """agents:
  main:
    - match: Plan
      turns: ["Step one: pack."]
    - match: then
      turns: ["Step two: go."]
    - match: Look up
      turns: [{text: "Looking.", tool_calls: [{name: slow_lookup, args: {topic: otters}}]}]
    - match: seals
      turns: ["Focusing on seals."]
    - turns: ["Noted."]
"""
TALK_SETUP = (
    "import pathlib, time\nimport deepnb\n"
    f"pathlib.Path('talk.yaml').write_text({TALK!r})\n"
    "def slow_lookup(topic: str) -> str:\n"
    '    """Look a topic up (once the notebook says go)."""\n'
    "    deadline = time.monotonic() + 90\n"
    "    while not pathlib.Path('go').exists() and time.monotonic() < deadline:\n"
    "        time.sleep(0.05)\n"
    "    return f'notes on {topic}'\n"
    "deepnb.agent(name='talk', model='scripted:talk.yaml', tools=[slow_lookup])"
)
PLAN = "%%deepagent -a talk --new -o plan\nPlan a trip"
SLOW = "%%deepagent -a talk --new --bg -o slow\nLook up otters"
BRIEF = "%%deepagent -a brief -m demo:quickstart --new -o brief\nWrite a brief about tide pools"
HISTORY = "%deepagent history -a brief"
LOOP_CELLS = ["%load_ext deepnb", TALK_SETUP, PLAN, SLOW, BRIEF, HISTORY, f"{GATED}\nPlan our launch."]


def test_screenshots_of_the_daily_loop_in_both_themes(page: Any, jupyter_server: Any) -> None:
    """The run view's daily loop, each part in both themes: a follow-up sent from the box, a
    message steering a running agent, the step numbers (header chips, timeline, history), a file
    opened at its link, Reject all and Stop while approvals wait, and an exported thread."""
    page.set_viewport_size({"width": 1280, "height": 2600})
    jupyter_server.put_notebook("loop.ipynb", LOOP_CELLS)
    open_notebook(page, jupyter_server, "loop.ipynb")
    run_all_cells(page)
    gated = code_cell(page, GATED).first.locator(".deepnb-run")
    expect(gated.locator(".dnb-approval").first).to_be_visible(timeout=RUN_TIMEOUT)
    wait_for_notebook_run(page)
    gated.locator(".dnb-approval button.dnb-approve").first.click()  # then two subagents ask at once
    expect(gated.get_by_role("button", name=re.compile("^Reject all"))).to_be_visible(timeout=RUN_TIMEOUT)
    expect(gated.locator(".dnb-stop")).to_be_visible()

    plan = code_cell(page, "-o plan").first.locator(".deepnb-run")
    expect(plan).to_have_attribute("data-status", "done")
    box = plan.get_by_role("textbox", name="Follow-up prompt")
    box.fill("And then?")
    box.press("Enter")
    expect(plan.locator(".dnb-transcript")).to_contain_text("Step two: go.", timeout=RUN_TIMEOUT)
    expect(plan).to_have_attribute("data-status", "done")

    slow = code_cell(page, "-o slow").first.locator(".deepnb-run")
    expect(slow).to_have_attribute("data-status", "running")
    steer = slow.get_by_role("textbox", name="Message to steer the running agent")
    steer.fill("Focus on seals.")
    slow.get_by_role("button", name="Steer").click()
    expect(slow.locator(".dnb-compose-said")).not_to_have_class(re.compile("dnb-error"))
    (jupyter_server.root / "go").write_text("")
    expect(slow).to_have_attribute("data-status", "done", timeout=RUN_TIMEOUT)
    expect(slow.locator(".dnb-transcript")).to_contain_text("Focus on seals.")
    expect(slow.locator(".dnb-transcript")).to_contain_text("Focusing on seals.")

    brief = code_cell(page, "-o brief").first.locator(".deepnb-run")
    expect(brief).to_have_attribute("data-status", "done")
    brief.locator("details.dnb-timeline > summary").click()
    expect(brief.locator("details.dnb-timeline")).to_have_attribute("open", "")
    link = brief.locator(".dnb-file-open", has_text="/notes/stresses.md")
    scroll_to(link)
    link.click()
    expect(brief.locator(".dnb-files-peek .dnb-filepeek")).to_have_attribute("data-state", "ready")
    history = code_cell(page, HISTORY).first.locator(".jp-OutputArea-output").first
    expect(history).to_contain_text("step")

    shots = {"follow-up": plan, "steered": slow, "steps-timeline-and-file-at-link": brief, "history": history}
    written = shoot_in_both_themes(page, {**shots, "reject-all-and-stop-while-waiting": gated})
    gated.locator(".dnb-stop").click()  # cancel while waiting: the cards are withdrawn
    expect(gated).to_have_attribute("data-status", "cancelled", timeout=RUN_TIMEOUT)
    written += shoot_in_both_themes(page, {"stopped-while-waiting": gated}, THEMES[::-1])  # dark is on

    bench = deepnb.agent(name=unique("exported"), model="demo:quickstart")
    assert bench.start("Write a brief about tide pools").wait(60).status == "done"
    deepnb.export(jupyter_server.root / "exported.ipynb", agent=bench.name)
    open_notebook(page, jupyter_server, "exported.ipynb")
    exported = page.locator(".jp-Notebook .deepnb-snapshot").first
    expect(exported).to_contain_text("tide pools")
    answer, table = exported.locator(".dnb-final-answer"), exported.locator(".dnb-final-answer table")
    a, t = answer.bounding_box(), table.bounding_box()
    assert a and t and t["x"] - a["x"] < 40, (a, t)  # the answer's table sits left, not centred
    written += shoot_in_both_themes(page, {"exported-thread": exported})
    set_theme(page, "JupyterLab Light")
    assert len({p.name for p in written}) == 14
