"""Approval cards in a real browser (JupyterLab 4): deciding a whole ``demo:approvals`` run by clicking.

The run stops three times: the main agent's ``write_file`` of ``/plan.md`` (edited in the card's
form), two subagents' ``write_file`` calls at once (one approved, one rejected with a reason), then
the main agent's ``edit_file`` (approved, after its diff). Each decision goes from the card to the
kernel as a widget message while no cell runs; the run resumes in the background and the same view
goes on streaming. A cell run afterwards checks the effect on ``run``.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.conftest import APPROVALS
from tests.support.notebook_ui import (
    RUN_TIMEOUT,
    code_cell,
    collect_page_errors,
    expect,
    menu,
    no_pwned,
    node,
    node_items,
    open_notebook,
    output_text,
    run_all,
    scroll_to,
    select_cell,
    tool_card,
    wait_for_cell,
    wait_for_notebook_run,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

STAGE_TIMEOUT = 30_000  # ms: from a decision to the next stop (or the end) of the run
SUBAGENTS = {"/announce.md": "main/general-purpose", "/risks.md": "main/general-purpose#2"}
EDITED_PLAN = (
    "# Launch plan\n"
    "1. Announce on Monday\n"
    "2. Open sign-ups on Wednesday (edited in the browser)\n"
    "3. Review feedback on Friday\n"
)
AGENT = "%%deepagent -m demo:approvals --interrupt-on write_file,edit_file -o run"
REASON = "We track risks in the team tracker."
CHECK = (
    "print(run.status)\n"
    'print(run.files["/plan.md"])\n'
    'print([d["type"] for d in run.decisions])\n'
    'print([d["message"] for d in run.decisions])\n'
    "print(sorted(run.files))\n"
    "print([(n.path, n.status) for n in run.tree.children])"
)


def undecided(view: Any) -> Any:
    return view.locator('.dnb-pending .dnb-approval[data-decided="false"]')


def approval_card(view: Any, tool: str, args: str = "") -> Any:
    """The undecided card for ``tool`` whose argument line contains ``args``."""
    cards = undecided(view).filter(
        has=view.page.locator(".dnb-approval-tool", has_text=re.compile(rf"^{re.escape(tool)}$"))
    )
    return cards.filter(has=view.page.locator(".dnb-approval-args", has_text=args)) if args else cards


def button_labels(card: Any) -> list[str]:
    return card.locator(".dnb-approval-buttons > button").all_inner_texts()


def test_approval_cards_decide_a_run(page: Any, jupyter_server: Any, artifact: Any) -> None:
    errors = collect_page_errors(page)
    jupyter_server.put_notebook(
        "approvals.ipynb",
        [
            "%load_ext deepnb",
            f"{AGENT}\nPlan our product launch.",
            CHECK,
        ],
    )
    open_notebook(page, jupyter_server, "approvals.ipynb")
    check = code_cell(page, 'print(run.files["/plan.md"])')
    select_cell(check)
    menu(page, "Run", "Run All Above Selected Cell")

    agent_cell = code_cell(page, "%%deepagent")
    view = agent_cell.locator(".deepnb-run")
    pending = view.locator(".dnb-pending")

    # -- 1. the main agent's write_file: edit the plan in the card's form ---------------------------
    expect(view).to_have_attribute("data-status", "interrupted", timeout=RUN_TIMEOUT)
    wait_for_cell(agent_cell)  # the cell ended at the card: no cell runs while we decide
    expect(view.locator(".dnb-progress .dnb-status")).to_have_text("waiting for your approval")
    expect(pending.locator(".dnb-pending-title")).to_have_text("Waiting for your approval — 1 action")
    card = approval_card(view, "write_file")
    expect(card).to_have_count(1)
    expect(card.locator(".dnb-approval-agent")).to_have_text("main agent")
    expect(card.locator(".dnb-approval-args")).to_contain_text("/plan.md")
    expect(card.locator(".dnb-preview")).to_contain_text("2. Open sign-ups on Tuesday")
    assert {"Approve", "Edit", "Reject"} <= set(button_labels(card)), button_labels(card)
    expect(view.locator(".dnb-tree")).to_be_hidden()  # no subagent yet
    scroll_to(view)
    page.screenshot(path=str(artifact("1-write-file-card.png")))

    card.locator("button.dnb-edit").click()
    expect(card.locator("button.dnb-edit")).to_have_attribute("aria-expanded", "true")
    form = card.locator(".dnb-edit-form")
    expect(form).to_be_visible()
    expect(form.locator('textarea[data-arg="file_path"]')).to_have_value("/plan.md")
    content = form.locator('textarea[data-arg="content"]')
    expect(form.locator("textarea").first).to_be_focused()
    expect(content).to_have_value(re.compile("Open sign-ups on Tuesday"))
    content.fill(EDITED_PLAN)
    card.screenshot(path=str(artifact("2-edit-form.png")))
    form.locator("button.dnb-edit-send").click()

    # -- 2. two subagents stop at once, each with its own card --------------------------------------
    announce = approval_card(view, "write_file", "/announce.md")
    risks = approval_card(view, "write_file", "/risks.md")
    expect(announce).to_have_count(1, timeout=STAGE_TIMEOUT)
    expect(risks).to_have_count(1, timeout=STAGE_TIMEOUT)
    expect(view).to_have_attribute("data-status", "interrupted", timeout=STAGE_TIMEOUT)
    expect(undecided(view)).to_have_count(2)
    for path, card in ((("/announce.md", announce)), ("/risks.md", risks)):
        label = SUBAGENTS[path].split("/")[-1].replace("#", " #")  # as the Subagents panel names it
        expect(card.locator(".dnb-approval-agent")).to_have_text(f"subagent {label}")
        expect(card.locator(".dnb-approval-agent")).to_have_attribute("title", SUBAGENTS[path])
    expect(announce.locator(".dnb-preview")).to_contain_text("We're launching!")
    expect(risks.locator(".dnb-preview")).to_contain_text("Sign-up page load")
    waiting = view.locator('.dnb-tree .dnb-node[data-status="waiting"]')
    expect(waiting).to_have_count(2)
    for node_id in SUBAGENTS.values():
        expect(node(view, node_id).locator(".dnb-node-status").first).to_have_text("waiting for approval")
    expect(view.locator(".dnb-tree .dnb-tree-counts")).to_have_text("2 waiting")
    # Open the risks node: its own transcript, stopped at the write_file waiting for approval.
    announce_node, risks_node = (node(view, SUBAGENTS[path]) for path in ("/announce.md", "/risks.md"))
    risks_node.locator(".dnb-node-head").first.click()
    risks_items = node_items(view, SUBAGENTS["/risks.md"])
    risks_write = tool_card(risks_node, "write_file")
    expect(risks_items.first).to_contain_text("Writing the risk list.")
    expect(risks_write).to_have_attribute("data-status", "waiting")
    scroll_to(view.locator(".dnb-tree"))
    page.screenshot(path=str(artifact("3-subagent-cards.png")))

    # Approve one; the other keeps waiting. Then reject it, with a reason told to the agent.
    announce.locator("button.dnb-approve").click()
    expect(announce).to_have_count(0, timeout=STAGE_TIMEOUT)  # decided, or gone with its interrupt
    expect(announce_node).to_have_attribute("data-status", "done", timeout=STAGE_TIMEOUT)
    expect(risks_node).to_have_attribute("data-status", "waiting")
    expect(risks).to_have_count(1)
    expect(risks_items).to_have_count(2)  # the view was shown again at the pause: still open
    expect(pending.locator(".dnb-pending-title")).to_have_text("Waiting for your approval — 1 action")
    scroll_to(view.locator(".dnb-tree"))
    page.screenshot(path=str(artifact("4-one-approved.png")))
    risks.locator("button.dnb-reject").click()
    reason = risks.locator(".dnb-reject-form textarea.dnb-reason")
    expect(reason).to_be_focused()
    reason.fill(REASON)
    risks.screenshot(path=str(artifact("5-reject-form.png")))
    expect(risks.locator(".dnb-reject-form button.dnb-reject-send")).to_be_enabled()
    reason.press("Control+Enter")  # sends the form, like its "Reject" button

    # -- 3. the main agent's edit_file, with its diff against the edited plan -----------------------
    edit = approval_card(view, "edit_file")
    expect(edit).to_have_count(1, timeout=STAGE_TIMEOUT)
    expect(view).to_have_attribute("data-status", "interrupted", timeout=STAGE_TIMEOUT)
    expect(edit.locator(".dnb-approval-agent")).to_have_text("main agent")
    diff = edit.locator(".dnb-diff")
    expect(diff).to_be_visible()
    expect(diff.locator(".dnb-add").filter(has_text="See /announce.md and /risks.md.")).to_have_count(1)
    expect(diff).to_contain_text("Open sign-ups on Wednesday (edited in the browser)")  # the edit held
    expect(view.locator('.dnb-tree .dnb-node[data-status="done"]')).to_have_count(2)
    scroll_to(pending)
    page.screenshot(path=str(artifact("6-edit-file-diff.png")))
    edit.locator("button.dnb-approve").click()

    # -- the end: done, nothing pending, four decisions in the log ------------------------------------
    expect(view).to_have_attribute("data-status", "done", timeout=STAGE_TIMEOUT)
    expect(view.locator(".dnb-progress .dnb-status")).to_have_text("done")
    expect(undecided(view)).to_have_count(0)
    expect(view.locator(".dnb-decisions-summary")).to_have_text("Decisions (4)")
    types = view.locator(".dnb-decision-list .dnb-decision")
    expect(types).to_have_count(4)
    logged = [types.nth(i).get_attribute("data-type") for i in range(4)]
    assert logged == ["edit", "approve", "reject", "approve"], logged
    expect(types.nth(2).locator(".dnb-decision-detail")).to_have_text(REASON)
    expect(view.locator('.dnb-tree .dnb-node[data-status="done"]')).to_have_count(2)
    expect(view.locator(".dnb-tree .dnb-tree-counts")).to_have_text("2 done")
    expect(risks_items.last).to_contain_text("Risks listed.")  # still open after the rejection
    # The rejected call never ran: declined, its result the reason the agent was told.
    expect(risks_write).to_have_attribute("data-status", "declined")  # rejected: it never ran
    expect(risks_write.locator(".dnb-tool-result")).to_contain_text(f"with reason: {REASON}")
    expect(risks_write.locator(".dnb-tool-not-run")).to_have_text(f"Not run: declined by you — {REASON}")
    expect(types.nth(2).locator(".dnb-decision-by")).to_have_text("by you")

    # The run object agrees: the edited plan, linked by the approved edit_file; no /risks.md.
    select_cell(check)
    menu(page, "Run", "Run Selected Cell and Do not Advance")
    wait_for_cell(check, timeout=STAGE_TIMEOUT)
    text = output_text(check)
    assert text.splitlines()[0] == "done", text
    assert "2. Open sign-ups on Wednesday (edited in the browser)" in text, text
    assert "3. Review feedback on Friday\n\nSee /announce.md and /risks.md." in text, text
    assert "['edit', 'approve', 'reject', 'approve']" in text, text
    assert f"['', '', '{REASON}', '']" in text, text
    assert "['/announce.md', '/plan.md']" in text, text
    assert "[('main/general-purpose', 'done'), ('main/general-purpose#2', 'done')]" in text, text
    no_pwned(page)
    assert not errors, "\n\n".join(errors)
    scroll_to(view)


def test_the_approvals_notebook_runs_all(page: Any, jupyter_server: Any, artifact: Any) -> None:
    """notebooks/approvals.ipynb as shipped, Run All: its cells decide from Python (edit, approve,
    reject), and the live cards of the first run show each decision as it is made."""
    errors = collect_page_errors(page)
    name = jupyter_server.copy_notebook(APPROVALS, "approvals-demo.ipynb")
    open_notebook(page, jupyter_server, name)
    run_all(page)
    view = code_cell(page, "-o run\n").locator(".deepnb-run")
    expect(view).to_have_attribute("data-status", "done", timeout=RUN_TIMEOUT)
    wait_for_notebook_run(page)

    expect(undecided(view)).to_have_count(0)
    expect(view.locator(".dnb-decisions-summary")).to_have_text("Decisions (4)")
    types = view.locator(".dnb-decision-list .dnb-decision")
    logged = [types.nth(i).get_attribute("data-type") for i in range(4)]
    assert logged == ["edit", "approve", "reject", "approve"], logged
    expect(view.locator('.dnb-tree .dnb-node[data-status="done"]')).to_have_count(2)
    decisions = code_cell(page, "for d in run.decisions]")
    assert REASON in output_text(decisions)
    # The second run approved everything itself: its view ends done with four automatic decisions.
    auto = code_cell(page, "--auto-approve").locator(".deepnb-run")
    expect(auto).to_have_attribute("data-status", "done")
    expect(auto.locator(".dnb-decisions-summary")).to_have_text("Decisions (4)")
    assert not errors, "\n\n".join(errors)
    scroll_to(view)
    page.screenshot(path=str(artifact("run-all.png")))
