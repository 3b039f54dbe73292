"""Drive a real IPython kernel over the Jupyter protocol, as a front-end would.

Widget state is read from the ``comm_open`` / ``comm_msg`` messages the kernel publishes, and a
widget click is the ``comm_msg`` a front-end sends.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import os
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from jupyter_client.manager import KernelManager

#: Whether a view's controls work while its cell runs: ipykernel 7 handles comm messages while an
#: async cell awaits, ipykernel 6 (which deepnb supports without them) does not.
CONTROLS_MID_CELL = int(importlib.metadata.version("ipykernel").split(".")[0]) >= 7
needs_controls_mid_cell = pytest.mark.skipif(
    not CONTROLS_MID_CELL, reason="a click mid-cell needs ipykernel 7 (the floors' kernel is 6)"
)


@dataclass
class Execution:
    msg_id: str
    outputs: list[dict[str, Any]] = field(default_factory=list)
    reply: dict[str, Any] | None = None
    idle: bool = False
    done: threading.Event = field(default_factory=threading.Event)

    @property
    def ok(self) -> bool:
        return bool(self.reply) and self.reply["content"]["status"] == "ok"

    def text(self) -> str:
        """Everything the cell printed or showed as text/plain, and its error, as one string.
        An update of an output counts where that output is: a run started in an earlier cell
        updates that cell's output, although the message comes while this one executes."""
        parts: list[str] = []
        streamed = False
        own = {
            out["content"].get("transient", {}).get("display_id")
            for out in self.outputs
            if out["msg_type"] == "display_data"
        }
        for out in self.outputs:
            if out["msg_type"] == "stream":
                # A print may reach the front end in several stream messages: they are one text.
                if streamed:
                    parts[-1] += out["content"]["text"]
                else:
                    parts.append(out["content"]["text"])
                streamed = True
            elif (
                out["msg_type"] == "update_display_data"
                and out["content"]["transient"]["display_id"] not in own
            ):
                continue
            elif out["msg_type"] in ("display_data", "execute_result", "update_display_data"):
                parts.append(out["content"]["data"].get("text/plain", ""))
                streamed = False
            elif out["msg_type"] == "error":
                parts.append(out["content"]["ename"] + ": " + out["content"]["evalue"])
                streamed = False
        return "\n".join(parts)


ABORTED_RESENDS = 3
"""How many times :meth:`KernelSession.execute` sends again a request the kernel aborted unrun."""


