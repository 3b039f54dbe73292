"""What a run view's front end asks of the run: decide and answer its cards (one, every one, a
page of them), stop it, fork its thread at a step, open a file, list and show threads, refresh
async tasks, send a follow-up from the box (the view goes on with it) or steer the running
agent. Each message is checked (:mod:`deepnb.views.messages`) before it acts; a refusal is
shown on the card it names (the box's, under the box). The view's transport (bounded traits,
patches, throttling) is :mod:`deepnb.views.run.run_view`."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, cast

from deepnb.core import events as ev
from deepnb.core.errors import DeepnbError
from deepnb.core.loop import run_sync
from deepnb.core.schema import RUNNING
from deepnb.core.text.markup import escape
from deepnb.core.text.secrets import redact
from deepnb.engine.approvals import CARD_MESSAGES, ApprovalRequest, check_card, restore_hidden
from deepnb.engine.async_tasks import refresh_tasks
from deepnb.engine.interrupts import check_answer_card
from deepnb.engine.state import RunState, public_pending
from deepnb.session.protocol import Session
from deepnb.views.bounds import (
    MESSAGE_LIMIT,
    TRAIT_BUDGETS,
    bounded_pending,
    size,
)
from deepnb.views.files.file_preview import render_file
from deepnb.views.messages import RUN_MESSAGES
from deepnb.views.messages import check as check_message
from deepnb.views.run.approval_pages import page_of
from deepnb.views.run.collapse import hidden_ids
from deepnb.views.run.step_actions import STEP_MESSAGES
from deepnb.views.run.thread_preview import thread_message, threads_message

if TYPE_CHECKING:
    from deepnb.session.run import Run  # at run time the views only read a run they are given


class RunActions:
    """The run view's actions, mixed into :class:`~deepnb.views.run.run_view.RunView`, which
    holds the state they read and the traits they set."""

    run: Run
    _page: int
    _folded: frozenset[str]
    _expanded: bool
    _sent_live: dict[str, Any]
    _states_to_send: set[str]

    if TYPE_CHECKING:  # the view's traits and transport, as these actions use them
        pending: list[dict[str, Any]]
        pending_page: dict[str, Any]
        card_errors: dict[str, str]
        async_error: str

        def send(self, content: Any, buffers: Any = None) -> None: ...

        def hold_sync(self) -> AbstractContextManager[None]: ...

        def _send_patch(self, state: RunState, *, everything: bool = False) -> None: ...

        def _continue_with(self, later: Run) -> None: ...

        def _step_reply(self, kind: str, content: Mapping[str, Any]) -> dict[str, Any]: ...

        def _own(self, step: Any) -> int: ...

    def _on_front_end_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        """Act on a message from the front-end once it is one the view accepts, every field
        checked (and, for a card, checked against the card it answers); a refused one is
        recorded in ``card_errors`` and nothing else happens."""
        try:
            kind = check_message(content, RUN_MESSAGES)
            if kind in CARD_MESSAGES or kind == "answer":
                self.run.refresh()  # a card answered elsewhere names nothing pending any more
            # Approve all of one interrupt covers its actions on other pages too
            cards = self._pending(whole=kind == "approve_all")
            targets = check_card(kind, content, cards) if kind in CARD_MESSAGES else []
            if kind == "answer":
                check_answer_card(content, self._pending())
            if kind == "show_thread" and not content.get("thread_id"):
                raise DeepnbError("show_thread names no thread_id.")
            step = self._own_step(content.get("step")) if kind == "fork" else None
            if kind in STEP_MESSAGES and "step" in content:  # a step of the panel: one the run wrote
                self._own(content["step"])
            if kind == "pending_page" and content["page"] < 0:
                raise DeepnbError(f"There is no page {content['page']} of approval cards.")
        except DeepnbError as exc:
            self._refuse(_card_key(content), str(exc))
            return
        if kind == "stop":
            self.run.stop()
        elif kind == "sync":  # a view rendered mid-run asks for the whole current state
            with self.run.reading() as state:
                if state.status == RUNNING:
                    self._folded = hidden_ids(state.items, budget=TRAIT_BUDGETS["items"])
                    self._send_patch(state, everything=True)
        elif kind == "expand":  # the folded notice asks for the whole transcript
            with self.run.reading() as state:
                self._expanded = True
                self._folded = frozenset()
                self._send_patch(state, everything=True)
        elif kind in CARD_MESSAGES:
            self._decide(kind, content, targets)
        elif kind == "decide_every":
            self._decide_every(content["act"], content["expected"])
        elif kind == "pending_page":
            self._show_page(content["page"])
        elif kind == "answer":
            self._answer(content["interrupt_id"], content["value"])
        elif kind == "open_file":
            self.send(self._file_message(content.get("path", "")))
        elif kind == "refresh_tasks":
            self._refresh_tasks()
        elif kind in ("threads", "show_thread"):
            self.send(self._thread_message(kind, content))
        elif kind == "fork" and step is not None:
            self.send(self._fork(step))
        elif kind in ("follow_up", "steer"):
            self.send(self._compose(kind, content["prompt" if kind == "follow_up" else "message"]))
        elif kind in STEP_MESSAGES:  # the Graph tab and the step state panel
            self.send(self._step_reply(kind, content))

    def _compose(self, kind: str, text: str) -> dict[str, Any]:
        """What the box sent: a follow-up on the thread (the view goes on with the new run) or a
        message for the running agent. The reply says why it was refused, in one line."""
        reply: dict[str, Any] = {"type": "composed", "kind": kind, "error": ""}
        what = "follow-up" if kind == "follow_up" else "message"
        try:
            if not text.strip():
                raise DeepnbError(f"Type the {what} first: the box is empty.")
            if kind == "steer":
                self.run.steer(text)
            else:
                self._continue_with(self.run.follow_up(text))
        except DeepnbError as exc:
            reply["error"] = redact(str(exc))
        except Exception as exc:  # shown under the box rather than lost in the kernel log
            reply["error"] = redact(f"Could not send the {what}: {type(exc).__name__}: {exc}")
        return reply

    def _own_step(self, step: Any) -> int:
        """``step``, refused unless it is a step the run's main agent wrote (on its timeline)."""
        if step not in {record["step"] for record in self.run.timeline if record["step"] is not None}:
            raise DeepnbError("Refused a 'fork' message: its step is not one this run wrote.")
        return int(step)

    def _fork(self, step: int) -> dict[str, Any]:
        """Fork the run's thread at one of the steps it wrote; the reply names the new thread."""
        reply: dict[str, Any] = {"type": "forked", "step": step, "thread_id": "", "error": ""}
        session = cast(Session, self.run.workbench)
        try:
            reply["thread_id"] = session.fork(self.run.thread_id, step)
        except DeepnbError as exc:
            reply["error"] = redact(str(exc))
        return reply

    def _pending(self, *, whole: bool = False) -> list[dict[str, Any]]:
        """The approval cards as the front-end has them: this page, ``clipped`` where shortened
        (with ``whole``: every pending interrupt with all its actions, unshortened)."""
        with self.run.reading() as state:
            pending = copy.deepcopy(state.pending)
        if whole:
            return [dict(request) for request in pending]
        return bounded_pending(page_of(pending, self._page)[0])

    def _show_page(self, page: int) -> None:
        """The front end asks for another page of approval cards."""
        with self.run.reading() as state:
            self._page = max(page, 0)
            pending, info = page_of([public_pending(p) for p in state.pending], self._page)
            self._page = info["page"]
            with self.hold_sync():
                self.pending = bounded_pending(pending)
                self.pending_page = dict(info)
            self._sent_live["pending"] = self.pending
            self._sent_live["pending_page"] = self.pending_page

    def _decide_every(self, act: str, expected: int) -> None:
        """Approve all or Reject all: every undecided action that allows it, on every page, once
        the count matches what the button said (else nothing, and the view shows the new count)."""
        if act not in ("approve", "reject"):
            self._refuse("every", f"Approve all or Reject all, not {act!r}: nothing was sent.")
            return
        decision = act
        targets = [
            r
            for r in self.run.pending
            if isinstance(r, ApprovalRequest) and decision in r.allowed  # undecided, read once
        ]
        if len(targets) != expected:
            self._refuse(
                "every",
                f"{len(targets):,} actions wait for {decision} now, not {expected:,}: nothing was sent. "
                "Look at the cards again.",
            )
            return
        outcomes = [self._try(r.interrupt_id, r.index, {"type": decision}, fresh=True) for r in targets]
        self._record([("every", None), *outcomes])

    def _refuse(self, key: str, error: str) -> None:
        self._record([(key, error)])

    def _file_message(self, path: str) -> dict[str, str]:
        """A file of the thread, for the front-end's file panel: escaped, secrets removed."""
        reply = {"type": "file", "path": path, "text": "", "html": "", "error": ""}
        try:
            rendered = render_file(path, self.run.files.read_bytes(path))
        except KeyError:
            reply["error"] = f"{path} is not in the thread's files (any more)."
        except Exception as exc:  # shown in the panel rather than lost in the kernel log
            reply["error"] = redact(f"Could not read {path}: {exc}")
        else:
            reply["text"], reply["html"] = rendered.text, rendered.html
        return _bounded_file(reply, rendered if not reply["error"] else None)

    def _thread_message(self, kind: str, content: Mapping[str, Any]) -> dict[str, Any]:
        """The thread switcher's list, or one thread's latest state (read-only), from the session."""
        session = self.run.workbench
        if not isinstance(session, Session):
            return {
                "type": "threads" if kind == "threads" else "thread",
                "threads": [],
                "html": "",
                "error": "This agent does not list its threads.",
            }
        if kind == "threads":
            return threads_message(session)
        return thread_message(session, content["thread_id"])

    def _refresh_tasks(self) -> None:
        """Ask the Agent Protocol server for the async tasks' current status."""
        try:
            refreshed = run_sync(refresh_tasks(self.run.workbench, self.run.thread_id))
        except DeepnbError as exc:
            self.async_error = str(exc)
            return
        except Exception as exc:  # shown on the panel rather than lost in the kernel log
            self.async_error = redact(f"Could not refresh the async tasks: {type(exc).__name__}: {exc}")
            return
        self.async_error = refreshed.note  # "", or why some tasks are as last seen
        self.run.emit(ev.AsyncTasksChanged(ev.MAIN, {row["task_id"]: row for row in refreshed.rows}))

    def _decide(self, kind: str, content: dict[str, Any], targets: list[int]) -> None:
        """A decision from a card, checked against it. A refused one is explained on that
        card; nothing is sent."""
        interrupt_id = content["interrupt_id"]
        # the thread's state was read once as the message came in (a remote agent's is a request
        # over the network): the decisions go on what it said, not one read each
        if kind == "approve_all":
            outcomes = [self._try(interrupt_id, n, {"type": "approve"}, fresh=True) for n in targets]
        elif kind == "always":
            (index,) = targets
            tool = content["tool"]
            outcomes = [self._try(interrupt_id, index, {"type": "approve"}, fresh=True)]
            if outcomes[0][1] is None:  # the rule is kept only once its own decision went through
                self.run.workbench.always_approve(self.run.thread_id, tool)
                others = [
                    (r.interrupt_id, r.index)
                    for r in self.run.pending  # read once more: what waits now, on every interrupt
                    if isinstance(r, ApprovalRequest) and r.name == tool
                ]
                outcomes += [self._try(i, n, {"type": "approve"}, fresh=True) for i, n in others]
        else:
            (index,) = targets
            outcomes = [self._try(interrupt_id, index, dict(content["decision"]), from_card=True)]
        self._record(outcomes)

    def _answer(self, interrupt_id: str, value: Any) -> None:
        """A raw interrupt's answer from its card; a refusal is shown on that card."""
        try:
            self.run.answer(interrupt_id, value)
        except DeepnbError as exc:
            self._record([(f"{interrupt_id}:answer", str(exc))])
        except Exception as exc:  # shown on the card rather than lost in the kernel log
            self._record(
                [(f"{interrupt_id}:answer", f"Could not send the answer: {type(exc).__name__}: {exc}")]
            )
        else:
            self._record([(f"{interrupt_id}:answer", None)])

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
            (
                r
                for r in self.run.pending
                if isinstance(r, ApprovalRequest) and (r.interrupt_id, r.index) == (interrupt_id, index)
            ),
            None,
        )
        return args if request is None else restore_hidden(args, request.args)

    def _try(
        self,
        interrupt_id: str,
        index: int,
        decision: dict[str, Any],
        *,
        from_card: bool = False,
        fresh: bool = False,
    ) -> tuple[str, str | None]:
        key = f"{interrupt_id}:{index}"
        try:
            if from_card and decision.get("type") == "edit":
                args = self._restore_hidden(interrupt_id, index, decision.get("args"))
                decision = {**decision, "args": args}
            self.run.decide(interrupt_id, index, decision, refresh=not fresh)
        except DeepnbError as exc:
            return key, str(exc)
        except Exception as exc:  # shown on the card rather than lost in the kernel log
            return key, f"Could not send the decision: {type(exc).__name__}: {exc}"
        return key, None


