"""Static snapshots of a run: HTML and plain text for places where widgets don't run
(GitHub, nbviewer, nbconvert, a saved notebook opened without a kernel).

Every piece of agent text is escaped here; the only HTML taken as is comes from
:func:`deepnb.render.markdown`, which escapes raw HTML itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from deepnb.render import code_css, escape
from deepnb.safe_display import shown_text
from deepnb.schema import NODE_STATUS_MARK as TREE_MARK
from deepnb.schema import RUN_STATUS_LABEL as STATUS_LABEL
from deepnb.schema import TODO_STATUS_MARK as TODO_MARK
from deepnb.schema import shown_as
from deepnb.state import RunState
from deepnb.views.bounds import clip_item
from deepnb.views.collapse import fold, hidden_ids

if TYPE_CHECKING:
    from deepnb.tree import SubagentNode

_CSS = """
.deepnb-snapshot{font-family:var(--jp-ui-font-family,system-ui,sans-serif);font-size:13px;
 border:1px solid var(--jp-border-color2,#ddd);border-radius:6px;padding:8px 12px;max-width:960px}
.deepnb-snapshot .dnb-head{color:var(--jp-ui-font-color2,#666);margin-bottom:6px}
.deepnb-snapshot .dnb-prompt{font-weight:600;margin:4px 0}
.deepnb-snapshot .dnb-tool{border-left:3px solid var(--jp-border-color1,#bbb);padding:2px 8px;
 margin:4px 0;font-family:var(--jp-code-font-family,monospace);font-size:12px}
.deepnb-snapshot .dnb-tool[data-status=error]{border-color:var(--jp-error-color1,#d32f2f)}
.deepnb-snapshot .dnb-muted{color:var(--jp-ui-font-color2,#666)}
.deepnb-snapshot .dnb-error{color:var(--jp-error-color1,#d32f2f);font-weight:600}
.deepnb-snapshot ul.dnb-todos{list-style:none;padding-left:4px;margin:4px 0}
.deepnb-snapshot li[data-status=completed]{color:var(--jp-ui-font-color2,#666)}
.deepnb-snapshot .dnb-summary{border-left:3px solid var(--jp-brand-color1,#1976d2);padding:2px 8px;
 margin:4px 0}
.deepnb-tree ul{list-style:none;padding-left:16px;margin:2px 0}
.deepnb-tree>ul{padding-left:4px}
.deepnb-tree summary{cursor:pointer}
.deepnb-tree [data-status=error]>details>summary .dnb-state{color:var(--jp-error-color1,#d32f2f)}
.deepnb-tree .dnb-node-body{padding-left:14px}
"""


def _plural(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _head(state: Mapping[str, Any]) -> str:
    p = state["progress"]
    return (
        f"deepnb · agent {state['agent']} · thread {state['thread_id']} · "
        f"{shown_as(STATUS_LABEL, state['status'], state['status'])} · {_plural(p['steps'], 'step')} · "
        f"{_plural(p['tool_calls'], 'tool call')} · {p['elapsed']:.1f} s · "
        f"tokens {p['tokens_in']:,} in / {p['tokens_out']:,} out"
    )


def _agent_label(item: Mapping[str, Any]) -> str:
    agent = item.get("agent") or "main"
    return "" if agent == "main" else f"[{agent.rsplit('/', 1)[-1]}] "


def _item_html(item: Mapping[str, Any], *, labelled: bool = True) -> str:
    kind = item["kind"]
    label = escape(_agent_label(item)) if labelled else ""
    if kind == "prompt":
        return f'<div class="dnb-prompt">› {escape(item["text"])}</div>'
    if kind == "text":
        body = item.get("html") or f"<p>{escape(item['text'])}</p>"
        return f'<div class="dnb-text">{label and f"<span class=dnb-muted>{label}</span>"}{body}</div>'
    if kind == "tool" and item.get("eval"):
        return _eval_html(item, label)
    if kind == "tool":
        result = f' <span class="dnb-muted">→ {escape(item["result"])}</span>' if item.get("result") else ""
        return (
            f'<div class="dnb-tool" data-status="{escape(item["status"])}">{label}'
            f"<b>{escape(item['name'])}</b>({escape(item['args'])}) "
            f'<span class="dnb-muted">[{escape(item["status"])}]</span>{result}</div>'
        )
    if kind == "summary":
        return _summary_html(item, labelled=labelled)
    if kind == "error":
        return f'<div class="dnb-error">Error: {escape(item["text"])}</div>'
    return f'<div class="dnb-muted">{escape(item["text"])}</div>'


def _eval_html(item: Mapping[str, Any], label: str) -> str:
    """An interpreter ``eval`` card: the code, what it printed, and its result or error."""
    run = item["eval"]
    parts = [
        f'<div class="dnb-tool dnb-eval" data-status="{escape(item["status"])}">{label}'
        f'<b>eval</b> <span class="dnb-muted">[{escape(item["status"])}]</span>',
        run.get("code_html") or f"<pre>{escape(run.get('code', ''))}</pre>",
    ]
    if run.get("stdout"):
        parts.append(f'<div class="dnb-muted">console</div><pre>{escape(run["stdout"])}</pre>')
    if run.get("error"):
        parts.append(
            f'<div class="dnb-error">{escape(run.get("error_type") or "Error")}: {escape(run["error"])}</div>'
        )
    elif run.get("result"):
        parts.append(f'<div class="dnb-muted">result</div><pre>{escape(run["result"])}</pre>')
    return "".join(parts) + "</div>"


def summary_line(item: Mapping[str, Any]) -> str:
    """``"Context summarized: 12 messages (cutoff 12), tokens 9,120 → 1,304"``."""
    what = f"{item['messages']} messages" if item.get("messages") is not None else "older messages"
    line = f"Context summarized: {what} (cutoff {item['cutoff']})"
    before, after = item.get("tokens_before"), item.get("tokens_after")
    if before is not None or after is not None:
        line += f", tokens {_count(before)} → {_count(after)}"
    return line + (f"; history saved to {item['file_path']}" if item.get("file_path") else "")


def _count(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


def _summary_html(item: Mapping[str, Any], *, labelled: bool = True) -> str:
    body = item.get("summary_html") or f"<p>{escape(item.get('summary', ''))}</p>"
    label = escape(_agent_label(item)) if labelled else ""
    return (
        f'<div class="dnb-summary">{label}<b>{escape(summary_line(item))}</b>'
        f"<details><summary>Summary</summary>{body}</details></div>"
    )


def _node_line(node: SubagentNode) -> str:
    parts = [shown_as(TREE_MARK, node.status, "·"), node.label or node.name, f"[{node.status}]"]
    if node.duration is not None:
        parts.append(f"{node.duration:.1f} s")
    parts.append(_plural(node.tool_calls, "tool call"))
    if node.tokens_in or node.tokens_out:
        parts.append(f"tokens {node.tokens_in:,} in / {node.tokens_out:,} out")
    if node.source == "js":
        parts.append("from JS task()")
    return " ".join(parts[:3]) + (" · " + " · ".join(parts[3:]) if parts[3:] else "")


def _node_html(node: SubagentNode, items: Sequence[Mapping[str, Any]]) -> str:
    own = [_item_html(item, labelled=False) for item in items if item.get("agent") == node.path]
    body = [
        f"<div>{escape(node.description)}</div>" if node.description else "",
        *own,
        f'<div class="dnb-muted">Result: {escape(node.result)}</div>' if node.result else "",
    ]
    children = "".join(
        f'<li data-status="{escape(c.status)}">{_node_html(c, items)}</li>' for c in node.children
    )
    return (
        f'<details><summary><span class="dnb-state">{escape(_node_line(node))}</span></summary>'
        f'<div class="dnb-node-body">{"".join(body)}</div></details>'
        + (f"<ul>{children}</ul>" if children else "")
    )


def tree_html(root: SubagentNode, items: Sequence[Mapping[str, Any]] = ()) -> str:
    """The subagent tree as static HTML: a line per node, its transcript folded under it."""
    if not root.children:
        return f"<p>{escape(root.label or root.name)}: no subagents ran.</p>"
    rows = "".join(
        f'<li data-status="{escape(child.status)}">{_node_html(child, items)}</li>' for child in root.children
    )
    return f'<div class="deepnb-tree"><div><b>Subagents</b> ({len(root)})</div><ul>{rows}</ul></div>'


def tree_text(root: SubagentNode, items: Sequence[Mapping[str, Any]] = ()) -> str:
    """The subagent tree as indented text."""
    if not root.children:
        return f"{root.label or root.name}: no subagents ran."
    lines = [f"Subagents ({len(root)}):"]

    def add(node: SubagentNode, depth: int) -> None:
        pad = "  " * depth
        lines.append(pad + _node_line(node))
        if node.description:
            lines.append(f"{pad}    {node.description}")
        for item in items:
            if item.get("agent") == node.path:
                lines.append(f"{pad}    {_item_line(item, labelled=False)}")
        if node.result:
            lines.append(f"{pad}    → {' '.join(node.result.split())[:160]}")
        for child in node.children:
            add(child, depth + 1)

    for child in root.children:
        add(child, 1)
    return "\n".join(lines)


def _state_tree(state: Mapping[str, Any]) -> SubagentNode:
    from deepnb.tree import build_tree

    return build_tree(state.get("tree") or [], root_name=state["agent"], root_status=state["status"])


AUTO_DECISIONS_KEPT = 20
"""A snapshot lists every decision a person made, and only the latest automatic ones past this."""


def _folded(state: Mapping[str, Any]) -> dict[str, Any]:
    """The state a snapshot shows: a long transcript folded (see :mod:`deepnb.views.collapse`),
    huge items clipped, and a long run of automatic approvals cut to the latest."""
    hidden = hidden_ids(state["items"])
    items = [clip_item(item) for item in state["items"] if item["id"] not in hidden]
    shown = {**state, "items": items, "hidden": hidden}
    decisions = state.get("decisions") or []
    auto = [n for n, d in enumerate(decisions) if d.get("auto")]
    if len(auto) > 5 * AUTO_DECISIONS_KEPT:
        dropped = set(auto[:-AUTO_DECISIONS_KEPT])
        shown["decisions"] = [d for n, d in enumerate(decisions) if n not in dropped]
        shown["decisions_folded"] = len(dropped)
    return shown


def _transcript(state: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The main transcript of a folded state, each run of folded items as one line."""
    known = {node["id"] for node in state.get("tree") or []}
    main = [item for item in state["all_items"] if item.get("agent", "main") not in known]
    clipped = {item["id"]: item for item in state["items"]}
    return [clipped.get(item["id"], item) for item in fold(main, state["hidden"])]


def todos_html(todos: Sequence[Mapping[str, str]], progress: str = "") -> str:
    """The todo list as a static HTML list."""
    if not todos:
        return ""
    rows = "".join(
        f'<li data-status="{escape(t["status"])}">{shown_as(TODO_MARK, t["status"], "○")} '
        + (f"<s>{escape(t['content'])}</s>" if t["status"] == "completed" else escape(t["content"]))
        + "</li>"
        for t in todos
    )
    heading = f"<div><b>Todos</b> <span class=dnb-muted>{escape(progress)}</span></div>"
    return f'{heading}<ul class="dnb-todos">{rows}</ul>'


def snapshot_html(state: Mapping[str, Any]) -> str:
    """A self-contained HTML rendering of a run's state (``RunState.to_json()``)."""
    state = {**_folded(state), "all_items": state["items"]}
    parts = [
        f"<style>{_CSS}{code_css('.deepnb-snapshot')}</style>",
        f'<div class="deepnb-snapshot" data-status="{escape(state["status"])}">',
        f'<div class="dnb-head">{escape(_head(state))}</div>',
        todos_html(state["todos"], state["progress"].get("todo_progress", "")),
        tree_html(_state_tree(state), state["items"]) if state.get("tree") else "",
        *(_item_html(item) for item in _transcript(state)),
    ]
    if state["files_changed"]:
        parts.append(
            f'<div class="dnb-muted">Files changed: {escape(", ".join(state["files_changed"]))}</div>'
        )
    for request in state["pending"]:
        for action in request["actions"]:
            parts.append(
                f'<div class="dnb-pending">Waiting for approval: <b>{escape(action["name"])}</b>'
                f"({escape(action['args'])}){escape(_where(request['agent']))}</div>"
            )
    if state.get("decisions"):
        rows = "".join(f"<li>{escape(_decision_line(d))}</li>" for d in state["decisions"])
        if state.get("decisions_folded"):
            rows = f"<li>{escape(_folded_decisions(state))}</li>" + rows
        parts.append(f'<div class="dnb-decisions"><b>Decisions</b><ul>{rows}</ul></div>')
    parts.append("</div>")
    return "\n".join(p for p in parts if p)


def _where(agent: str) -> str:
    return "" if agent == "main" else f" — in subagent {agent.rsplit('/', 1)[-1]}"


def _decision_line(decision: Mapping[str, Any]) -> str:
    """``"12:01:02 write_file: edit (content='…') — auto"``."""
    detail = decision.get("message") or decision.get("args") or ""
    line = f"{decision['at']} {decision['tool']}: {decision['type']}"
    return line + (f" ({detail})" if detail else "") + (" — auto" if decision.get("auto") else "")


def snapshot_text(state: Mapping[str, Any]) -> str:
    """A plain-text rendering of a run's state."""
    state = {**_folded(state), "all_items": state["items"]}
    lines = [_head(state)]
    if state["todos"]:
        lines.append(f"Todos ({state['progress'].get('todo_progress', '')}):")
        lines += [f"  {shown_as(TODO_MARK, t['status'], '○')} {t['content']}" for t in state["todos"]]
    if state.get("tree"):
        lines.append(tree_text(_state_tree(state), state["items"]))
    lines += [_item_line(item) for item in _transcript(state)]
    if state["files_changed"]:
        lines.append("Files changed: " + ", ".join(state["files_changed"]))
    for request in state["pending"]:
        for action in request["actions"]:
            lines.append(
                f"Waiting for approval: {action['name']}({action['args']}){_where(request['agent'])}"
            )
    if state.get("decisions"):
        lines.append("Decisions:")
        if state.get("decisions_folded"):
            lines.append(f"  {_folded_decisions(state)}")
        lines += [f"  {_decision_line(d)}" for d in state["decisions"]]
    return "\n".join(lines)


def _folded_decisions(state: Mapping[str, Any]) -> str:
    return f"… {state['decisions_folded']:,} earlier automatic approvals (run.decisions lists them all)"


def _item_line(item: Mapping[str, Any], *, labelled: bool = True) -> str:
    label = _agent_label(item) if labelled else ""
    if item["kind"] == "prompt":
        return f"› {item['text']}"
    if item["kind"] == "text":
        return f"{label}{item['text']}"
    if item["kind"] == "tool" and item.get("eval"):
        run = item["eval"]
        lines = [f"  {label}eval [{item['status']}]"] + [
            f"    | {line}" for line in run.get("code", "").splitlines()
        ]
        if run.get("stdout"):
            lines += [f"    > {line}" for line in run["stdout"].splitlines()]
        if run.get("error"):
            lines.append(f"    ! {run.get('error_type') or 'Error'}: {run['error'].splitlines()[0]}")
        elif run.get("result"):
            lines.append(f"    = {run['result']}")
        return "\n".join(lines)
    if item["kind"] == "tool":
        result = f" → {item['result']}" if item.get("result") else ""
        return f"  {label}{item['name']}({item['args']}) [{item['status']}]{result}"
    if item["kind"] == "summary":
        return label + summary_line(item)
    if item["kind"] == "error":
        return f"Error: {item['text']}"
    return str(item["text"])


def files_html(entries: Sequence[Any], total: int, *, title: str) -> str:
    """A bounded file listing as static HTML: the first entries and how many more there are."""
    rows = "".join(
        f"<tr><td>{escape(e.path)}</td><td>{escape(_size(e.size))}</td>"
        f"<td>{escape(e.modified_at or '')}</td></tr>"
        for e in entries
    )
    more = (
        f'<div class="dnb-muted">… and {total - len(entries):,} more: use .ls(path), .glob(pattern) '
        "or .grep(text)</div>"
        if total > len(entries)
        else ""
    )
    return (
        f'<div class="deepnb-snapshot"><div><b>{escape(title)}</b> · {total:,} files</div>'
        f'<table class="deepnb-table"><thead><tr><th>Path</th><th>Size</th><th>Modified</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>{more}</div>"
    )


def _size(size: int | None) -> str:
    if size is None:
        return ""
    if size < 1024:
        return f"{size} B"
    return f"{size / 1024:.1f} kB" if size < 1024 * 1024 else f"{size / 1024 / 1024:.1f} MB"


def snapshot_bundle(state: RunState | Mapping[str, Any]) -> dict[str, str]:
    """``text/html`` and ``text/plain`` of a run's state, secrets redacted (the agent's name and
    the thread id come from the notebook, not from events) and bidi controls shown."""
    data = state.to_json() if isinstance(state, RunState) else state
    return {"text/html": shown_text(snapshot_html(data)), "text/plain": shown_text(snapshot_text(data))}
