"""A cell that waits for what it started (a run, a batch, an experiment): the kernel's interrupt
stops it and is reported in one line, its view brought up to date either way."""

from __future__ import annotations

import asyncio
from typing import Any


def wait_for(many: Any, view: Any | None = None, *, what: str) -> None:
    """Keep the cell busy until a batch or an experiment ends; the kernel's interrupt stops it;
    its view is brought up to date at the end either way."""
    try:
        many.wait()
    except KeyboardInterrupt:
        stop_by_the_kernel(many)
        raise interrupted(f"the {what} was stopped; what ended is kept") from None
    finally:
        if view is not None:
            view.sync()


async def await_many(many: Any, view: Any, what: str) -> None:
    """:func:`wait_for` for the awaited cell: the kernel's interrupt arrives as a cancellation."""
    try:
        await many.wait_async()
    except (KeyboardInterrupt, asyncio.CancelledError):
        stop_by_the_kernel(many)
        raise interrupted(f"the {what} was stopped; what ended is kept") from None
    finally:
        view.sync()


def interrupted(what: str) -> KeyboardInterrupt:
    """The kernel's interrupt as the cell reports it: a ``KeyboardInterrupt`` that IPython shows
    as one line (``_render_traceback_``), not a traceback through the rewritten cell."""
    line = f"KeyboardInterrupt: {what}."
    interrupt = KeyboardInterrupt(what)
    interrupt._render_traceback_ = lambda: [line]  # type: ignore[attr-defined]
    return interrupt


def stop_by_the_kernel(target: Any) -> str:
    """Stop a run, batch or experiment for the kernel's interrupt, so each run's notice says so;
    return that reason."""
    # lazy: the engine is loaded by now (something runs); %load_ext deepnb does not load it
    from deepnb.session.run import KERNEL_INTERRUPT  # noqa: PLC0415

    target.stop(reason=KERNEL_INTERRUPT)
    return KERNEL_INTERRUPT


async def settle(run: Any) -> None:
    """Wait for a stopped run to end, in a worker thread, through a second interrupt too."""
    waiting = asyncio.get_running_loop().run_in_executor(None, run.wait)
    while True:
        try:
            await asyncio.shield(waiting)
            return
        except (KeyboardInterrupt, asyncio.CancelledError):
            if waiting.done():
                return
