"""Work handed to the engine loop leaves ipykernel's parent-request variables behind and keeps
every other context variable (LangSmith's tracing context, a user's own)."""

from __future__ import annotations

import asyncio
import contextvars
import threading

from deepnb.core.loop import KERNEL_PARENT_VARS, call_soon, detached, run_sync

PARENTS = [contextvars.ContextVar(name) for name in sorted(KERNEL_PARENT_VARS)]
OWN = contextvars.ContextVar("tracing_project")


def _seen() -> dict[str, object]:
    seen: dict[str, object] = {var.name: var.get("unset") for var in PARENTS}
    seen[OWN.name] = OWN.get("unset")
    return seen


EXPECTED = {**dict.fromkeys(sorted(KERNEL_PARENT_VARS), "unset"), "tracing_project": "tides"}


def _in_a_cell(hop: object) -> dict[str, object]:
    def cell() -> dict[str, object]:
        for var in PARENTS:
            var.set({"msg_id": "cell-1"})
        OWN.set("tides")
        return hop()  # type: ignore[operator]

    return contextvars.copy_context().run(cell)


def test_every_hop_onto_the_engine_loop_drops_the_parent_and_keeps_the_rest() -> None:
    async def read() -> dict[str, object]:
        await asyncio.sleep(0)
        return _seen()

    def by_call_soon() -> dict[str, object]:
        seen: dict[str, object] = {}
        done = threading.Event()
        call_soon(lambda: (seen.update(_seen()), done.set()), what="a test")
        assert done.wait(5)
        return seen

    hops = {
        "run_sync": lambda: run_sync(read()),
        "call_soon": by_call_soon,
        "detached": lambda: detached().run(_seen),
    }
    assert {name: _in_a_cell(hop) for name, hop in hops.items()} == dict.fromkeys(hops, EXPECTED)


def test_a_context_without_the_parent_is_kept_as_it_is() -> None:
    def cell() -> dict[str, object]:
        OWN.set("tides")
        return detached().run(_seen)

    assert contextvars.copy_context().run(cell) == EXPECTED
