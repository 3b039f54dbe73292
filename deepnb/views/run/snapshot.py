"""Static snapshots of a run: HTML and plain text for places where widgets don't run
(GitHub, nbviewer, nbconvert, a saved notebook opened without a kernel): the head line, the
todos, the subagent tree, the transcript (each item by :mod:`deepnb.views.run.items`), the async
tasks as last seen, pending approvals and the decision log.

Every piece of agent text is escaped; the only HTML taken as is comes from
:func:`deepnb.core.text.markup.markdown`, which escapes raw HTML itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from deepnb.core.schema import RUN_STATUS_LABEL as STATUS_LABEL
from deepnb.core.schema import shown_as
from deepnb.core.text.markup import escape
from deepnb.core.text.safe_display import shown_text
from deepnb.engine.state import RunState
from deepnb.views import blocks
from deepnb.views.blocks import Block, Em, Group, Inline, Line, List, Pre
from deepnb.views.bounds import clip_item
from deepnb.views.listings import async_task_lines, async_tasks_html, todos_block, todos_html
from deepnb.views.run.approval_pages import page_of
from deepnb.views.run.collapse import fold, hidden_ids
from deepnb.views.run.decided import decision_words
from deepnb.views.run.durations import duration_words, waited_words
from deepnb.views.run.given import given_html, given_lines
from deepnb.views.run.items import item_block, plural
from deepnb.views.run.output_table import OutputRows, output_html, output_lines
from deepnb.views.run.questions import question_block
from deepnb.views.run.steps import steps_words
from deepnb.views.run.subagent_tree import state_tree, tree_html, tree_text
from deepnb.views.run.timeline_view import FINAL, fork_command, step_links, timeline_html, timeline_lines
from deepnb.views.run.tokens import tokens_words
from deepnb.views.styles import inline, snapshot_style


def _status(state: Mapping[str, Any]) -> str:
    """The status as the head line says it: a run that waits only on raw interrupts waits for
    your answer, not your approval."""
    kinds = {p.get("kind", "approval") for p in state["pending"]}
    if state["status"] == "interrupted" and kinds == {"question"}:
        return "waiting for your answer"
    return shown_as(STATUS_LABEL, state["status"], state["status"])


def head_line(state: Mapping[str, Any]) -> str:
    """The run's head line: agent, thread, status, steps, tool calls, time and tokens."""
    p = state["progress"]
    return (
        f"deepnb · agent {state['agent']} · thread {state['thread_id']} · "
        f"{_status(state)} · {steps_words(p)} · "
        f"{plural(p['tool_calls'], 'tool call')} · "
        f"{duration_words(p['elapsed'])}{waited_words(p.get('waited'))} · "
        f"{tokens_words(p)}"
    )


AUTO_DECISIONS_KEPT = 20
"""A snapshot lists every decision a person made, and only the latest automatic ones past this."""


def _folded(state: Mapping[str, Any]) -> dict[str, Any]:
    """The state a snapshot shows: a long transcript folded (see :mod:`deepnb.views.run.collapse`),
    huge items clipped, and a long run of automatic approvals cut to the latest."""
    hidden = hidden_ids(state["items"])
    items = [clip_item(item) for item in state["items"] if item["id"] not in hidden]
    folded = {**state, "items": items, "hidden": hidden}
    decisions = state.get("decisions") or []
    auto = [n for n, d in enumerate(decisions) if d.get("auto")]
    if len(auto) > 5 * AUTO_DECISIONS_KEPT:
        dropped = set(auto[:-AUTO_DECISIONS_KEPT])
        folded["decisions"] = [d for n, d in enumerate(decisions) if n not in dropped]
        folded["decisions_folded"] = len(dropped)
    return folded


