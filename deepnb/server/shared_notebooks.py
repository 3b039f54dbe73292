"""deepnb's views in the collaboration server's shared notebooks (jupyter-collaboration).

With real-time collaboration a page opens the notebook's shared document, which the server keeps
in memory while anyone has it open and for a while after (a minute by default): a page that opens
the notebook in that time gets the document, not the file. A deepnb view in it is a widget output
whose model lives in the kernel. Once the kernel shuts down or restarts, the model is gone, and a
page opening the notebook then would show "Error displaying widget: model not found" where the
file (saved by the hook of :mod:`deepnb.server.extension`) has the view's snapshot.

So when a kernel shuts down or restarts, each deepnb view in the shared notebooks it may have
served becomes its snapshot in the shared document too, as in the saved file: pages open on the
notebook show the snapshot from then on, pages that open it later get the snapshot, and the next
save writes the same. A notebook may have been served by that kernel when its session's kernel is
that one, or when it has no session any more (a shut-down session is gone by the time this runs);
in a notebook without a kernel no view has a model anyway. Other libraries' widgets are left as
they are.

Imports nothing of jupyter-collaboration at load: its extension is found, when it is loaded,
through the server's extension manager (pycrdt, which it brings, is imported only then).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Any

from deepnb.server.views import snapshot_output

KERNEL_ACTIONS = "https://events.jupyter.org/jupyter_server/kernel_actions/v1"
"""Jupyter Server's event for what happened to a kernel (started, shut down, restarted, ...)."""
ENDS_MODELS = ("shutdown", "restart")
COLLABORATION = "jupyter_server_ydoc"
"""The server extension of jupyter-collaboration that holds the shared documents."""

log = logging.getLogger(__name__)


def views_to_snapshots(cells: Iterable[Any], transaction: Any, new_map: Any) -> int:
    """Replace each deepnb view among the outputs of the shared ``cells`` (pycrdt maps) by its
    snapshot, in one ``transaction``, each as a new map made by ``new_map``; return how many."""
    changed = 0
    with transaction:
        for cell in cells:
            outputs = cell.get("outputs") if cell.get("cell_type") == "code" else None
            if outputs is None:
                continue
            for index in range(len(outputs)):
                output = outputs[index]
                snapshot = snapshot_output(output.to_py() if hasattr(output, "to_py") else output)
                if snapshot is not None:
                    outputs[index] = new_map(snapshot)
                    changed += 1
    return changed


def _new_map(value: dict[str, Any]) -> Any:
    from pycrdt import Map  # noqa: PLC0415  # lazy: installed only with jupyter-collaboration

    return Map(value)


def _collaboration_apps(serverapp: Any) -> set[Any]:
    apps = serverapp.extension_manager.extension_apps.get(COLLABORATION)
    return set(apps or ())


async def _kernels_by_path(serverapp: Any) -> dict[str, str]:
    sessions = serverapp.session_manager.list_sessions()
    sessions = await sessions if hasattr(sessions, "__await__") else sessions
    return {s["path"]: s["kernel"]["id"] for s in sessions if s.get("path") and s.get("kernel")}


async def end_views_of_kernel(serverapp: Any, kernel_id: str) -> int:
    """Turn the deepnb views of the shared notebooks kernel ``kernel_id`` may have served into
    their snapshots; return how many changed."""
    changed = 0
    for app in _collaboration_apps(serverapp):
        rooms = getattr(getattr(app, "ywebsocket_server", None), "rooms", None) or {}
        kernels = await _kernels_by_path(serverapp)
        for room_id in list(rooms):
            document = await app.get_document(room_id=room_id, copy=False)
            if type(document).__name__ != "YNotebook":
                continue
            if kernels.get(document.path, kernel_id) != kernel_id:
                continue  # a notebook with another kernel, still running
            count = views_to_snapshots(document.ycells, document.ydoc.transaction(), _new_map)
            if count:
                log.info(
                    "deepnb: %d view(s) of %s are snapshots now (its kernel ended)", count, document.path
                )
            changed += count
    return changed


_ending: set[asyncio.Future[None]] = set()
"""The views being ended for kernels that died (held until done, as the loop holds tasks weakly)."""


def _on_death(serverapp: Any, kernel_id: str) -> None:
    """Once kernel ``kernel_id`` has started, end its views should it die for good: a kernel that
    crashes is restarted (a ``restart`` event), but one that keeps crashing is given up on and
    dropped with no event at all."""
    manager = getattr(serverapp, "kernel_manager", None)
    try:
        kernel = manager.get_kernel(kernel_id) if manager is not None else None
    except KeyError:  # gone already
        return
    if kernel is None or not hasattr(kernel, "add_restart_callback"):
        return

    def died() -> None:  # called by the kernel's restarter, on the server's loop
        task = asyncio.ensure_future(_ended(serverapp, kernel_id))
        _ending.add(task)
        task.add_done_callback(_ending.discard)

    kernel.add_restart_callback(died, "dead")


async def _ended(serverapp: Any, kernel_id: str) -> None:
    try:
        if _collaboration_apps(serverapp):
            await end_views_of_kernel(serverapp, kernel_id)
    except Exception:  # the server goes on; the file's own snapshots are still saved
        log.warning("deepnb: could not turn the shared notebooks' views into snapshots", exc_info=True)


def follow_kernels(serverapp: Any) -> None:
    """Listen to the server's kernel events: a kernel that shuts down, restarts (a crash included:
    the server restarts it) or dies for good leaves the shared notebooks it served with deepnb's
    views as snapshots."""

    async def on_kernel_action(*, logger: Any, schema_id: str, data: dict[str, Any]) -> None:
        # jupyter_events calls a listener with these keywords, as a task of its own.
        if data.get("status") != "success" or not data.get("kernel_id"):
            return
        kernel_id = str(data["kernel_id"])
        if data.get("action") == "start":
            _on_death(serverapp, kernel_id)
        elif data.get("action") in ENDS_MODELS:
            await _ended(serverapp, kernel_id)

    events = getattr(serverapp, "event_logger", None)
    if events is not None:
        events.add_listener(schema_id=KERNEL_ACTIONS, listener=on_kernel_action)
