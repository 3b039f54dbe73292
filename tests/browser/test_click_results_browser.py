"""Where you look, in JupyterLab: a file opened from "Files changed" shows right under the link, a
fork chip's answer shows at the chip, and once the kernel is shut down a chip and a file link say
so at themselves (one line: re-run the cell) instead of doing nothing."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.support.notebook_ui import (
    RUN_TIMEOUT,
    code_cell,
    collect_page_errors,
    dismiss_dialogs,
    expect,
    menu,
    open_notebook,
    run_all,
    scroll_to,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

GONE_LINE = "The kernel is gone: re-run the cell."  # widgets/src/run/kernel_gate.ts
NEAR = 80  # px: "next to" the control


def _below(page: Any, upper: Any, lower: Any) -> float:
    """How far ``lower``'s top is under ``upper``'s bottom, in px."""
    a, b = upper.bounding_box(), lower.bounding_box()
    assert a and b, "not laid out"
    return b["y"] - (a["y"] + a["height"])


def test_results_show_where_you_clicked_and_a_gone_kernel_says_so(
    page: Any, jupyter_server: Any, artifact: Any
) -> None:
    errors = collect_page_errors(page)
    name = "click-results.ipynb"
    jupyter_server.put_notebook(
        name,
        ["%load_ext deepnb", "%%deepagent -m demo:quickstart --new -o run\nWrite a brief about tide pools"],
    )
    open_notebook(page, jupyter_server, name)
    run_all(page)
    view = code_cell(page, "-o run").locator(".deepnb-run")
    expect(view).to_have_attribute("data-status", "done", timeout=RUN_TIMEOUT)

    # The changed file opens right under its link, not at the top of the view.
    link = view.locator(".dnb-file-open", has_text="/notes/stresses.md")
    scroll_to(link)
    link.click()
    peek = view.locator(".dnb-files-peek .dnb-filepeek")
    expect(peek).to_have_attribute("data-state", "ready", timeout=RUN_TIMEOUT)
    assert 0 <= _below(page, view.locator(".dnb-files"), peek) < NEAR
    expect(peek).to_be_in_viewport()
    page.screenshot(path=str(artifact("file-at-link.png")))

    # A fork chip's answer shows at the chip.
    chips = view.locator(".dnb-step-fork")
    chip = chips.nth(2)
    step = re.match(r"step (\d+)", chip.inner_text()).group(1)  # type: ignore[union-attr]
    scroll_to(chip)
    chip.click()
    said = chip.locator("xpath=following-sibling::*[1]")
    expect(said).to_have_text(
        re.compile(rf"New thread \S+ from step {step}: continue with %%deepagent -t \S+")
    )
    assert 0 <= _below(page, chip, said) < NEAR
    expect(view.locator("details.dnb-timeline")).not_to_have_attribute("open", "")
    page.screenshot(path=str(artifact("fork-at-chip.png")))

    menu(page, "Kernel", "Shut Down Kernel")
    dismiss_dialogs(page)
    expect(view).to_have_attribute("data-kernel", "gone")
    other = chips.nth(3)
    scroll_to(other)
    # Marked aria-disabled, yet a click still answers (Playwright won't click a disabled-looking control).
    expect(other).to_have_attribute("aria-disabled", "true")
    other.click(force=True)
    expect(other.locator("xpath=following-sibling::*[1]")).to_have_text(GONE_LINE)
    expect(other).to_have_text(re.compile(r"^step \d+ · fork here$"))  # not left "Forking…"
    view.locator(".dnb-filepeek-close").click()
    link.click(force=True)
    expect(link.locator("xpath=following-sibling::*[1]")).to_have_text(GONE_LINE)
    expect(peek).to_have_count(0)  # nothing opened: no "Loading…" that never ends
    page.screenshot(path=str(artifact("gone-says-so.png")))
    assert not errors, "\n\n".join(errors)


def test_a_responded_call_shows_it_never_ran(browser: Any) -> None:
    """A call answered with Respond, from a real run's traits in the built view: not "✓ done"."""
    import uuid

    import deepnb
    from deepnb.views.run.run_view import RunView
    from tests.browser.test_run_view_a11y_browser import TRAITS, bundle_page

    workbench = deepnb.agent(
        f"respond-{uuid.uuid4().hex[:6]}",
        "demo:approvals",
        interrupt_on={"write_file": True, "edit_file": True},
    )
    run = workbench.run("Plan the launch")
    for _ in range(5):  # approve every call but the risk list's, which gets a response instead
        if run.status != "interrupted":
            break
        for pending in run.pending:
            if "/risks.md" in str(pending.args.get("file_path")):
                pending.respond("Risks are <b>tracked</b> elsewhere.")
            else:
                pending.approve()
        run.wait(30)
    assert run.status == "done", run.error
    view = RunView(run)
    try:
        view._flush()
        state = view.get_state()
        traits = {**TRAITS, **{key: state[key] for key in TRAITS if key in state}}
    finally:
        view.close()
    with bundle_page(browser, traits, "responded-card") as page:
        page.locator(".dnb-node-head", has_text="List the launch risks").click()  # the subagent's own calls
        card = page.locator('.dnb-item[data-status="responded"]')
        expect(card).to_have_count(1)
        expect(card.locator(".dnb-tool-status")).to_have_text("↩ responded")
        expect(card.locator(".dnb-tool-not-run")).to_have_text("Not run: you responded in its place")
        expect(card.locator(".dnb-tool-result")).to_have_text("Risks are <b>tracked</b> elsewhere.")
        expect(card.locator("b")).to_have_count(0)  # the response stays text
