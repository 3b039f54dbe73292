"""Static snapshots of a run: HTML and plain text for places where widgets don't run
(GitHub, nbviewer, nbconvert, a saved notebook opened without a kernel).

Every piece of agent text is escaped here; the only HTML taken as is comes from
:func:`deepnb.render.markdown`, which escapes raw HTML itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deepnb.render import code_css, escape
from deepnb.state import RunState

STATUS_LABEL = {
    "running": "running",
    "interrupted": "waiting for your approval",
    "done": "done",
    "error": "failed",
    "cancelled": "stopped",
}
TODO_MARK = {"completed": "✓", "in_progress": "◐", "pending": "○"}
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
"""


def _head(state: Mapping[str, Any]) -> str:
    p = state["progress"]
    return (
        f"deepnb · agent {state['agent']} · thread {state['thread_id']} · "
        f"{STATUS_LABEL.get(state['status'], state['status'])} · {p['steps']} steps · "
        f"{p['tool_calls']} tool calls · {p['elapsed']:.1f} s · "
        f"tokens {p['tokens_in']:,} in / {p['tokens_out']:,} out"
    )


def _agent_label(item: Mapping[str, Any]) -> str:
    agent = item.get("agent") or "main"
    return "" if agent == "main" else f"[{agent.rsplit('/', 1)[-1]}] "


def _item_html(item: Mapping[str, Any]) -> str:
    kind = item["kind"]
    label = escape(_agent_label(item))
    if kind == "prompt":
        return f'<div class="dnb-prompt">› {escape(item["text"])}</div>'
    if kind == "text":
        body = item.get("html") or f"<p>{escape(item['text'])}</p>"
        return f'<div class="dnb-text">{label and f"<span class=dnb-muted>{label}</span>"}{body}</div>'
    if kind == "tool":
        result = f' <span class="dnb-muted">→ {escape(item["result"])}</span>' if item.get("result") else ""
        return (
            f'<div class="dnb-tool" data-status="{escape(item["status"])}">{label}'
            f"<b>{escape(item['name'])}</b>({escape(item['args'])}) "
            f'<span class="dnb-muted">[{escape(item["status"])}]</span>{result}</div>'
        )
    if kind == "error":
        return f'<div class="dnb-error">Error: {escape(item["text"])}</div>'
    return f'<div class="dnb-muted">{escape(item["text"])}</div>'


def todos_html(todos: list[Mapping[str, str]], progress: str = "") -> str:
    """The todo list as a static HTML list."""
    if not todos:
        return ""
    rows = "".join(
        f'<li data-status="{escape(t["status"])}">{TODO_MARK.get(t["status"], "○")} '
        + (f"<s>{escape(t['content'])}</s>" if t["status"] == "completed" else escape(t["content"]))
        + "</li>"
        for t in todos
    )
    heading = f"<div><b>Todos</b> <span class=dnb-muted>{escape(progress)}</span></div>"
    return f'{heading}<ul class="dnb-todos">{rows}</ul>'


def snapshot_html(state: Mapping[str, Any]) -> str:
    """A self-contained HTML rendering of a run's state (``RunState.to_json()``)."""
    parts = [
        f"<style>{_CSS}{code_css('.deepnb-snapshot')}</style>",
        f'<div class="deepnb-snapshot" data-status="{escape(state["status"])}">',
        f'<div class="dnb-head">{escape(_head(state))}</div>',
        todos_html(state["todos"], state["progress"].get("todo_progress", "")),
        *(_item_html(item) for item in state["items"]),
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
    lines = [_head(state)]
    if state["todos"]:
        lines.append(f"Todos ({state['progress'].get('todo_progress', '')}):")
        lines += [f"  {TODO_MARK.get(t['status'], '○')} {t['content']}" for t in state["todos"]]
    for item in state["items"]:
        label = _agent_label(item)
        if item["kind"] == "prompt":
            lines.append(f"› {item['text']}")
        elif item["kind"] == "text":
            lines.append(label + item["text"])
        elif item["kind"] == "tool":
            result = f" → {item['result']}" if item.get("result") else ""
            lines.append(f"  {label}{item['name']}({item['args']}) [{item['status']}]{result}")
        elif item["kind"] == "error":
            lines.append(f"Error: {item['text']}")
        else:
            lines.append(item["text"])
    if state["files_changed"]:
        lines.append("Files changed: " + ", ".join(state["files_changed"]))
    for request in state["pending"]:
        for action in request["actions"]:
            lines.append(
                f"Waiting for approval: {action['name']}({action['args']}){_where(request['agent'])}"
            )
    if state.get("decisions"):
        lines.append("Decisions:")
        lines += [f"  {_decision_line(d)}" for d in state["decisions"]]
    return "\n".join(lines)


def snapshot_bundle(state: RunState | Mapping[str, Any]) -> dict[str, str]:
    """``text/html`` and ``text/plain`` of a run's state."""
    data = state.to_json() if isinstance(state, RunState) else state
    return {"text/html": snapshot_html(data), "text/plain": snapshot_text(data)}
