"""deepnb's views in the collaboration server's shared notebooks: once their kernel shuts down or
restarts they become their snapshots in the shared document (a real jupyter_ydoc notebook here), so
a page that opens the notebook then never shows "model not found"; other outputs stay as they are."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from deepnb.server.shared_notebooks import KERNEL_ACTIONS, end_views_of_kernel, follow_kernels
from deepnb.server.views import WIDGET_VIEW

ydoc = pytest.importorskip("jupyter_ydoc")
jupyter_events = pytest.importorskip("jupyter_events")

SNAPSHOT = '<div class="deepnb-snapshot"><b>done</b></div>'


def view(model_id: str, html: str) -> dict[str, Any]:
    data = {"text/plain": "view", "text/html": html, WIDGET_VIEW: {"model_id": model_id, "version_major": 2}}
    return {"output_type": "display_data", "data": data, "metadata": {}}


def shared_notebook(path: str) -> Any:
    notebook = ydoc.YNotebook()
    outputs = [
        view("run", SNAPSHOT),
        view("slider", "<b>7</b>"),
        {"output_type": "stream", "name": "stdout", "text": "hi"},
    ]
    cells = [
        {
            "cell_type": "code",
            "id": "c1",
            "source": "run",
            "metadata": {},
            "execution_count": 1,
            "outputs": outputs,
        },
        {"cell_type": "markdown", "id": "m1", "source": "# notes", "metadata": {}},
    ]
    notebook.set({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells})
    notebook.path = path
    return notebook


def widgets_left(notebook: Any) -> list[str]:
    outputs = notebook.get()["cells"][0]["outputs"]
    return [o["data"][WIDGET_VIEW]["model_id"] for o in outputs if WIDGET_VIEW in o.get("data", {})]


class Collaboration:
    """What deepnb reads of jupyter-collaboration's server extension: its rooms and documents."""

    def __init__(self, documents: dict[str, Any]) -> None:
        self.documents = documents
        self.ywebsocket_server = type(
            "Rooms", (), {"rooms": dict.fromkeys([*documents, "JupyterLab:globalAwareness"])}
        )

    async def get_document(self, *, room_id: str, copy: bool) -> Any:
        assert copy is False  # the shared document itself, not a fork
        return self.documents.get(room_id)


class Kernel:
    """A kernel's manager, as far as its restart callbacks go."""

    def __init__(self) -> None:
        self.callbacks: list[tuple[Any, str]] = []

    def add_restart_callback(self, callback: Any, event: str = "restart") -> None:
        self.callbacks.append((callback, event))

    def fire(self, event: str) -> None:
        for callback, wanted in self.callbacks:
            if wanted == event:
                callback()


class Server:
    """A Jupyter Server with jupyter-collaboration loaded and the given sessions."""

    def __init__(self, documents: dict[str, Any], sessions: list[dict[str, Any]]) -> None:
        apps = {"jupyter_server_ydoc": {Collaboration(documents)}}
        self.extension_manager = type("Extensions", (), {"extension_apps": apps})
        self.sessions = sessions
        self.session_manager = self
        self.event_logger = jupyter_events.EventLogger()
        self.kernel_manager = self
        self.kernels: dict[str, Kernel] = {}

    def get_kernel(self, kernel_id: str) -> Kernel:
        return self.kernels.setdefault(kernel_id, Kernel())

    async def list_sessions(self) -> list[dict[str, Any]]:
        return self.sessions


def test_a_kernel_that_ends_leaves_its_notebooks_views_as_snapshots() -> None:
    ended, other = shared_notebook("ended.ipynb"), shared_notebook("other.ipynb")
    orphan = shared_notebook("no-session.ipynb")
    sessions = [
        {"path": "ended.ipynb", "kernel": {"id": "k1"}},
        {"path": "other.ipynb", "kernel": {"id": "k2"}},
    ]
    server = Server({"json:notebook:1": ended, "json:notebook:2": other, "json:notebook:3": orphan}, sessions)
    assert asyncio.run(end_views_of_kernel(server, "k1")) == 2
    assert widgets_left(ended) == ["slider"] and widgets_left(orphan) == ["slider"]
    assert widgets_left(other) == ["run", "slider"]  # its kernel still runs
    kept = ended.get()["cells"][0]["outputs"][0]
    assert kept["data"] == {"text/plain": "view", "text/html": SNAPSHOT}
    assert ended.get()["cells"][0]["outputs"][2]["text"] == "hi"
    assert asyncio.run(end_views_of_kernel(server, "k1")) == 0  # nothing left to change


@pytest.mark.parametrize(
    ("action", "status", "changed"),
    [
        ("shutdown", "success", True),
        ("restart", "success", True),
        ("interrupt", "success", False),
        ("shutdown", "error", False),
    ],
)
def test_the_servers_kernel_events_end_the_views(action: str, status: str, changed: bool) -> None:
    notebook = shared_notebook("a.ipynb")
    server = Server({"json:notebook:1": notebook}, [{"path": "a.ipynb", "kernel": {"id": "k1"}}])

    async def emit() -> None:
        server.event_logger.register_event_schema(kernel_actions_schema())
        follow_kernels(server)
        data = {"action": action, "status": status, "kernel_id": "k1", "kernel_name": "python3", "msg": ""}
        server.event_logger.emit(schema_id=KERNEL_ACTIONS, data=data)
        await asyncio.gather(*server.event_logger._active_listeners)

    asyncio.run(emit())
    assert widgets_left(notebook) == (["slider"] if changed else ["run", "slider"])


def kernel_actions_schema() -> Any:
    from jupyter_server.services.kernels.kernelmanager import ServerKernelManager

    return ServerKernelManager().core_event_schema_paths[0]


def test_a_kernel_that_dies_for_good_ends_the_views() -> None:
    """A kernel that keeps crashing is given up on by its restarter and dropped with no event: the
    callback deepnb set when it started ends the views."""
    notebook = shared_notebook("a.ipynb")
    server = Server({"json:notebook:1": notebook}, [{"path": "a.ipynb", "kernel": {"id": "k1"}}])

    async def start_then_die() -> None:
        server.event_logger.register_event_schema(kernel_actions_schema())
        follow_kernels(server)
        data = {
            "action": "start",
            "status": "success",
            "kernel_id": "k1",
            "kernel_name": "python3",
            "msg": "",
        }
        server.event_logger.emit(schema_id=KERNEL_ACTIONS, data=data)
        await asyncio.gather(*server.event_logger._active_listeners)
        assert widgets_left(notebook) == ["run", "slider"]  # started: nothing to end yet
        server.kernels["k1"].fire("restart")  # restarted after a crash: the restart event does it
        server.kernels["k1"].fire("dead")
        await asyncio.sleep(0.05)

    asyncio.run(start_then_die())
    assert widgets_left(notebook) == ["slider"]
