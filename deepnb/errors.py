"""The errors deepnb shows to users: one line that says what to do."""

from __future__ import annotations


class DeepnbError(Exception):
    """A mistake in how deepnb was asked to do something; the message says how to fix it."""
