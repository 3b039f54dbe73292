"""An agent's anatomy (``%deepagent inspect``, ``workbench.inspect()``) as text and static HTML,
written side by side; every value is escaped (tool descriptions and names come from the agent)."""

from __future__ import annotations

from collections.abc import Sequence

from deepnb.core.text.markup import escape
from deepnb.engine.anatomy import AgentPart, Anatomy


def _pairs_text(pairs: Sequence[tuple[str, str]], indent: str = "  ") -> list[str]:
    return [f"{indent}{key}: {value}" for key, value in pairs]


def _part_text(part: AgentPart) -> list[str]:
    title = f"{part.role} {part.name}" + (f" · {part.model}" if part.model else "")
    lines = [title]
    if part.middleware:
        lines.append("  middleware, outermost first:")
        lines += [f"    {i}. {m.name} — {m.why}" for i, m in enumerate(part.middleware, start=1)]
    if part.excluded:
        lines.append(f"  excluded by the harness profile: {', '.join(part.excluded)}")
    if part.tools:
        lines.append(f"  tools the model sees ({len(part.tools)}):")
        lines += [f"    {name}" + (f" — {summary}" if summary else "") for name, summary in part.tools]
    lines += [f"  not offered: {name} ({why})" for name, why in part.hidden]
    if part.interrupts:
        lines.append("  asks for approval before:")
        lines += [f"    {tool}: {allowed}" for tool, allowed in part.interrupts]
    lines += [f"  note: {note}" for note in part.notes]
    return lines


def anatomy_text(anatomy: Anatomy) -> str:
    """The anatomy as plain text."""
    lines = [f"Agent {anatomy.name} ({anatomy.source})"]
    for title, pairs in (
        ("Model", anatomy.model),
        ("Model profile", anatomy.model_profile),
        ("Harness profile", anatomy.harness),
        ("Backend", anatomy.backend),
    ):
        if pairs:
            lines += [f"{title}:", *_pairs_text(pairs)]
    for part in anatomy.agents:
        lines += ["", *_part_text(part)]
    lines += [f"Note: {note}" for note in anatomy.notes]
    return "\n".join(lines)


def _pairs_html(title: str, pairs: Sequence[tuple[str, str]]) -> str:
    if not pairs:
        return ""
    rows = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in pairs)
    return f'<div><b>{escape(title)}</b><table class="deepnb-table"><tbody>{rows}</tbody></table></div>'


def _part_html(part: AgentPart) -> str:
    model = f' · <span class="dnb-muted">{escape(part.model)}</span>' if part.model else ""
    body = []
    if part.middleware:
        items = "".join(f"<li><code>{escape(m.name)}</code> — {escape(m.why)}</li>" for m in part.middleware)
        body.append(f"<div>Middleware, outermost first:</div><ol>{items}</ol>")
    if part.excluded:
        body.append(f"<div>Excluded by the harness profile: {escape(', '.join(part.excluded))}</div>")
    if part.tools:
        rows = "".join(
            f"<tr><td><code>{escape(name)}</code></td><td>{escape(summary)}</td></tr>"
            for name, summary in part.tools
        )
        body.append(
            f"<div>Tools the model sees ({len(part.tools)}):</div>"
            f'<table class="deepnb-table"><tbody>{rows}</tbody></table>'
        )
    body += [f'<div class="dnb-muted">Not offered: {escape(n)} ({escape(w)})</div>' for n, w in part.hidden]
    if part.interrupts:
        items = "".join(f"<li><code>{escape(t)}</code>: {escape(a)}</li>" for t, a in part.interrupts)
        body.append(f"<div>Asks for approval before:</div><ul>{items}</ul>")
    body += [f'<div class="dnb-muted">Note: {escape(note)}</div>' for note in part.notes]
    return (
        f"<details open><summary><b>{escape(part.role)} {escape(part.name)}</b>{model}</summary>"
        f'<div class="dnb-node-body">{"".join(body)}</div></details>'
    )


def anatomy_html(anatomy: Anatomy) -> str:
    """The anatomy as static HTML: the agent's settings as tables, each agent collapsible."""
    sections = [
        _pairs_html("Model", anatomy.model),
        _pairs_html("Model profile", anatomy.model_profile),
        _pairs_html("Harness profile", anatomy.harness),
        _pairs_html("Backend", anatomy.backend),
        *(_part_html(part) for part in anatomy.agents),
        *(f'<div class="dnb-muted">Note: {escape(note)}</div>' for note in anatomy.notes),
    ]
    return (
        f'<div class="deepnb-snapshot deepnb-tree"><div class="dnb-head">Agent <b>{escape(anatomy.name)}</b> '
        f"({escape(anatomy.source)})</div>{''.join(sections)}</div>"
    )
