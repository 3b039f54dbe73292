"""The subagent tree and the summarization card in a real browser (JupyterLab 4 and Notebook 7).

``notebooks/research.ipynb`` runs ``demo:research``: three researchers in parallel, then a mid-run
summarization of the main agent's context. The tests run it through the UI (Run → Run All Cells)
and use the run view as a person would: open a subagent's card, jump to it from its ``task`` card,
open the summary and the history file. The last test feeds hostile text to the same surfaces.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.browser.conftest import REPO, RESEARCH
from tests.support.notebook_ui import (
    RUN_TIMEOUT,
    code_cell,
    collect_page_errors,
    expect,
    main_items,
    no_pwned,
    node,
    node_head,
    node_items,
    open_notebook,
    output_text,
    run_all,
    run_all_cells,
    save_notebook,
    saved_output,
    scroll_to,
    tool_card,
    wait_for_notebook_run,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

AGENT_CELL = "%%deepagent -m demo:research"
NODES = ["main/general-purpose", "main/general-purpose#2", "main/general-purpose#3"]
# Printed by a cell added at the end of the copy: what the summary card must show.
SUMMARY_PROBE = (
    's = run.summaries[0]\nprint("SUMMARY", s.messages, s.tokens_before, s.tokens_after, s.file_path)'
)


def summary_facts(page: Any) -> tuple[int, int, int, str]:
    """``(messages, tokens_before, tokens_after, file_path)`` of the run's summary, as the kernel
    printed them in the probe cell."""
    text = output_text(code_cell(page, 'print("SUMMARY"'))
    found = re.search(r"SUMMARY (\d+) (\d+) (\d+) (\S+)", text)
    assert found, f"the probe cell printed {text!r}"
    return int(found[1]), int(found[2]), int(found[3]), found[4]


def run_research(page: Any, server: Any, name: str, *, lab: bool = True) -> Any:
    """Open a copy of the research notebook (with the summary probe), run it all; return the view."""
    server.copy_notebook(RESEARCH, name, [SUMMARY_PROBE])
    open_notebook(page, server, name, lab=lab)
    run_all(page)
    view = code_cell(page, AGENT_CELL).locator(".deepnb-run")
    expect(view).to_have_attribute("data-status", "done", timeout=RUN_TIMEOUT)
    wait_for_notebook_run(page)
    return view


# -- JupyterLab: the tree, the summary card, the history file ---------------------------------------


def test_research_tree_and_summary_in_jupyterlab(page: Any, jupyter_server: Any, artifact: Any) -> None:
    errors = collect_page_errors(page)
    view = run_research(page, jupyter_server, "research.ipynb")

    # The Subagents panel: three top-level cards, all done, one tool call each, closed.
    tree = view.locator(".dnb-tree")
    expect(tree).to_be_visible()
    expect(tree.locator(".dnb-tree-counts")).to_have_text("3 done")
    roots = tree.locator(".dnb-tree-roots > .dnb-node")
    expect(roots).to_have_count(3)
    assert [roots.nth(i).get_attribute("data-node") for i in range(3)] == NODES
    for node_id in NODES:
        card = node(view, node_id)
        expect(card).to_have_attribute("data-status", "done")
        expect(card.locator(".dnb-node-calls").first).to_have_text("1 tool call")
        expect(card.locator(".dnb-node-status").first).to_have_text("✓ done")
        expect(card.locator(".dnb-node-duration").first).to_have_text(re.compile(r"^\d+\.\d s$"))
        expect(node_head(view, node_id)).to_have_attribute("aria-expanded", "false")
        expect(node_items(view, node_id)).to_have_count(0)  # a closed card holds no transcript
    second = node(view, NODES[1])
    expect(second.locator(".dnb-node-label").first).to_have_text("general-purpose #2")
    expect(second.locator(".dnb-node-desc").first).to_have_text(
        "Research how reefs recover after bleaching; notes in /research/recovery.md"
    )
    expect(second.locator(".dnb-node-result").first).to_contain_text("Notes on recovery are in")

    # A click on a card's head opens it: the subagent's own transcript and its full result.
    node_head(view, NODES[1]).click()
    expect(node_head(view, NODES[1])).to_have_attribute("aria-expanded", "true")
    items = node_items(view, NODES[1])
    expect(items).to_have_count(3)
    assert [items.nth(i).get_attribute("data-kind") for i in range(3)] == ["text", "tool", "text"]
    expect(items.first.locator(".dnb-text-body")).to_have_text("Collecting what is known about recovery.")
    own_write = tool_card(second.locator(".dnb-node-transcript").first, "write_file")
    expect(own_write).to_have_count(1)
    expect(own_write).to_have_attribute("data-status", "done")
    expect(own_write.locator(".dnb-tool-args")).to_contain_text("/research/recovery.md")
    expect(second.locator(".dnb-node-result-full").first).to_contain_text("whole reefs take 10–15 years")
    # A tool card inside the node opens on click, like one in the main transcript.
    own_write.locator(".dnb-tool-head").click()
    expect(own_write.locator(".dnb-tool-head")).to_have_attribute("aria-expanded", "true")
    expect(own_write.locator(".dnb-tool-args-full")).to_contain_text("# How reefs recover after bleaching")
    expect(node_head(view, NODES[1])).to_have_attribute("aria-expanded", "true")  # the node stays open

    # The main transcript holds only the main agent's items: no subagent's text or tool cards.
    main = main_items(view)
    expect(main.filter(has_text="Collecting what is known about recovery.")).to_have_count(0)
    expect(view.locator(".dnb-transcript > .dnb-item[data-agent]")).to_have_count(0)
    expect(tool_card(view.locator(".dnb-transcript"), "write_file")).to_have_count(1)  # /report.md
    tasks = tool_card(view.locator(".dnb-transcript"), "task")
    expect(tasks).to_have_count(3)
    scroll_to(tree)
    page.screenshot(path=str(artifact("tree-expanded.png")))

    # The Enter key toggles a focused card too.
    node_head(view, NODES[0]).focus()
    page.keyboard.press("Enter")
    expect(node_head(view, NODES[0])).to_have_attribute("aria-expanded", "true")
    expect(node_items(view, NODES[0])).to_have_count(3)
    page.keyboard.press("Enter")
    expect(node_head(view, NODES[0])).to_have_attribute("aria-expanded", "false")
    expect(node_items(view, NODES[0])).to_have_count(0)

    # "show subagent" on the third task card opens the third researcher's card.
    show = view.locator(f'.dnb-transcript .dnb-show-subagent[data-node="{NODES[2]}"]')
    expect(show).to_be_visible()
    expect(tasks.nth(2).locator(".dnb-tool-subagent")).to_have_text("→ general-purpose #3")
    expect(node_head(view, NODES[2])).to_have_attribute("aria-expanded", "false")
    show.click()
    expect(node_head(view, NODES[2])).to_have_attribute("aria-expanded", "true")
    expect(node_items(view, NODES[2])).to_have_count(3)
    expect(node_items(view, NODES[2]).first).to_contain_text("Surveying the interventions.")
    expect(node_head(view, NODES[2])).to_be_focused()
    expect(tasks.nth(2).locator(".dnb-tool-head")).to_have_attribute("aria-expanded", "false")
    show.click()  # pressed again, it shows the card again: it does not close it
    expect(node_head(view, NODES[2])).to_have_attribute("aria-expanded", "true")
    expect(node_items(view, NODES[2])).to_have_count(3)

    # The summary card: the messages and tokens of run.summaries[0], the summary folded away.
    messages, before, after, history = summary_facts(page)
    assert messages == 12 and before > after > 0 and history.startswith("/conversation_history/")
    card = view.locator('.dnb-transcript > .dnb-item.dnb-summary[data-kind="summary"]')
    expect(card).to_have_count(1)
    expect(card.locator(".dnb-summary-messages")).to_have_text(f"{messages} messages summarized")
    expect(card.locator(".dnb-summary-tokens")).to_have_text(f"tokens {before:,} → {after:,}")
    expect(card.locator(".dnb-summary-path")).to_have_text(history)
    details = card.locator("details.dnb-summary-details")
    text = card.locator(".dnb-summary-text")
    expect(text).to_be_hidden()
    card.locator("summary.dnb-summary-toggle").click()
    expect(details).to_have_attribute("open", "")
    expect(text).to_be_visible()
    expect(text.locator("li")).to_have_count(4)
    expect(text).to_contain_text("three researchers in parallel")
    expect(text.locator("code").first).to_have_text("/report.md")

    # "Open history file": the kernel answers with the saved messages, shown in the file panel.
    peek = view.locator(".dnb-filepeek")
    expect(peek).to_be_hidden()
    card.locator(f'.dnb-summary-open[data-path="{history}"]').click()
    expect(peek).to_be_visible()
    expect(peek).to_have_attribute("data-state", "ready", timeout=15_000)
    expect(peek).to_have_attribute("data-path", history)
    expect(peek.locator(".dnb-filepeek-path")).to_have_text(history)
    body = peek.locator(".dnb-filepeek-body")
    expect(body).to_contain_text("coral")
    expect(body).to_contain_text('<message type="human">Write a short report on how coral reefs')
    scroll_to(peek)
    page.screenshot(path=str(artifact("file-panel.png")))
    card.screenshot(path=str(artifact("summary-card.png")))
    peek.locator(".dnb-filepeek-close").click()
    expect(peek).to_be_hidden()
    expect(details).to_have_attribute("open", "")  # closing the panel leaves the card as it was
    no_pwned(page)
    assert not errors, "\n\n".join(errors)
    scroll_to(tree)


# -- Notebook 7: the same tree ------------------------------------------------------------------


def test_research_tree_in_notebook7(page: Any, jupyter_server: Any) -> None:
    errors = collect_page_errors(page)
    view = run_research(page, jupyter_server, "research-notebook7.ipynb", lab=False)
    roots = view.locator(".dnb-tree .dnb-tree-roots > .dnb-node")
    expect(roots).to_have_count(3)
    expect(view.locator('.dnb-tree .dnb-node[data-status="done"]')).to_have_count(3)
    node_head(view, NODES[0]).click()
    expect(node_head(view, NODES[0])).to_have_attribute("aria-expanded", "true")
    own = node(view, NODES[0]).locator(".dnb-node-transcript").first
    expect(tool_card(own, "write_file")).to_have_count(1)
    messages, *_ = summary_facts(page)
    summary = view.locator(".dnb-item.dnb-summary")
    expect(summary.locator(".dnb-summary-messages")).to_have_text(f"{messages} messages summarized")
    summary.locator(".dnb-summary-open").click()
    expect(view.locator(".dnb-filepeek")).to_have_attribute("data-state", "ready", timeout=15_000)
    expect(view.locator(".dnb-filepeek-body")).to_contain_text("coral")
    scroll_to(view.locator(".dnb-tree"))
    assert not errors, "\n\n".join(errors)


# -- untrusted text in the tree, a node's transcript, the summary and the history file ------------

IMG = '<img src=x onerror="window.__pwned=1">'
SCRIPT = "<script>window.__pwned=2</script>"


def hostile_research_script(path: Path) -> None:
    """``demo:research`` with hostile text in the first researcher's description (its prompt), its
    first reply and its result, and in the main agent's summary (so also in the history file)."""
    data = yaml.safe_load((REPO / "deepnb" / "demos" / "research.yaml").read_text())
    data["delay"] = 0
    main = data["agents"]["main"][0]["turns"]
    main[1]["tool_calls"][0]["args"]["description"] = f"Research causes {IMG} and {SCRIPT} now"
    causes = data["agents"]["general-purpose"][0]["turns"]
    causes[0]["text"] = f"Looking into {IMG} the causes {SCRIPT}."
    causes[-1]["text"] = f"Notes on causes {IMG} and {SCRIPT} done."
    data["summaries"]["main"] = f"- Summary with {IMG} and {SCRIPT} inside.\n- a **bold** point\n"
    path.write_text(yaml.safe_dump(data, allow_unicode=True))


