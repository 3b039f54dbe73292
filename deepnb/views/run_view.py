"""The live run view: transcript with tool-call cards, todos, progress and a Stop button."""

from __future__ import annotations

import copy
from typing import Any

import anywidget
import traitlets as t

from deepnb import events as ev
from deepnb._loop import run_sync
from deepnb.approvals import CARD_MESSAGES, check_card, restore_hidden
from deepnb.errors import DeepnbError
from deepnb.render import code_css
from deepnb.run import Run
from deepnb.secrets import redact
from deepnb.views.assets import asset, stylesheet
from deepnb.views.messages import RUN_MESSAGES
from deepnb.views.messages import check as check_message
from deepnb.views.throttle import Throttle

_SYNCED = (
    "status",
    "error",
    "items",
    "todos",
    "progress",
    "pending",
    "decisions",
    "files_changed",
    "tree",
    "async_tasks",
)
_LIVE = tuple(name for name in _SYNCED if name not in ("items", "tree"))


class RunView(anywidget.AnyWidget):
    """Shows one run as it streams. Updates reach the front-end at most 20 times a second.

    While the run streams, each update is one ``{"type": "patch"}`` message carrying only the
    transcript items that changed (and the other fields that changed), so its cost does not grow
    with the transcript. When the run stops (done, failed, stopped or waiting for approval) the
    traits are set in full, so a saved notebook keeps the whole final state.
    """

    _esm = asset("run_view.js")
    _css = stylesheet("run_view.css")

    agent = t.Unicode("", help="The agent's name.").tag(sync=True)
    thread_id = t.Unicode("", help="The thread the run writes to.").tag(sync=True)
    status = t.Unicode("running", help="running, interrupted, done, error or cancelled.").tag(sync=True)
    error = t.Unicode("", help="The failure's one-line description, secrets removed.").tag(sync=True)
    items = t.List(help="Transcript items: prompt, text, tool, notice and error.").tag(sync=True)
    todos = t.List(help="The agent's todo list: {content, status}.").tag(sync=True)
    progress = t.Dict(help="steps, tool_calls, tokens_in/out, elapsed, started_at.").tag(sync=True)
    pending = t.List(
        help="Interrupts waiting for decisions: {id, agent, actions: [{index, name, args, args_json, "
        "description, allowed, preview, decision}]}."
    ).tag(sync=True)
    decisions = t.List(help="The decision log: {at, tool, type, message, args, auto}.").tag(sync=True)
    card_errors = t.Dict(
        help='Why a decision from a card was refused, by "interrupt id:index" (a front-end message '
        'that answers no card: by "message"); nothing was sent.'
    ).tag(sync=True)
    files_changed = t.List(help="Paths written or deleted during the run.").tag(sync=True)
    tree = t.List(
        help="Subagent nodes in start order: {id, parent, name, label, description, source, status, "
        "started_at, finished_at, tool_calls, tokens_in, tokens_out, activity, result, children}."
    ).tag(sync=True)
    async_tasks = t.List(
        help="The thread's async subagent tasks: {task_id, agent_name, thread_id, run_id, status, ...}."
    ).tag(sync=True)
    async_error = t.Unicode("", help="Why the last on-demand refresh of async tasks failed.").tag(sync=True)
    live_controls = t.Bool(
        True, help="Whether Stop works while the cell runs (the kernel handles widget events)."
    ).tag(sync=True)
    stop_hint = t.Unicode("", help="Shown beside Stop when it cannot work mid-cell.").tag(sync=True)
    code_css = t.Unicode("", help="Styles for highlighted code.").tag(sync=True)
    revision = t.Int(0, help="Counts full syncs; live patches before one are superseded by it.").tag(
        sync=True
    )

    def __init__(self, run: Run, *, live_controls: bool = True, **kwargs: Any) -> None:
        state = run.state.to_json()
        super().__init__(
            **{name: state[name] for name in _SYNCED},
            agent=redact(run.workbench.name),
            thread_id=redact(run.thread_id),
            live_controls=live_controls,
            stop_hint="" if live_controls else "Stop needs the kernel's interrupt (■) here.",
            code_css=code_css(".deepnb"),
            **kwargs,
        )
        self.run = run
        self.flushes = 0
        self._sent_items: dict[str, dict[str, Any]] = {i["id"]: dict(i) for i in run.state.items}
        self._sent_ids = [i["id"] for i in run.state.items]
        self._sent_nodes = {n["id"]: n for n in state["tree"]}
        self._sent_live = {name: state[name] for name in _LIVE}
        self._sent_live["pending_raw"] = copy.deepcopy(run.state.pending)
        self._full_version: int | None = None
        self._throttle = Throttle(self._flush)
        self.on_msg(self._on_front_end_message)
        self._unsubscribe = run.subscribe(self._on_event)
        if run.done:
            self._throttle.poke()

    def _on_event(self, _event: ev.Event) -> None:
        self._throttle.poke()

    def _flush(self) -> None:
        with self.run._lock:
            state = self.run.state
            if state.status != "running":
                if state.version == self._full_version:  # already sent in full, nothing new
                    return
                self._full_version = state.version
                self._send_in_full(state.to_json())
            else:
                self._full_version = None
                self._send_patch(state)
        self.flushes += 1

    def _send_in_full(self, state: dict[str, Any]) -> None:
        # Patches changed the front-end's copy but not these traits, so send all of them (in one
        # message) even where a trait still equals the new value.
        with self.hold_sync():
            for name in _SYNCED:
                setattr(self, name, state[name])
            self._states_to_send.update(_SYNCED)
            self.revision += 1
        self._sent_items = {i["id"]: dict(i) for i in self.run.state.items}
        self._sent_ids = [i["id"] for i in state["items"]]
        self._sent_nodes = {n["id"]: n for n in state["tree"]}
        self._sent_live = {name: state[name] for name in _LIVE}
        self._sent_live["pending_raw"] = copy.deepcopy(self.run.state.pending)

    def _send_patch(self, state: Any, *, everything: bool = False) -> None:
        """One message with what changed since the last one (everything, for a new view)."""
        changed = [item for item in state.items if everything or self._sent_items.get(item["id"]) != item]
        ids = [item["id"] for item in state.items]
        nodes = [
            state.public_node(node)
            for node in state.nodes.values()
            if everything or self._sent_nodes.get(node["id"]) != node
        ]
        live = {
            "status": state.status,
            "error": state.error or "",
            "todos": state.todos,
            "progress": state.progress(),
            "files_changed": state.files_changed,
            "async_tasks": state.async_tasks,
        }
        if everything or state.pending != self._sent_live.get("pending_raw"):
            live["pending"] = state.to_json()["pending"]
            live["decisions"] = [dict(d) for d in state.decisions]
        patch: dict[str, Any] = {
            "type": "patch",
            "state": {k: v for k, v in live.items() if everything or self._sent_live.get(k) != v},
            "upsert": [state.public_item(item) for item in changed],
        }
        if everything:
            patch["ids"] = ids
        elif ids != self._sent_ids:  # new items at the end are named, the rest is known
            known = len(self._sent_ids)
            if ids[:known] == self._sent_ids:
                patch["append_ids"] = ids[known:]
            else:
                patch["ids"] = ids
        if nodes:
            patch["nodes"] = nodes
        if not (patch["state"] or patch["upsert"] or "ids" in patch or "append_ids" in patch or nodes):
            return
        self.send(patch)
        self._sent_nodes.update((node["id"], node) for node in nodes)
        self._sent_items.update((item["id"], dict(item)) for item in changed)
        self._sent_ids = ids
        self._sent_live.update(
            {k: copy.deepcopy(v) if isinstance(v, list) else v for k, v in patch["state"].items()}
        )
        if "pending" in patch["state"]:
            self._sent_live["pending_raw"] = copy.deepcopy(state.pending)

    def sync(self) -> None:
        """Send the run's latest state now (used when a cell ends, so its output is final)."""

        async def flush() -> None:
            self._throttle.flush_now()

        run_sync(flush())

    def _on_front_end_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        """Act on a message from the front-end once it is one the view accepts, every field
        checked (and, for a card, checked against the card it answers); a refused one is
        recorded in ``card_errors`` and nothing else happens."""
        try:
            kind = check_message(content, RUN_MESSAGES)
            targets = check_card(kind, content, self._pending()) if kind in CARD_MESSAGES else []
        except DeepnbError as exc:
            self._refuse(_card_key(content), str(exc))
            return
        if kind == "stop":
            self.run.stop()
        elif kind == "sync":  # a view rendered mid-run asks for the whole current state
            with self.run._lock:
                if self.run.state.status == "running":
                    self._send_patch(self.run.state, everything=True)
        elif kind in CARD_MESSAGES:
            self._decide(kind, content, targets)
        elif kind == "open_file":
            self.send(self._file_message(content.get("path", "")))
        elif kind == "refresh_tasks":
            self._refresh_tasks()

    def _pending(self) -> list[dict[str, Any]]:
        with self.run._lock:
            return copy.deepcopy(self.run.state.pending)

    def _refuse(self, key: str, error: str) -> None:
        self._record([(key, error)])

    def _file_message(self, path: str) -> dict[str, str]:
        """A file of the thread, for the front-end's file panel: escaped, secrets removed."""
        from deepnb.files.render import render_file

        reply = {"type": "file", "path": path, "text": "", "html": "", "error": ""}
        try:
            rendered = render_file(path, self.run.files.read_bytes(path))
        except KeyError:
            reply["error"] = f"{path} is not in the thread's files (any more)."
        except Exception as exc:  # shown in the panel rather than lost in the kernel log
            reply["error"] = redact(f"Could not read {path}: {exc}")
        else:
            reply["text"], reply["html"] = rendered.text, rendered.html
        return reply

    def _refresh_tasks(self) -> None:
        """Ask the Agent Protocol server for the async tasks' current status."""
        from deepnb.async_tasks import refresh_async_tasks

        try:
            rows = run_sync(refresh_async_tasks(self.run.workbench, self.run.thread_id))
        except DeepnbError as exc:
            self.async_error = str(exc)
            return
        except Exception as exc:  # shown on the panel rather than lost in the kernel log
            self.async_error = redact(f"Could not refresh the async tasks: {type(exc).__name__}: {exc}")
            return
        self.async_error = ""
        self.run.emit(ev.AsyncTasksChanged(ev.MAIN, {row["task_id"]: row for row in rows}))

    def _decide(self, kind: str, content: dict[str, Any], targets: list[int]) -> None:
        """A decision from a card, checked against it. A refused one is explained on that
        card; nothing is sent."""
        interrupt_id = content["interrupt_id"]
        if kind == "approve_all":
            outcomes = [self._try(interrupt_id, n, {"type": "approve"}) for n in targets]
        elif kind == "always":
            (index,) = targets
            tool = content["tool"]
            outcomes = [self._try(interrupt_id, index, {"type": "approve"})]
            if outcomes[0][1] is None:  # the rule is kept only once its own decision went through
                self.run.workbench.always_approve(self.run.thread_id, tool)
                others = [(r.interrupt_id, r.index) for r in self.run.pending if r.name == tool]
                outcomes += [self._try(i, n, {"type": "approve"}) for i, n in others]
        else:
            (index,) = targets
            outcomes = [self._try(interrupt_id, index, dict(content["decision"]), from_card=True)]
        self._record(outcomes)

    def _record(self, outcomes: list[tuple[str, str | None]]) -> None:
        errors = dict(self.card_errors)
        for key, error in outcomes:
            if error is None:
                errors.pop(key, None)
            else:
                errors[key] = error
        with self.hold_sync():  # sent even when a refusal repeats the last one word for word
            self.card_errors = errors
            self._states_to_send.add("card_errors")

    def _restore_hidden(self, interrupt_id: str, index: int, args: Any) -> Any:
        """The card showed the arguments with secrets hidden: put back the ones left untouched."""
        request = next(
            (r for r in self.run.pending if (r.interrupt_id, r.index) == (interrupt_id, index)), None
        )
        return args if request is None else restore_hidden(args, request.args)

    def _try(
        self, interrupt_id: str, index: int, decision: dict[str, Any], *, from_card: bool = False
    ) -> tuple[str, str | None]:
        key = f"{interrupt_id}:{index}"
        try:
            if from_card and decision.get("type") == "edit":
                args = self._restore_hidden(interrupt_id, index, decision.get("args"))
                decision = {**decision, "args": args}
            self.run.decide(interrupt_id, index, decision)
        except DeepnbError as exc:
            return key, str(exc)
        except Exception as exc:  # shown on the card rather than lost in the kernel log
            return key, f"Could not send the decision: {type(exc).__name__}: {exc}"
        return key, None

    def stop(self) -> None:
        """What the Stop button does."""
        self.run.stop()

    def close(self) -> None:
        self._unsubscribe()
        super().close()


def _card_key(content: Any) -> str:
    """Where a refusal of ``content`` is shown: the card it names ("interrupt id:index", as the
    front-end keys it), else ``"message"``."""
    if not isinstance(content, dict) or content.get("type") not in CARD_MESSAGES:
        return "message"
    index = 0 if content.get("type") == "approve_all" else content.get("index")
    return f"{content.get('interrupt_id')}:{index}"