def _transcript(state: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The main transcript of a folded state, each run of folded items as one line."""
    known = {node["id"] for node in state.get("tree") or []}
    main = [item for item in state["all_items"] if item.get("agent", "main") not in known]
    clipped = {item["id"]: item for item in state["items"]}
    return [clipped.get(item["id"], item) for item in fold(main, state["hidden"])]


def final_answer_id(items: Sequence[Mapping[str, Any]], status: str) -> str | None:
    """The id of the run's final answer: the main agent's text that ends a finished run's
    transcript (``None`` while it runs, or when it ended otherwise)."""
    if status != "done" or not items or items[-1]["kind"] != "text":
        return None
    return str(items[-1]["id"]) if items[-1].get("agent", "main") == "main" else None


def _transcript_blocks(state: Mapping[str, Any], timeline: Sequence[Mapping[str, Any]] = ()) -> list[Block]:
    """The main transcript, described once: the final answer set apart from the tool cards
    before it under its label, and each step of the main agent saying its number (its HTML's
    title, the command that forks the thread there, is listed in full under the timeline)."""
    items = _transcript(state)
    final = final_answer_id(items, state["status"])
    links = step_links(timeline)
    found: list[Block] = []
    for item in items:
        if item["id"] == final:
            label = Line.of(Em("Answer", "span", "dnb-final-label"), tag="")
            body = (item_block(item), *_step_link(state, links.get(FINAL)))
            attrs = {"aria-label": "Final answer"}
            found.append(Group(body, cls="dnb-final-answer", head=label, attrs=attrs, indent=0))
        else:
            found.append(Group((item_block(item), *_step_link(state, links.get(str(item["id"])))), tag=""))
    return found


def _step_link(state: Mapping[str, Any], step: int | None) -> tuple[Group, ...]:
    """The step an item ended, as a muted line under it (as text, one step in)."""
    if step is None:
        return ()
    chip = Line.of(
        f"step {step}", css="dnb-muted dnb-step-link", title=fork_command(state["thread_id"], step)
    )
    return (Group((chip,), tag="", indent=1),)


def snapshot_html(state: Mapping[str, Any], timeline: Sequence[Mapping[str, Any]] = ()) -> str:
    """A self-contained HTML rendering of a run's state (``RunState.to_json()``) and its
    ``timeline`` (``run.timeline``, if given)."""
    state = {**_folded(state), "all_items": state["items"]}
    parts = [
        f'<div class="deepnb-snapshot" data-status="{escape(state["status"])}">',
        f'<div class="dnb-head">{escape(head_line(state))}</div>',
        given_html(state.get("given") or {}),
        todos_html(state["todos"], state["progress"].get("todo_progress", ""), run_status=state["status"]),
        tree_html(state_tree(state), state["items"]) if state.get("tree") else "",
        *[blocks.html(block) for block in _transcript_blocks(state, timeline)],
        output_html(state.get("output") or ()),  # the run's structured output, if it has one
        async_tasks_html(state.get("async_tasks") or []),  # absent from views saved before it existed
        timeline_html(timeline, thread=state["thread_id"], waited=state["progress"].get("waited") or 0.0),
    ]
    parts += [blocks.html(block) for block in _closing_blocks(state)]
    parts.append("</div>")
    return snapshot_style() + "\n" + inline("\n".join(p for p in parts if p))


def _closing_blocks(state: Mapping[str, Any]) -> list[Block]:
    """What a snapshot ends with, described once for its HTML and its text: the files the run
    changed and those it was refused, the requests still waiting (approvals and questions, the
    first page of them) and the decisions made."""
    found: list[Block] = []
    if state["files_changed"]:
        found.append(Line.of(f"Files changed: {', '.join(state['files_changed'])}", css="dnb-muted"))
    if state.get("files_not_written"):  # absent from views saved before it existed
        struck: list[Inline] = []
        for path in state["files_not_written"]:
            struck += [", "] * bool(struck) + [Em(path, "s")]
        found.append(Line.of("Not written: ", *struck, css="dnb-muted dnb-files-not-written"))
    listed, more = _pending_listed(state)
    for request in listed:
        if request.get("kind") == "question":
            found.append(question_block(request))
        for action in request["actions"]:
            lead, decided = _pending_words(action)
            call = Line.of(lead, Em(action["name"]), f"({action['args']}){_where(request['agent'])}{decided}")
            said = (Line.of(Em(action["description"], "i")),) if action.get("description") else ()
            found.append(Group(said, cls="dnb-pending", head=call))  # a description the config gave
    if more:
        found.append(Line.of(more, css="dnb-pending"))
    if state.get("decisions"):
        rows: list[Block] = [Line.of(_folded_decisions(state))] if state.get("decisions_folded") else []
        for decision in state["decisions"]:
            line = Line.of(_decision_line(decision))
            diff = decision.get("diff") or ""
            rows.append(Group((_diff_block(diff),), head=line) if diff else line)
        found.append(Group((List(tuple(rows)),), cls="dnb-decisions", head=Line.of(Em("Decisions"))))
    return found


def _pending_listed(state: Mapping[str, Any]) -> tuple[list[dict[str, Any]], str]:
    """The approval cards a snapshot draws (the first page of them), and a line for the rest."""
    listed, info = page_of(state["pending"], 0)
    left = info["cards"] - info["last"]
    more = f"… and {left:,} more waiting (%deepagent approvals lists them all)" if left > 0 else ""
    return listed, more


def _diff_block(diff: str) -> Pre:
    """An edit's diff from the proposed arguments to the approved ones, a line each."""
    return Pre("", cls="dnb-diff", spans=tuple((_diff_class(line), line) for line in diff.splitlines()))


def _diff_class(line: str) -> str:
    if line.startswith(("+++", "---")):
        return "dnb-muted"
    return {"+": "dnb-add", "-": "dnb-del", "@": "dnb-hunk"}.get(line[:1], "")


def _where(agent: str) -> str:
    return "" if agent == "main" else f" — in subagent {agent.rsplit('/', 1)[-1]}"


def _decision_line(decision: Mapping[str, Any]) -> str:
    """``"12:01:02 write_file: ✗ rejected by you: too risky"`` (the live card's words)."""
    return f"{decision['at']} {decision['tool']}: {decision_words(decision)}"


def _pending_words(action: Mapping[str, Any]) -> tuple[str, str]:
    """What comes before and after a pending action's call: ``"Waiting for approval: "``, or,
    once decided while its request waits for its other actions, the decision as its live card
    says it (``" — ✗ rejected by you: too risky"``)."""
    decision = action.get("decision")
    return ("", f" — {decision_words(decision)}") if decision else ("Waiting for approval: ", "")


def snapshot_text(state: Mapping[str, Any], timeline: Sequence[Mapping[str, Any]] = ()) -> str:
    """A plain-text rendering of a run's state (and its ``timeline``, if given)."""
    state = {**_folded(state), "all_items": state["items"]}
    lines = [head_line(state), *given_lines(state.get("given") or {})]
    progress = state["progress"].get("todo_progress", "")
    todos = todos_block(state["todos"], progress, run_status=state["status"])
    lines += blocks.text(todos) if todos is not None else []
    if state.get("tree"):
        lines.append(tree_text(state_tree(state), state["items"]))
    lines += blocks.text(_transcript_blocks(state, timeline))
    lines += output_lines(state.get("output") or ())
    lines += async_task_lines(state.get("async_tasks") or [])
    lines += timeline_lines(
        timeline, thread=state["thread_id"], waited=state["progress"].get("waited") or 0.0
    )
    lines += blocks.text(_closing_blocks(state))
    return "\n".join(lines)


def _folded_decisions(state: Mapping[str, Any]) -> str:
    return f"… {state['decisions_folded']:,} earlier automatic approvals (run.decisions lists them all)"


def snapshot_bundle(
    state: RunState | Mapping[str, Any],
    timeline: Sequence[Mapping[str, Any]] = (),
    *,
    output: OutputRows = (),
) -> dict[str, str]:
    """``text/html`` and ``text/plain`` of a run's state (and its ``timeline``), secrets redacted
    (the agent's name and the thread id come from the notebook, not from events) and bidi
    controls made visible; ``output``, the rows of its structured output
    (:func:`deepnb.core.graphs.structured.output_rows`), as a table."""
    data = state.to_json() if isinstance(state, RunState) else state
    if output:
        data = {**data, "output": [list(row) for row in output]}
    return {
        "text/html": shown_text(snapshot_html(data, timeline)),
        "text/plain": shown_text(snapshot_text(data, timeline)),
    }
