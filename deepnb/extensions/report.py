"""``%deepagent extensions``: what is registered and from where, what failed, what is not
trusted, and which agents need ``%deepagent reload``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from deepnb.extensions.registry import REGISTRY
from deepnb.safe_display import safe_display

KIND_LABELS = {"tool": "tool", "middleware": "middleware", "route": "route", "shutdown": "on_shutdown"}


@safe_display
@dataclass(frozen=True)
class Listing:
    """The extensions' state; each field holds plain data, and it shows as text or HTML."""

    registrations: tuple[tuple[str, str, str, str], ...]
    """(kind, name, extension, source) in load order."""
    failures: tuple[tuple[str, str], ...]
    """(extension path or entry point, error)."""
    untrusted: tuple[Path, ...]
    notes: tuple[str, ...]
    """Names ignored because another extension took them, and routes an agent left out."""
    reload_needed: tuple[str, ...]
    """Agents built before middleware or routes changed: ``%deepagent reload`` rebuilds them."""

    @classmethod
    def collect(cls) -> Listing:
        from deepnb import workbench as wb

        with REGISTRY.lock:
            registrations = tuple(
                (KIND_LABELS[r.kind], r.name, r.source.label, f"{r.source.origin}: {r.source.key}")
                for r in REGISTRY.registrations
            )
            failures = tuple((f.source.key, f.error) for f in REGISTRY.failures.values())
            untrusted = tuple(REGISTRY.untrusted)
            notes = [note for _, note in REGISTRY.ignored]
            current = REGISTRY.graph_bound_ids()
        stale = []
        for name, bench in sorted(wb.registered().items()):
            applied = bench.extensions
            if applied is None:
                continue
            notes += [f"agent {name!r}: {line}" for line in applied.skipped]
            if applied.ids != current:
                stale.append(name)
        return cls(registrations, failures, untrusted, tuple(notes), tuple(stale))

    def _summary(self) -> list[str]:
        lines = []
        for folder in self.untrusted:
            lines.append(f"Not trusted: {folder} — not run. Run %deepagent trust to allow it.")
        if self.reload_needed:
            lines.append(
                f"Reload needed for {', '.join(self.reload_needed)}: run %deepagent reload to "
                "give them the new middleware and routes (tools take effect on the next model call)."
            )
        return lines

    def __repr__(self) -> str:
        lines = []
        if self.registrations:
            widths = [max(len(row[i]) for row in self.registrations) for i in range(3)]
            lines.append(f"Extension registrations ({len(self.registrations)}):")
            lines += [
                "  " + "  ".join(c.ljust(w) for c, w in zip(row[:3], widths, strict=True)) + f"  ({row[3]})"
                for row in self.registrations
            ]
        else:
            lines.append("No extension registrations.")
        if self.failures:
            lines.append(f"Failed ({len(self.failures)}, nothing of them registered):")
            lines += [f"  {where}: {error}" for where, error in self.failures]
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines + self._summary())

    def _repr_html_(self) -> str:
        from deepnb.markup import escape

        parts = ['<div class="deepnb-extensions">']
        if self.registrations:
            head = "".join(f"<th>{c}</th>" for c in ("kind", "name", "extension", "source"))
            body = "".join(
                "<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in self.registrations
            )
            parts.append(
                f'<table class="deepnb-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
            )
        else:
            parts.append("<p>No extension registrations.</p>")
        if self.failures:
            items = "".join(
                f"<li><code>{escape(where)}</code>: {escape(error)}</li>" for where, error in self.failures
            )
            parts.append(f"<p>Failed (nothing of them registered):</p><ul>{items}</ul>")
        parts += [f"<p>Note: {escape(note)}</p>" for note in self.notes]
        parts += [f"<p>{escape(line)}</p>" for line in self._summary()]
        return "".join(parts) + "</div>"