def test_untrusted_text_in_tree_and_summary(page: Any, jupyter_server: Any, artifact: Any) -> None:
    errors = collect_page_errors(page)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    script = jupyter_server.root / "hostile-research.yaml"
    hostile_research_script(script)
    jupyter_server.put_notebook(
        "hostile-research.ipynb",
        ["%load_ext deepnb", f"%%deepagent -m scripted:{script} -o r\nWrite a short report on coral reefs."],
    )
    open_notebook(page, jupyter_server, "hostile-research.ipynb")
    run_all_cells(page)
    view = code_cell(page, "%%deepagent").locator(".deepnb-run")
    expect(view).to_have_attribute("data-status", "done", timeout=RUN_TIMEOUT)
    wait_for_notebook_run(page)

    # The tree card: description and result are text.
    first = node(view, NODES[0])
    expect(first).to_have_attribute("data-status", "done")
    expect(first.locator(".dnb-node-desc").first).to_have_text(f"Research causes {IMG} and {SCRIPT} now")
    expect(first.locator(".dnb-node-result").first).to_have_text(f"Notes on causes {IMG} and {SCRIPT} done.")

    # Its transcript (rendered Markdown once finished) and full result are text too.
    node_head(view, NODES[0]).click()
    items = node_items(view, NODES[0])
    expect(items).to_have_count(3)
    result = f"Notes on causes {IMG} and {SCRIPT} done."
    expect(items.first.locator(".dnb-text-body")).to_have_text(f"Looking into {IMG} the causes {SCRIPT}.")
    expect(items.last.locator(".dnb-text-body")).to_have_text(result)
    expect(first.locator(".dnb-node-result-full").first).to_have_text(result)
    # The task card's arguments in the main transcript carry the description.
    task = tool_card(view.locator(".dnb-transcript"), "task").first
    task.locator(".dnb-tool-head").click()
    expect(task.locator(".dnb-tool-args-full")).to_contain_text('<img src=x onerror="window.__pwned=1">')
    expect(task.locator(".dnb-tool-args-full")).to_contain_text(SCRIPT)

    # The summary card's text: Markdown, with the tags as text.
    card = view.locator(".dnb-item.dnb-summary")
    card.locator("summary.dnb-summary-toggle").click()
    summary = card.locator(".dnb-summary-text")
    expect(summary.locator("li").first).to_have_text(f"Summary with {IMG} and {SCRIPT} inside.")
    expect(summary.locator("strong")).to_have_text("bold")

    # The history file (the researcher's prompt is in it) in the file panel.
    card.locator(".dnb-summary-open").click()
    peek = view.locator(".dnb-filepeek")
    expect(peek).to_have_attribute("data-state", "ready", timeout=15_000)
    # Shown as the raw message log it is: the log escapes the prompt's markup, and the prompt sits in
    # a JSON argument, its quotes escaped too.
    logged = IMG.replace('"', '\\"').replace("<", "&lt;").replace(">", "&gt;")
    expect(peek.locator(".dnb-filepeek-body")).to_contain_text(logged)

    page.wait_for_timeout(500)  # give an onerror handler (image load failure) time to fire
    assert page.locator(".jp-OutputArea img").count() == 0
    assert view.locator("script").count() == 0
    no_pwned(page)
    assert dialogs == []
    assert not errors, "\n\n".join(errors)
    scroll_to(card)
    page.screenshot(path=str(artifact("summary.png")))
    scroll_to(view.locator(".dnb-tree"))

    # The static snapshot saved with the output (for nbviewer, GitHub…) has the tree and the
    # summary, escaped.
    save_notebook(page)
    snapshot = saved_output(jupyter_server, "hostile-research.ipynb", cell=1, page=page)["text/html"]
    assert "Research causes &lt;img src=x onerror=" in snapshot, snapshot
    assert "Summary with &lt;img src=x onerror=" in snapshot, snapshot
    assert "&lt;script&gt;window.__pwned=2&lt;/script&gt;" in snapshot, snapshot
    assert "<img" not in snapshot and "<script" not in snapshot, snapshot
