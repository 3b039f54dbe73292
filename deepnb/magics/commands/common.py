"""What the ``%deepagent`` subcommands answer with, beside the views: a line of text."""

from __future__ import annotations

from dataclasses import dataclass

from deepnb.core.text.safe_display import safe_display


@safe_display
@dataclass(frozen=True)
class Message:
    """A one-line result that shows as itself."""

    text: str

    def __repr__(self) -> str:
        return self.text
