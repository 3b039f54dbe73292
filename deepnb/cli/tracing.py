"""What ``deepnb eval`` does about tracing. As a notebook does, it follows the project's
``[trace]`` table (once the project is trusted); ``--trace URL`` sends this command's spans to
that OTLP endpoint instead, and ``--no-trace`` sends none. At the end the spans that wait are
sent (within the settings' bounds) and one line on stderr says where they went and what was
lost: a collector that is down costs the command its traces, never its exit code."""

from __future__ import annotations

from deepnb.core.errors import DeepnbError
from deepnb.engine.tracing import settings, switch

SOURCE = "deepnb eval --trace"
FLUSH_SECONDS = 10.0
"""How long the command waits at its end for the spans still waiting to be sent."""


def choose(endpoint: str | None, project: str | None, off: bool) -> None:
    """Turn tracing on or off for this command as its options say (nothing: as the project
    says). A mistake in them is one :class:`DeepnbError`, before any run."""
    if off and (endpoint or project):
        raise DeepnbError("--no-trace sends no spans: leave out --trace and --trace-project.")
    if project is not None and endpoint is None:
        raise DeepnbError("--trace-project names the project of --trace URL: give --trace too.")
    if off:
        switch.turn_off()
    elif endpoint is not None:
        switch.turn_on(settings.settings(endpoint, project=project, source=SOURCE))


def said(timeout: float = FLUSH_SECONDS) -> str | None:
    """The spans sent (waiting at most ``timeout`` seconds for those still waiting), as one line;
    why tracing is off where the project's table waits for something; else ``None``."""
    status = switch.status()
    if not status.on:
        return f"traces: off. {status.note}" if status.note else None
    status = status.flush(timeout)
    line = f"traces: {status.exported} spans sent to {status.endpoint}, project {status.project!r}"
    lost = status.dropped + status.failed + status.waiting
    if lost:
        line += f"; {lost} not sent"
        if status.last_error:
            line += f" (last error: {status.last_error})"
    return line + "."
