"""The live run view: transcript with tool-call cards, todos, progress and a Stop button.

This module is its transport: the synced traits within their budgets, the patches of what
changed, the throttled flushes and the full send at a run's end. What the front end asks of it
(decide, stop, fork, open a file, ...) is :mod:`deepnb.views.run.run_actions`."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import anywidget
import traitlets as t

from deepnb.core import clock as clocks
from deepnb.core import events as ev
from deepnb.core.failures import contained
from deepnb.core.graphs.structured import output_rows
from deepnb.core.loop import run_sync
from deepnb.core.schema import RUNNING, RunStateJSON, TranscriptItem
from deepnb.core.text.markup import code_css
from deepnb.engine.state import RunState, public_pending
from deepnb.views.bounds import (
    MESSAGE_LIMIT,
    TRAIT_BUDGETS,
    bounded_lists,
    clip_item,
    size,
    split_patch,
)
from deepnb.views.run.approval_pages import page_of
from deepnb.views.run.collapse import fold, hidden_ids
from deepnb.views.run.opening import Opening
from deepnb.views.run.run_actions import RunActions
from deepnb.views.run.step_actions import StepActions
from deepnb.views.run.timeline_view import timeline_payload
from deepnb.views.run.turns import cell_line, turns_of
from deepnb.views.shared_code import LOADER, code_refs, code_trait
from deepnb.views.throttle import Throttle

if TYPE_CHECKING:
    from deepnb.session.run import Run  # at run time the views only read a run they are given

_SYNCED = (
    "status",
    "error",
    "items",
    "todos",
    "progress",
    "pending",
    "decisions",
    "files_changed",
    "files_not_written",
    "tree",
    "async_tasks",
    "given",
)
_LIVE = tuple(name for name in _SYNCED if name not in ("items", "tree"))
TIMELINE_EVERY = 1.0
"""Seconds between the timeline's updates while a run streams."""
LIVE_ITEMS = 120
"""Transcript items a streaming view holds at most before its old steps are folded again. Each
token costs the browser a style, layout and paint pass over the page, which grows with the
transcript's nodes: at 300 items a 2,000-step run's frames often took two (bench/browser_stream.py)."""


