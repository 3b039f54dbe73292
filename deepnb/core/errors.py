"""The errors deepnb shows to users: one line that says what to do."""

from __future__ import annotations

from deepnb.core.text.safe_display import safe_display


@safe_display
class DeepnbError(Exception):
    """A mistake in how deepnb was asked to do something; the message says how to fix it. Shown,
    the message has secrets redacted and bidi controls escaped (it often quotes what it got)."""

    def __str__(self) -> str:
        return super().__str__()
