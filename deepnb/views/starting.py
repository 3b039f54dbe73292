"""What a ``%%deepagent`` cell shows the moment it runs: its task and "starting…", in the output
its live view then takes over. The first cell of a kernel loads the agent stack (seconds); this
needs only IPython and deepnb's redaction, so the cell answers at once either way."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from IPython.display import DisplayHandle, display

from deepnb.core.text.secrets import redact

FIRST_LINE_CHARS = 120
"""Characters of the task's first line the placeholder shows."""
STYLE = (
    "font-family: var(--jp-ui-font-family, sans-serif); font-size: var(--jp-ui-font-size1, 13px); "
    "color: var(--jp-ui-font-color2, #616161); padding: 6px 2px"
)


def _first_line(task: str) -> str:
    line = next((line.strip() for line in task.splitlines() if line.strip()), "")
    line = redact(line)
    return line if len(line) <= FIRST_LINE_CHARS else line[: FIRST_LINE_CHARS - 1] + "…"


class Starting:
    """The placeholder output of a cell whose view is on its way; :meth:`replace` puts the view
    in its place, :meth:`withdraw` empties it when nothing started."""

    def __init__(self, task: str) -> None:
        line = _first_line(task)
        bundle = {
            "text/plain": f"{line} — starting…" if line else "starting…",
            "text/html": (
                f'<div class="dnb-starting" style="{STYLE}"><b>{html.escape(line)}</b> — starting…</div>'
                if line
                else f'<div class="dnb-starting" style="{STYLE}">starting…</div>'
            ),
        }
        handle = display(bundle, raw=True, display_id=True)
        assert isinstance(handle, DisplayHandle)  # display_id=True always gives one
        self.handle = handle

    def replace(self, bundle: Mapping[str, Any]) -> DisplayHandle:
        """Show ``bundle`` (the live view) in the placeholder's output; its handle updates it later."""
        self.handle.update(dict(bundle), raw=True)
        return self.handle

    def withdraw(self) -> None:
        """Leave the output empty (the cell's error says why nothing started)."""
        self.handle.update({"text/plain": ""}, raw=True)


def place(bundle: Mapping[str, Any], into: Starting | None) -> DisplayHandle:
    """Display ``bundle`` in ``into``'s output, or in a new one; the handle updates it later."""
    if into is not None:
        return into.replace(bundle)
    handle = display(dict(bundle), raw=True, display_id=True)
    assert isinstance(handle, DisplayHandle)
    return handle


__all__ = ["Starting", "place"]
