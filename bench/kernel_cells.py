"""What the benchmarks that drive a real kernel share: a cell that must succeed, a value read back
from the kernel, and the busiest second of a stream of messages."""

from __future__ import annotations

import ast
from typing import Any

from tests.support.kernel_session import KernelSession


class BenchFailure(RuntimeError):
    """A cell failed or a run did not end done."""


def cell(session: KernelSession, code: str, timeout: float = 600.0) -> str:
    """Execute ``code``; its text output, or :class:`BenchFailure` if it failed."""
    execution = session.execute(code, timeout=timeout)
    if not execution.ok:
        raise BenchFailure(f"cell failed: {code.strip()[:60]!r}: {execution.text()[-2000:]}")
    return execution.text()


def value(session: KernelSession, expression: str, timeout: float = 600.0) -> Any:
    """``expression`` evaluated in the kernel (a Python literal)."""
    return ast.literal_eval(cell(session, f"print(repr({expression}))", timeout).strip().splitlines()[-1])


def peak_rate(times: list[float]) -> int:
    """The most messages in any 1-second window of ``times`` (sorted)."""
    best, start = 0, 0
    for end, at in enumerate(times):
        while at - times[start] > 1.0:
            start += 1
        best = max(best, end - start + 1)
    return best