def _card_key(content: Any) -> str:
    """Where a refusal of ``content`` is shown: the card it names ("interrupt id:index", as the
    front-end keys it), else ``"message"``."""
    if isinstance(content, dict) and content.get("type") == "answer":
        return f"{content.get('interrupt_id')}:answer"
    if not isinstance(content, dict) or content.get("type") not in (*CARD_MESSAGES, "decide_every"):
        return "message"
    if content.get("type") == "decide_every":
        return "every"
    index = 0 if content.get("type") == "approve_all" else content.get("index")
    return f"{content.get('interrupt_id')}:{index}"


PEEK_LIMIT = 16_000
"""Characters of a file the run view's peek panel shows; the file browser shows the rest."""


def _bounded_file(reply: dict[str, str], rendered: Any) -> dict[str, str]:
    """A file reply that fits in one message: a large file's beginning, and where to read it all."""
    if rendered is None or size(reply) <= MESSAGE_LIMIT - 1024:
        return reply
    path = reply["path"]
    note = (
        f"{path} is {rendered.size:,} bytes; this shows its beginning. "
        f"%deepagent files {path} or run.files[{path!r}] has all of it."
    )
    if rendered.kind in ("image", "binary") or not rendered.text:
        return {**reply, "text": "", "html": f'<p class="dnb-muted">{escape(note)}</p>'}
    head = rendered.text[:PEEK_LIMIT]
    html = render_file(path, head.encode()).html
    if len(html) > 3 * PEEK_LIMIT:  # markup-heavy: show it plain
        html = f"<pre>{escape(head)}</pre>"
    return {**reply, "text": head, "html": f'{html}<p class="dnb-muted">{escape(note)}</p>'}
