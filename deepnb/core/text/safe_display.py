"""What deepnb's objects show is safe to show: secrets redacted, bidi controls made visible.

:func:`safe_display` wraps a class's own ``__repr__``, ``__str__`` and ``_repr_*_`` methods, so
``repr(run)``, ``repr(run.pending)``, every ``%deepagent`` output and every rich display goes
through one function, :func:`shown`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from deepnb.core.text.bidi import BIDI_CONTROLS, reveal_controls
from deepnb.core.text.secrets import map_strings, redact, redact_pattern

DISPLAY_METHODS = (
    "__repr__",
    "__str__",
    "_repr_html_",
    "_repr_markdown_",
    "_repr_latex_",
    "_repr_json_",
    "_repr_mimebundle_",
)
"""What ``repr``/``str`` and IPython call to show an object."""
MARK = "__deepnb_safe_display__"

T = TypeVar("T", bound=type)


def shown_text(text: str) -> str:
    """One string as deepnb shows it: secrets redacted, bidi controls escaped."""
    return reveal_controls(redact(text))


_VISIBLE_IN_PATTERN = {ord(char): f"\\\\u{ord(char):04x}" for char in BIDI_CONTROLS}


def shown_pattern(pattern: str) -> str:
    """A regular expression as deepnb shows it (a replay script's ``match``): its secrets
    redacted and each bidi control made the expression of its visible escape, so it matches
    what :func:`shown_text` makes of the text it matched."""
    return redact_pattern(pattern).translate(_VISIBLE_IN_PATTERN)


def shown(value: Any) -> Any:
    """:func:`shown_text` applied to every string in ``value`` (a string, a mime bundle…)."""
    return map_strings(value, shown_text)


def _wrapped(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def display(self: Any, *args: Any, **kwargs: Any) -> Any:
        return shown(method(self, *args, **kwargs))

    setattr(display, MARK, True)
    return display


def safe_display(cls: T) -> T:
    """Class decorator: the class's own display methods return what they did, made safe by
    :func:`shown` (put it above ``@dataclass``, whose ``__repr__`` it then wraps too)."""
    for name in DISPLAY_METHODS:
        method = cls.__dict__.get(name)
        if callable(method) and not getattr(method, MARK, False):
            setattr(cls, name, _wrapped(method))
    return cls