class KernelSession:
    """A kernel plus a reader thread that records every iopub message and widget state."""

    def __init__(
        self, *, env: dict[str, str] | None = None, cwd: str | None = None, unset: tuple[str, ...] = ()
    ) -> None:
        self.manager = KernelManager(kernel_name="python3")
        dropped = {"DEEPNB_MODEL", *unset}  # unset=("PYTEST_CURRENT_TEST",): ipykernel then shows
        # what reaches its file descriptors 1 and 2 in the cell, as it does outside pytest
        kernel_env = {k: v for k, v in os.environ.items() if k not in dropped} | (env or {})
        self.manager.start_kernel(env=kernel_env, cwd=cwd)
        self.client = self.manager.client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=60)
        self.iopub: list[dict[str, Any]] = []
        self.widgets: dict[str, dict[str, Any]] = {}
        self.comm_updates: list[tuple[float, str, dict[str, Any]]] = []
        self.custom: list[tuple[str, Any]] = []
        """Custom messages from views other than live patches: (comm id, content)."""
        self.patches: list[tuple[str, dict[str, Any]]] = []
        """Live patches as received: (comm id, patch)."""
        self.repeated_nodes: list[str] = []
        """Ids of tree nodes a patch carried although the front end already had them as they were."""
        self._executions: dict[str, Execution] = {}
        self._lock = threading.RLock()
        self._closing = False
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._replies = threading.Thread(target=self._read_replies, daemon=True)
        self._replies.start()

    # -- reading ----------------------------------------------------------------------------

    def _read(self) -> None:
        while not self._closing:
            try:
                msg = self.client.get_iopub_msg(timeout=0.2)
            except queue.Empty:
                continue
            except Exception:
                return
            self._record(msg)

    def _record(self, msg: dict[str, Any]) -> None:
        kind = msg["msg_type"]
        content = msg["content"]
        with self._lock:
            self.iopub.append(msg)
            if kind == "comm_open":
                self.widgets[content["comm_id"]] = dict(content["data"].get("state", {}))
            elif kind == "comm_msg" and content["data"].get("method") == "update":
                state = content["data"].get("state", {})
                self.widgets.setdefault(content["comm_id"], {}).update(state)
                self.comm_updates.append((time.monotonic(), content["comm_id"], state))
            elif kind == "comm_msg" and content["data"].get("method") == "custom":
                patch = content["data"].get("content", {})
                if isinstance(patch, dict) and patch.get("type") == "patch":
                    self._apply_patch(content["comm_id"], patch)
                else:
                    self.custom.append((content["comm_id"], patch))
            execution = self._executions.get(msg.get("parent_header", {}).get("msg_id"))
            if execution is None:
                return
            if kind in ("stream", "display_data", "execute_result", "error", "update_display_data"):
                execution.outputs.append(msg)
            elif kind == "status" and content["execution_state"] == "idle":
                execution.idle = True
                if execution.reply is not None:
                    execution.done.set()

    def _apply_patch(self, comm_id: str, patch: dict[str, Any]) -> None:
        """Fold a run view's live patch into its state, as the front-end does."""
        self.patches.append((comm_id, patch))
        state = self.widgets.setdefault(comm_id, {})
        state.update(patch.get("state", {}))
        items = {item["id"]: item for item in state.get("items", [])}
        items.update({item["id"]: item for item in patch.get("upsert", [])})
        known = [item["id"] for item in state.get("items", [])]
        order = patch.get("ids") or known + patch.get("append_ids", [])
        state["items"] = [items[i] for i in order if i in items]
        nodes = {node["id"]: node for node in state.get("tree", [])}
        self.repeated_nodes.extend(n["id"] for n in patch.get("nodes", []) if nodes.get(n["id"]) == n)
        nodes.update({node["id"]: node for node in patch.get("nodes", [])})
        state["tree"] = list(nodes.values())
        self.comm_updates.append(
            (time.monotonic(), comm_id, {**patch.get("state", {}), "items": state["items"]})
        )

    def _read_replies(self) -> None:
        while not self._closing:
            try:
                msg = self.client.get_shell_msg(timeout=0.2)
            except queue.Empty:
                continue
            except Exception:
                return
            parent = msg.get("parent_header", {}).get("msg_id")
            with self._lock:
                execution = self._executions.get(parent)
                if execution is None:
                    continue
                execution.reply = msg
                if execution.idle:
                    execution.done.set()

    # -- acting -----------------------------------------------------------------------------

    def submit(self, code: str) -> Execution:
        """Send ``code`` for execution and return at once."""
        with self._lock:
            msg_id = self.client.execute(code, store_history=True, allow_stdin=False)
            execution = Execution(msg_id)
            self._executions[msg_id] = execution
        return execution

    def execute(self, code: str, timeout: float = 120) -> Execution:
        """Run ``code`` and wait until the kernel is idle again. A request the kernel aborted
        unrun is sent again: after a cell fails or is interrupted, ipykernel drops the requests
        that reach it until it has replied to that cell and its loop has turned once more (Run
        All stops there), which a busy machine can stretch past the next cell's request."""
        for _ in range(ABORTED_RESENDS + 1):
            execution = self.submit(code)
            if not execution.done.wait(timeout):
                raise TimeoutError(f"cell did not finish in {timeout} s: {code[:80]!r}")
            if (execution.reply or {}).get("content", {}).get("status") != "aborted":
                break
        return execution

    def wait_for(self, predicate: Any, timeout: float = 30, interval: float = 0.02) -> Any:
        """Poll ``predicate()`` until it returns something truthy."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                value = predicate()
            if value:
                return value
            time.sleep(interval)
        raise TimeoutError("condition not met in time")

    def run_views(self) -> list[tuple[str, dict[str, Any]]]:
        """(comm id, state) of every deepnb run view, oldest first."""
        with self._lock:
            return [
                (cid, state)
                for cid, state in self.widgets.items()
                if state.get("_anywidget_id") == "deepnb.views.run.run_view.RunView"
            ]

    def newest_view(self, count_before: int, timeout: float = 90) -> tuple[str, dict[str, Any]]:
        """(comm id, state) of the run view opened after ``count_before`` views existed. The cell
        answers at once; its view opens once the run starts, after a kernel's first cell has
        imported the agent stack, which a busy machine may take a minute over."""
        return self.wait_for(
            lambda: len(self.run_views()) > count_before and self.run_views()[-1], timeout=timeout
        )

    def click(self, comm_id: str, content: dict[str, Any]) -> None:
        """Send what the front-end sends for ``model.send(content)`` (a button click)."""
        msg = self.client.session.msg(
            "comm_msg", {"comm_id": comm_id, "data": {"method": "custom", "content": content}}
        )
        self.client.shell_channel.send(msg)

    def restart(self, timeout: float = 60) -> None:
        """Restart the kernel, as the front-end's ⟳ does, and wait until it runs code again.
        (Readiness is checked through the reader threads: a second reader on the same sockets
        could take the message the other one is waiting for.)"""
        self.manager.restart_kernel(now=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if self.execute("pass", timeout=10).ok:
                    return
            except TimeoutError:
                continue
        raise TimeoutError(f"the kernel did not come back within {timeout} s")

    def interrupt(self) -> None:
        self.manager.interrupt_kernel()

    def close(self) -> None:
        self._closing = True
        try:
            self.client.stop_channels()
        finally:
            self.manager.shutdown_kernel(now=True)


@contextlib.contextmanager
def deepnb_kernel(cwd: str, *, unset: tuple[str, ...] = ()) -> Iterator[KernelSession]:
    """A kernel started in ``cwd`` (without the environment variables ``unset``) with
    ``%load_ext deepnb`` done, shut down on exit."""
    session = KernelSession(cwd=cwd, unset=unset)
    try:
        assert session.execute("%load_ext deepnb").ok
        yield session
    finally:
        session.close()