class RunView(RunActions, StepActions, anywidget.AnyWidget):
    """Shows one run as it streams. Updates reach the front-end at most 20 times a second.

    While the run streams, each update is one ``{"type": "patch"}`` message carrying only the
    transcript items that changed (and the other fields that changed), so its cost does not grow
    with the transcript. When the run stops (done, failed, stopped or waiting for approval) the
    traits are set in full, so a saved notebook keeps the final state.

    No message is larger than :data:`~deepnb.views.bounds.MESSAGE_LIMIT`: traits hold a bounded
    form of the state (a long transcript folded to its latest items, see
    :mod:`deepnb.views.run.collapse`, whose notice asks for the rest with ``{"type": "expand"}``),
    and a large patch goes out in parts.
    """

    _esm = LOADER  # the bundle and styles come once per kernel, see deepnb.views.shared_code
    _code = code_trait()

    agent = t.Unicode("", help="The agent's name.").tag(sync=True)
    thread_id = t.Unicode("", help="The thread the run writes to.").tag(sync=True)
    status = t.Unicode(RUNNING, help="running, interrupted, done, error or cancelled.").tag(sync=True)
    error = t.Unicode("", help="The failure's one-line description, secrets removed.").tag(sync=True)
    items: t.List[dict[str, Any]] = t.List(
        help="Transcript items: prompt, text, tool, notice and error."
    ).tag(sync=True)
    todos: t.List[dict[str, Any]] = t.List(help="The agent's todo list: {content, status}.").tag(sync=True)
    progress = t.Dict(help="steps, tool_calls, tokens_in/out, elapsed, started_at.").tag(sync=True)
    pending: t.List[dict[str, Any]] = t.List(
        help="Interrupts waiting for decisions: {id, agent, actions: [{index, name, args, args_json, "
        "description, allowed, preview, decision, clipped}]}; within its budget, a card's long texts "
        "are shortened and ``clipped`` says its arguments were."
    ).tag(sync=True)
    pending_page: t.Dict[str, Any] = t.Dict(
        help="Which approval cards ``pending`` holds, a page of them: {page, pages, first, last, cards, "
        "undecided, approvable, rejectable} (deepnb.views.run.approval_pages.PageInfo)."
    ).tag(sync=True)
    decisions: t.List[dict[str, Any]] = t.List(
        help="The decision log: {at, tool, type, message, args, auto}."
    ).tag(sync=True)
    card_errors = t.Dict(
        help='Why a decision from a card was refused, by "interrupt id:index" (a front-end message '
        'that answers no card: by "message"); nothing was sent.'
    ).tag(sync=True)
    files_changed: t.List[str] = t.List(help="Paths written or deleted during the run.").tag(sync=True)
    files_not_written: t.List[str] = t.List(
        help="Paths of file calls answered without running (reject, respond, stop)."
    ).tag(sync=True)
    tree: t.List[dict[str, Any]] = t.List(
        help="Subagent nodes in start order: {id, parent, name, label, description, source, status, "
        "started_at, finished_at, tool_calls, tokens_in, tokens_out, activity, result, children}."
    ).tag(sync=True)
    async_tasks: t.List[dict[str, Any]] = t.List(
        help="The thread's async subagent tasks: {task_id, agent_name, thread_id, run_id, status, ...}."
    ).tag(sync=True)
    given: t.Dict[str, Any] = t.Dict(
        help="What the agents were given: skills [{name, description, agent}] and memory files "
        "[{path, agent}] loaded into their prompts, and tools {agent: [names]} each can call."
    ).tag(sync=True)
    async_error = t.Unicode(
        "", help="Why the last on-demand refresh of async tasks failed, or left some as last seen."
    ).tag(sync=True)
    live_controls = t.Bool(
        True, help="Whether Stop works while the cell runs (the kernel handles widget events)."
    ).tag(sync=True)
    stop_hint = t.Unicode("", help="Shown beside Stop when it cannot work mid-cell.").tag(sync=True)
    code_css = t.Unicode("", help="Styles for highlighted code.").tag(sync=True)
    output: t.List[list[str]] = t.List(
        help="The run's structured output (run.output) as [field, value] rows, set when it ends."
    ).tag(sync=True)
    revision = t.Int(0, help="Counts full syncs; live patches before one are superseded by it.").tag(
        sync=True
    )
    turns: t.List[dict[str, Any]] = t.List(
        help="The conversation's turns above the one shown, once a follow-up from the box moved the "
        "view on: {run_id, prompt, status, head, answer_html, error} (deepnb.views.run.turns)."
    ).tag(sync=True)
    follow_up_cell = t.Unicode(
        "", help="The first line of a cell that sends a follow-up on this thread, once the box sent one."
    ).tag(sync=True)
    timeline = t.Dict(
        help="The waterfall of model and tool calls: {thread, lanes: [{agent, label}], bars: [{kind, lane, "
        "name, start, end, label, step?}], total, left_out} (deepnb.views.run.timeline_view)."
    ).tag(sync=True)
    graph_path = t.Dict(
        help="The run's path through its agent's graph, once the Graph tab drew it: {active, visits, "
        "edges, tools, failed} (run.graph_path, bounded by deepnb.views.run.graph_tab.bounded_path)."
    ).tag(sync=True)

    def __init__(self, run: Run, *, live_controls: bool = True, **kwargs: Any) -> None:
        with run.reading() as live:  # what the view opens with, and what it then counts as sent
            state = run.snapshot().state
            self._page = 0  # the page of approval cards the front end shows
            self._folded = hidden_ids(live.items, budget=TRAIT_BUDGETS["items"])
            self._expanded = False  # "show all" asked for: live folding stops
            traits, _ = self._bounded_traits(live, state)
            self._note_sent(live, state)
        pending = traits.pop("pending")  # sent after the opening, which it would make too large
        super().__init__(
            **traits,
            agent=run.state.agent,  # redacted when the run began
            thread_id=run.state.thread_id,
            live_controls=live_controls,
            stop_hint="" if live_controls else "Stop needs the kernel's interrupt (■) here.",
            code_css=code_css(".deepnb"),
            _code=code_refs("run_view"),
            **kwargs,
        )
        self.pending = pending
        self.output = _rows(run)
        self.run = run
        self.runs = [run]
        """The view's turns, oldest first: the run it was made for, then the follow-ups its box
        sent (``self.run`` is the newest, the one it streams)."""
        self.flushes = 0
        self._full_version: int | None = None
        self._timeline_sent: int | None = None
        self._timeline_at = 0.0
        self._turn_listeners: list[Callable[[Run], None]] = []
        self.graph_scene: dict[str, Any] | None = None
        """The agent's graph as the Graph tab drew it (``None`` until it was opened)."""
        self._graph_listeners: list[Callable[[], None]] = []
        self._path_sent: int | None = None
        self._clock = clocks.current()
        self._throttle = Throttle(self._flush, clock=self._clock)
        self._sync_timeline()
        self.on_msg(self._on_front_end_message)
        self._watch(run)

    def _watch(self, run: Run) -> None:
        """Follow ``run``'s events; its last state is sent in full when it stops."""
        self._unsubscribe = run.subscribe(self._on_event)
        self._unwatch_end = run.when_ended(self._throttle.poke)
        if run.done:
            self._throttle.poke()

    def on_turn(self, listener: Callable[[Run], None]) -> None:
        """Call ``listener`` with each follow-up the view goes on with (the output that shows it
        updates its static snapshot)."""
        self._turn_listeners.append(listener)

    def _continue_with(self, later: Run) -> None:
        """Go on with ``later``, a follow-up on the view's thread: the turns before it stay above
        (``turns``), ``later`` streams below with every control of the view, sent in full first.
        Done on the engine loop, where the view's flushes run, so none of them sees half of it."""

        async def switch() -> None:
            self._switch(later)

        run_sync(switch())
        for listener in list(self._turn_listeners):
            contained(listener, later, what="a run view's follow-up listener")

    @classmethod
    def opening(cls, agent: str, prompt: str, *, live_controls: bool = True) -> RunView:
        """A view of a run about to start (``agent`` on ``prompt``), shown before the run
        exists, while the agent stack loads; :meth:`attach` gives it the run."""
        # an Opening reads as a run does, and is never driven: attach() replaces it
        return cls(cast("Run", Opening(agent, prompt)), live_controls=live_controls)

    def attach(self, run: Run) -> None:
        """Stream ``run`` in this view made by :meth:`opening`, in the opening's place. Done on
        the engine loop, where the view's flushes run."""

        async def switch() -> None:
            self._switch(run, follow_up=False)

        run_sync(switch())
        self._throttle.poke()  # what came between the full send and the subscription

    def _switch(self, later: Run, *, follow_up: bool = True) -> None:
        """Go on with ``later``: a follow-up, the earlier runs kept above it, or (not
        ``follow_up``) the run an opening view stood for, in its place."""
        self._unsubscribe()
        self._unwatch_end()
        self.runs = [*self.runs, later] if follow_up else [later]
        with later.reading() as live:
            self.run = later
            self._page, self._expanded = 0, False
            self._timeline_sent, self._timeline_at = None, 0.0
            with self.hold_sync():
                self.agent, self.thread_id = later.state.agent, later.state.thread_id
                if follow_up:
                    self.turns = [dict(turn) for turn in turns_of(self.runs)]
                    self.follow_up_cell = cell_line(
                        later.state.agent, later.state.thread_id, auto_approve=later.auto_approve
                    )
                    self.card_errors = {}
                    self.live_controls, self.stop_hint = True, ""  # sent from the box: no cell runs
            self._send_in_full(later.snapshot().state)
            self._full_version = None if live.status == RUNNING else live.version
        self._sync_timeline()
        self._sync_path(force=True)
        self._watch(later)

    def _on_event(self, _event: ev.Event) -> None:
        self._throttle.poke()

    def _sync_timeline(self) -> None:
        """Send the timeline when its calls changed since it was last sent: while the run runs,
        once a second at most (it is a chart, not the transcript)."""
        version, now = self.run.timeline_version, self._clock.now()
        if version == self._timeline_sent:
            return
        if self.run.state.status == RUNNING and now - self._timeline_at < TIMELINE_EVERY:
            return  # the next event's flush (or the run's end) sends it
        self._timeline_sent, self._timeline_at = version, now
        self.timeline = timeline_payload(
            self.run.timeline, thread=self.run.state.thread_id, waited=self.run.state.waited
        )

    def _flush(self) -> None:
        self._sync_timeline()
        self._sync_path()
        with self.run.reading() as state:
            if state.status != RUNNING:
                if state.version == self._full_version:  # already sent in full, nothing new
                    return
                self._full_version = state.version
                self._send_in_full(self.run.snapshot().state)
            else:
                self._full_version = None
                self._refold_if_long(state)
                self._send_patch(state)
        self.flushes += 1

    def _refold_if_long(self, state: RunState) -> None:
        """While a long run streams, fold its old steps again once the view holds more than
        :data:`LIVE_ITEMS` items, so the browser keeps a few hundred items however long the run
        (unless the person asked for all of them with "show all")."""
        # counted with what this flush adds: on a busy kernel a flush may bring a hundred items
        showing = len(state.items) - len(self._folded)  # the folded ids are items of the run
        if not self._expanded and showing > LIVE_ITEMS:
            self._folded = hidden_ids(state.items, budget=TRAIT_BUDGETS["items"])

    def _bounded_traits(
        self, run_state: RunState, state: RunStateJSON
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The synced traits' values, each within its budget, and the tree nodes left for a patch."""
        paged, traits_page = page_of(state["pending"], self._page)
        fields: Mapping[str, Any] = {**state, "pending": paged}  # read by the names of the traits
        traits = {name: fields[name] for name in _SYNCED}
        traits.update({k: v for k, v in bounded_lists(fields).items() if k in _SYNCED})
        traits["pending_page"] = traits_page
        traits["items"] = [self._public(item) for item in self._visible(run_state.items)]
        nodes, spent = [clip_item(node) for node in state["tree"]], 0
        for count, node in enumerate(nodes):  # the tree in start order, as much as fits
            spent += size(node)
            if spent > TRAIT_BUDGETS["tree"]:
                traits["tree"] = nodes[:count]
                return traits, nodes[count:]
        traits["tree"] = nodes
        return traits, []

    def _visible(self, items: Sequence[TranscriptItem]) -> Sequence[Mapping[str, Any]]:
        """The transcript as the view shows it: folded items behind notices that expand it."""
        if not self._folded:
            return items
        return [
            {**item, "expand": True} if item.get("level") == "collapsed" and "hidden" in item else item
            for item in fold(items, self._folded)
        ]

    @staticmethod
    def _public(item: Mapping[str, Any]) -> dict[str, Any]:
        # a transcript item, or the notice standing for folded ones (which has an item's shape)
        return clip_item(RunState.public_item(cast(TranscriptItem, item)))

    def _note_sent(self, run_state: RunState, state: RunStateJSON) -> None:
        """Remember what the front-end has now, so the next patch carries only what changed."""
        visible = self._visible(run_state.items)
        self._sent_items = {i["id"]: dict(i) for i in visible}
        self._sent_ids = [i["id"] for i in visible]
        self._sent_nodes = {n["id"]: n for n in state["tree"]}
        fields: Mapping[str, Any] = state  # read by the names of the traits
        self._sent_live = {name: fields[name] for name in _LIVE}
        self._sent_live["pending_raw"] = copy.deepcopy(run_state.pending)

    def _send_in_full(self, state: RunStateJSON) -> None:
        # Patches changed the front-end's copy but not these traits, so send all of them even
        # where a trait still equals the new value: in as few messages as fit, the revision last.
        run_state = self.run.state
        self._folded = hidden_ids(run_state.items, budget=TRAIT_BUDGETS["items"])
        traits, rest = self._bounded_traits(run_state, state)
        self._holding_sync = True
        try:
            for name, value in traits.items():
                setattr(self, name, value)
            self.revision += 1
        finally:
            self._holding_sync = False
            self._states_to_send.clear()
        groups: list[list[str]] = [[]]
        spent = 0
        for name in (*_SYNCED, "pending_page", "revision"):
            cost = size(getattr(self, name))
            if groups[-1] and spent + cost > MESSAGE_LIMIT - 4096:
                groups.append([])
                spent = 0
            groups[-1].append(name)
            spent += cost
        for group in groups:
            self.send_state(group)
        self.output = _rows(self.run)  # sent when it changed
        self._note_sent(run_state, state)
        if rest:  # tree nodes past the trait's budget
            for part in split_patch({"type": "patch", "state": {}, "upsert": [], "nodes": rest}):
                self.send(part)

    def _send_patch(self, state: RunState, *, everything: bool = False) -> None:
        """What changed since the last patch (everything, for a new view), in one message or,
        when that would be too large, in several."""
        visible = self._visible(state.items)
        changed = [item for item in visible if everything or self._sent_items.get(item["id"]) != item]
        ids = [item["id"] for item in visible]
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
            "files_not_written": state.not_written(),
            "async_tasks": state.async_tasks,
            "given": state.given,
        }
        if everything or state.pending != self._sent_live.get("pending_raw"):
            live["pending"], live["pending_page"] = page_of(
                [public_pending(p) for p in state.pending], self._page
            )
            live["decisions"] = [dict(d) for d in state.decisions]
        live = bounded_lists(live)
        patch: dict[str, Any] = {
            "type": "patch",
            "state": {k: v for k, v in live.items() if everything or self._sent_live.get(k) != v},
            "upsert": [self._public(item) for item in changed],
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
        if size(patch) <= MESSAGE_LIMIT:  # the usual case
            self.send(patch)
        else:
            by_id = {item["id"]: item for item in visible}
            for part in split_patch(patch, lambda i: self._public(by_id[i])):
                self.send(part)
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

    def stop(self) -> None:
        """What the Stop button does."""
        self.run.stop()

    def close(self) -> None:
        self._unsubscribe()
        self._unwatch_end()
        super().close()


def _rows(run: Run) -> list[list[str]]:
    """``run.output`` as the ``output`` trait's rows (none until the run has it, at its end)."""
    return [list(row) for row in output_rows(run.output)]
