"""An experiment's resilience: ``retries=`` (a run that fails with an error that may pass is run
again, after an exponential backoff) and ``fail_on_error=`` (past so many failed runs the
experiment stops), as Inspect's options of the same names.

What may pass is told from what was raised, through its whole chain (``raise ... from``): the
HTTP status a provider answered (408, 409, 425, 429, 5xx, Anthropic's 529), httpx's timeouts and
network errors, and the error classes of the provider packages already loaded (``openai``,
``anthropic``: a class of a package never imported cannot have been raised, so none is imported
here); Python's own ``TimeoutError`` and ``ConnectionError``. A bug (a tool's ``KeyError``, a 400
or 401 from the provider) is never retried.
"""

from __future__ import annotations

import asyncio
import math
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.core.failures import exception_chain

TRANSIENT_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
"""HTTP statuses that say "try again later" (529: Anthropic's overloaded)."""
_TRANSIENT_CLASSES = {
    "httpx": ("TimeoutException", "NetworkError", "RemoteProtocolError"),
    "openai": ("RateLimitError", "APITimeoutError", "APIConnectionError", "InternalServerError"),
    "anthropic": (
        "RateLimitError",
        "APITimeoutError",
        "APIConnectionError",
        "InternalServerError",
        "OverloadedError",
    ),
}
"""Per package (looked up only once it is loaded): its error classes that may pass."""

Sleep = Callable[[float], Awaitable[Any]]


def transient(exc: BaseException | None) -> bool:
    """Whether ``exc`` (or what it was raised from) is a provider or network error that may pass."""
    if exc is None:
        return False
    for link in exception_chain(exc):
        status = _status(link)
        if status is not None:
            return status in TRANSIENT_STATUS
        if isinstance(link, (TimeoutError, ConnectionError, *_loaded_classes())):
            return True
    return False


def _status(exc: BaseException) -> int | None:
    """The HTTP status a provider's error carries (its own, or its response's)."""
    response = getattr(exc, "response", None)
    for value in (getattr(exc, "status_code", None), getattr(response, "status_code", None)):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def _loaded_classes() -> tuple[type[BaseException], ...]:
    found: list[type[BaseException]] = []
    for package, names in _TRANSIENT_CLASSES.items():
        module = sys.modules.get(package)
        for name in names if module is not None else ():
            klass = getattr(module, name, None)
            if isinstance(klass, type) and issubclass(klass, BaseException):
                found.append(klass)
    return tuple(found)


@dataclass(frozen=True)
class Retries:
    """How a run failing with an error that may pass is run again: at most ``times`` more
    times, the n-th after ``first * factor ** (n - 1)`` seconds (at most ``cap``), waited with
    ``sleep`` (``asyncio.sleep``; a test gives one that returns at once)."""

    times: int
    first: float = 1.0
    factor: float = 2.0
    cap: float = 60.0
    sleep: Sleep = asyncio.sleep

    def delay(self, attempts: int, exc: BaseException | None) -> float | None:
        """Seconds to wait before running again a run that failed with ``exc`` on its
        ``attempts``-th attempt; ``None``: not again (no attempts left, or not an error that may
        pass)."""
        if attempts > self.times or not transient(exc):
            return None
        return min(self.cap, self.first * self.factor ** (attempts - 1))


def retries_of(value: Any) -> Retries | None:
    """``retries=`` as a policy: a whole number of retries (0: none) or a :class:`Retries`."""
    if value is None or isinstance(value, Retries):
        return value if value is None or value.times > 0 else None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise DeepnbError(
            f"retries= is how many times a run failing with a passing error (a rate limit, a timeout, "
            f"a 5xx) is run again: a whole number of at least 0, not {value!r}."
        )
    return Retries(value) if value else None


@dataclass(frozen=True)
class ErrorLimit:
    """``fail_on_error=``: ``True`` (the first failed run), a count (``errors >= count``) or a
    fraction of the runs (``errors >= fraction * runs``), as Inspect's."""

    given: bool | int | float

    def passed(self, errors: int, runs: int) -> bool:
        """Whether ``errors`` failed runs out of ``runs`` reach the limit."""
        if self.given is True:
            return errors > 0
        if isinstance(self.given, float) and self.given < 1:
            return errors >= math.ceil(self.given * runs - 1e-9) and errors > 0
        return errors >= self.given

    def line(self, errors: int, runs: int, last: str | None, log: str) -> str:
        """What the experiment says when it stops."""
        cause = f" (the last: {_first_line(last)})" if last else ""
        return (
            f"The experiment stopped: {errors} of {runs} runs failed, reaching fail_on_error="
            f"{self.given!r}{cause}. What ended is in the log {log}; run it again with the same "
            "log= to run the rest."
        )


def error_limit(value: Any) -> ErrorLimit | None:
    """``fail_on_error=`` checked: ``None`` / ``False`` (never stop), ``True``, a whole number
    of at least 1, or a fraction between 0 and 1."""
    if value is None or value is False:
        return None
    if value is True:
        return ErrorLimit(True)
    if isinstance(value, int) and value >= 1:
        return ErrorLimit(value)
    if isinstance(value, float) and 0 < value < 1:
        return ErrorLimit(value)
    if isinstance(value, float) and value >= 1 and value.is_integer():
        return ErrorLimit(int(value))
    raise DeepnbError(
        f"fail_on_error= is True (stop at the first failed run), a count of failed runs (e.g. 5) or a "
        f"fraction of the runs (e.g. 0.1), not {value!r}."
    )


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= 160 else line[:159] + "…"
