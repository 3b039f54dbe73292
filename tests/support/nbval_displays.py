"""Make nbval see a display's final data, as a front end shows it.

nbval compares each cell's outputs as the kernel first sent them and drops
``update_display_data``. Front ends apply those updates, and so does nbclient, which executed
and saved the demo notebooks; deepnb's run view updates its output (the static snapshot) when
the run stops. This plugin (loaded by the root ``conftest.py``) applies them for nbval:

A cell's ``display_data`` messages that carry a ``display_id`` are held back, with every
message after them, until the kernel reports the cell idle; ``update_display_data`` for a
held display replaces its data in place. The cell's outputs then reach nbval in their
original order, each display with the data it ended with. An update for a display that an
earlier cell made (a run that later cells resume) cannot change that cell's comparison, which
is over; such cells carry the ``nbval-ignore-output`` tag.
"""

from __future__ import annotations

from collections import deque
from typing import Any

_PATCHED = "_deepnb_display_updates"


def apply_display_updates() -> None:
    """Wrap nbval's ``IPyNbFile.get_kernel_message`` (once per process)."""
    from nbval.plugin import IPyNbFile

    if getattr(IPyNbFile, _PATCHED, False):
        return
    original = IPyNbFile.get_kernel_message

    def get_kernel_message(self: Any, timeout: float | None = None, stream: str = "iopub") -> dict:
        if stream != "iopub":
            return original(self, timeout=timeout, stream=stream)
        updater = self.__dict__.setdefault("_deepnb_updater", DisplayUpdates())
        while not updater.ready:
            updater.feed(original(self, timeout=timeout, stream=stream))
        return updater.ready.popleft()

    IPyNbFile.get_kernel_message = get_kernel_message
    setattr(IPyNbFile, _PATCHED, True)


class DisplayUpdates:
    """Turns a stream of iopub messages into the one nbval should see."""

    def __init__(self) -> None:
        self.ready: deque[dict] = deque()
        self._held: list[dict] = []
        self._displays: dict[str, dict] = {}
        self._cell: str | None = None

    def feed(self, msg: dict) -> None:
        kind = msg["msg_type"]
        content = msg.get("content", {})
        display_id = (content.get("transient") or {}).get("display_id")
        if kind == "update_display_data":
            shown = self._displays.get(display_id)
            if shown is not None:
                shown["content"] = {
                    **shown["content"],
                    "data": content.get("data", {}),
                    "metadata": content.get("metadata", {}),
                }
            return
        if kind == "display_data" and display_id:
            msg = {**msg, "content": dict(content)}
            self._displays[display_id] = msg
            if not self._held:
                self._cell = (msg.get("parent_header") or {}).get("msg_id")
            self._held.append(msg)
            return
        if not self._held:
            self.ready.append(msg)
            return
        self._held.append(msg)
        cell = (msg.get("parent_header") or {}).get("msg_id")
        if kind == "status" and content.get("execution_state") == "idle" and cell == self._cell:
            self.ready.extend(self._held)
            self._held.clear()
            self._displays.clear()


def pytest_configure(config: Any) -> None:
    """As a pytest plugin (``-p tests.support.nbval_displays``): apply when nbval is active."""
    if config.pluginmanager.hasplugin("nbval"):
        apply_display_updates()
