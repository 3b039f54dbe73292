"""Workbenches: an agent, its checkpointer and its threads; and the registry of them by name."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NoReturn

from deepnb import claims
from deepnb._loop import run_sync
from deepnb.checkpoint import CheckpointerSpec, database_key, make_checkpointer
from deepnb.errors import DeepnbError
from deepnb.files import Files
from deepnb.run import Run
from deepnb.safe_display import safe_display
from deepnb.spec import AgentSpec, model_label
from deepnb.tree import SubagentNode

DEFAULT_AGENT = "default"


def new_thread_id() -> str:
    return uuid.uuid4().hex[:12]


@dataclass(frozen=True)
class ThreadInfo:
    """A thread of a workbench: its id, when it last changed, and how many steps it holds."""

    thread_id: str
    updated_at: str
    steps: int


@safe_display
class Workbench:
    """An agent with a checkpointer and threads. ``run()`` sends it a prompt."""

    def __init__(
        self,
        name: str,
        graph: Any,
        checkpointer: Any,
        *,
        spec: AgentSpec | None = None,
        label: str = "",
        origin: str | None = None,
    ) -> None:
        self.name = name
        self.graph = graph
        self.checkpointer = checkpointer
        self.spec = spec
        """What was built: the declared spec (``spec.declared``) plus what extensions added."""
        self.origin = origin
        """The config file that defines this agent (``deepnb.toml``, ``pyproject.toml``), if any."""
        self.extensions: Any = None
        """The extension registrations the agent was built with (``deepnb.extensions.hosting.Applied``)."""
        self.label = label or (spec.model_label if spec else type(graph).__name__)
        self._current_thread: str | None = None
        self.database = database_key(checkpointer)
        """Which database holds the threads: runs on one thread of it are one at a time, whatever
        agent starts them (:mod:`deepnb.claims`)."""
        self._latest: dict[str, Run] = {}
        self._always: dict[str, set[str]] = {}
        self._lock = threading.Lock()

    # -- threads ----------------------------------------------------------------------------

    @property
    def _active(self) -> dict[str, Run]:
        """The runs holding threads of this workbench's database now, by thread id."""
        return claims.held(self.database)

    @property
    def declared_spec(self) -> AgentSpec | None:
        """The spec as written, before extensions added to it (``None`` for an attached graph)."""
        return None if self.spec is None else (self.spec.declared or self.spec)

    @property
    def current_thread(self) -> str:
        """The thread runs go to by default: the most recent one, or a new one."""
        if self._current_thread is None:
            existing = self.threads()
            self._current_thread = existing[0].thread_id if existing else new_thread_id()
        return self._current_thread

    def use_thread(self, thread_id: str) -> str:
        self._current_thread = thread_id
        return thread_id

    def new_thread(self) -> str:
        """Start a fresh thread and make it the current one."""
        return self.use_thread(new_thread_id())

    def threads(self) -> list[ThreadInfo]:
        """This workbench's threads, the most recently updated first."""
        latest: dict[str, ThreadInfo] = {}

        async def collect() -> None:
            async for item in self.checkpointer.alist(None):
                configurable = item.config.get("configurable", {})
                if configurable.get("checkpoint_ns"):
                    continue
                thread_id = str(configurable.get("thread_id"))
                ts = str(item.checkpoint.get("ts", ""))
                if thread_id not in latest or ts > latest[thread_id].updated_at:
                    step = int((item.metadata or {}).get("step", 0))
                    latest[thread_id] = ThreadInfo(thread_id, ts, step)

        run_sync(collect())
        starting = [t for t in self._active if t not in latest]  # no first checkpoint yet
        now = datetime.now(UTC).isoformat()
        latest.update({t: ThreadInfo(t, now, 0) for t in starting})
        return sorted(latest.values(), key=lambda t: t.updated_at, reverse=True)

    def state_values(self, thread_id: str | None = None) -> Mapping[str, Any]:
        """The thread's current state values (``messages``, ``todos``, ``files``, …)."""
        config = {"configurable": {"thread_id": thread_id or self.current_thread}}
        snapshot = run_sync(self.graph.aget_state(config))
        return snapshot.values or {}

    def files(self, thread_id: str | None = None) -> Files:
        """The thread's files: a mapping of path → text with ls, glob, grep, write, edit, …"""
        return Files(self, thread_id or self.current_thread)

    def todos(self, thread_id: str | None = None) -> list[dict[str, str]]:
        return [dict(t) for t in self.state_values(thread_id).get("todos") or []]

    # -- runs -------------------------------------------------------------------------------

    def latest_run(self, thread_id: str | None = None) -> Run | None:
        """The newest run this kernel started (or resumed) on the thread, whatever its status."""
        with self._lock:
            return self._latest.get(thread_id or self.current_thread)

    def tree(self, thread_id: str | None = None) -> SubagentNode:
        """The subagent tree of the thread's latest run; after a restart, the top-level ``task``
        calls read back from the thread's messages."""
        from deepnb.tree import tree_from_messages

        thread = thread_id or self.current_thread
        run = self.latest_run(thread)
        if run is not None:
            return run.tree
        if thread not in {info.thread_id for info in self.threads()}:
            raise DeepnbError(
                f"Agent {self.name!r} has no thread {thread!r}: %deepagent threads lists its threads."
            )
        return tree_from_messages(self.state_values(thread).get("messages") or [], root_name=self.name)

    def active_run(self, thread_id: str | None = None) -> Run | None:
        """The run holding the thread now, started by this agent or another on its database."""
        return claims.holder(self.database, thread_id or self.current_thread)

    def start(
        self,
        prompt: str,
        *,
        thread: str | None = None,
        new_thread: bool = False,
        auto_approve: bool = False,
    ) -> Run:
        """Start a run on a thread and return at once. One run per thread at a time."""
        if new_thread and thread:
            raise DeepnbError("Use either -t THREAD or --new, not both.")
        thread_id = new_thread_id() if new_thread else (thread or self.current_thread)
        run = Run(self, thread_id, prompt)
        busy = claims.claim(self.database, run)
        if busy is not run:
            holder = busy.workbench.name
            if busy.status == "interrupted":
                raise DeepnbError(
                    f"Thread {thread_id!r} of agent {holder!r} is waiting for your approval ({busy.id}): "
                    "decide on its cards (or %deepagent approvals), stop it with %deepagent stop, "
                    "or start another thread with --new."
                )
            raise DeepnbError(
                f"Thread {thread_id!r} of agent {holder!r} is already running ({busy.id}). "
                "Wait for it, stop it with %deepagent stop, or start another thread with --new."
            )
        with self._lock:
            self._latest[thread_id] = run
        try:
            graph_input = self._input_for(thread_id, prompt)
            run.start(self.graph, graph_input, auto_approve=auto_approve)
        except BaseException:
            self._release(run)
            raise
        self.use_thread(thread_id)
        return run

    def run(self, prompt: str, *, background: bool = False, **options: Any) -> Run:
        """Run ``prompt``; wait for the end unless ``background``. Ctrl-C stops the run."""
        run = self.start(prompt, **options)
        return run if background else run.follow()

    def _input_for(self, thread_id: str, prompt: str) -> Any:
        """The graph input: the prompt, or ``None`` to continue a failed or stopped run of the
        same prompt from its last checkpoint."""
        snapshot = run_sync(self.graph.aget_state({"configurable": {"thread_id": thread_id}}))
        if snapshot.next and not snapshot.interrupts:
            humans = [m for m in snapshot.values.get("messages", []) if getattr(m, "type", "") == "human"]
            if humans and humans[-1].content == prompt:
                return None
        return {"messages": [{"role": "user", "content": prompt}]}

    def always_approved(self, thread_id: str) -> frozenset[str]:
        """Tools approved without asking on this thread ("always approve" on a card)."""
        with self._lock:
            return frozenset(self._always.get(thread_id, ()))

    def always_approve(self, thread_id: str, tool: str) -> None:
        with self._lock:
            self._always.setdefault(thread_id, set()).add(tool)

    def pending_run(self, thread_id: str | None = None) -> Run:
        """The run waiting for approval on a thread: the one in memory, or, after a kernel
        restart, a run rebuilt from the thread's checkpoint with its pending interrupts."""
        thread_id = thread_id or self.current_thread
        run = Run(self, thread_id, None)
        held = claims.claim(self.database, run)
        if held is not run:
            return held
        with self._lock:
            self._latest[thread_id] = run
        from deepnb.run import _NOTHING

        run.start(self.graph, _NOTHING)
        run.wait()
        if run.status != "interrupted":
            raise DeepnbError(
                f"Nothing on thread {thread_id!r} of agent {self.name!r} is waiting for approval."
            )
        return run

    def resume(self, thread_id: str | None = None) -> Run:
        """Continue a thread: the run waiting for approval if there is one, else the failed or
        stopped run, from its last checkpoint (in the background)."""
        thread_id = thread_id or self.current_thread
        active = claims.holder(self.database, thread_id)
        if active is not None:
            return active
        config = {"configurable": {"thread_id": thread_id}}
        snapshot = run_sync(self.graph.aget_state(config))
        if snapshot.interrupts:
            return self.pending_run(thread_id)
        if not snapshot.next:
            raise DeepnbError(
                f"Thread {thread_id!r} of agent {self.name!r} has nothing to resume: its last run ended. "
                "Send a new task in a %%deepagent cell."
            )
        run = Run(self, thread_id, None)
        held = claims.claim(self.database, run)
        if held is not run:
            return held
        with self._lock:
            self._latest[thread_id] = run
        return run.start(self.graph, None)

    def _claim(self, run: Run) -> None:
        """``run`` holds its thread again (it resumes after approval)."""
        claims.claim(self.database, run, force=True)
        with self._lock:
            self._latest[run.thread_id] = run

    def _release(self, run: Run) -> None:
        claims.release(self.database, run)

    def __repr__(self) -> str:
        return f"<Workbench {self.name!r} model={self.label!r} thread={self._current_thread!r}>"


# -- the registry ---------------------------------------------------------------------------

_registry: dict[str, Workbench] = {}
_current: list[str] = [DEFAULT_AGENT]


def register(workbench: Workbench) -> Workbench:
    _registry[workbench.name] = workbench
    return workbench


def forget_all() -> None:
    """Unregister every agent and close the database connections deepnb opened for them (a
    clean slate, e.g. between tests; threads stay in their databases). Runs already made keep
    working only on in-memory threads."""
    from deepnb import checkpoint

    retired = list(_registry.values())
    _registry.clear()
    _current[0] = DEFAULT_AGENT
    for saver in {id(w.checkpointer): w.checkpointer for w in retired}.values():
        checkpoint.close(saver)


def get(name: str | None = None, *, build: bool = True) -> Workbench:
    """The workbench registered as ``name`` (the current one by default). One the project's
    ``deepnb.toml`` defines is built on first use; with ``build=False`` (what only looks, such
    as ``%deepagent threads``) it is not, and an unbuilt one raises saying how to build it."""
    name = name or _current[0]
    found = lookup(name) if build else _registry.get(name)
    if found is None:
        _raise_unknown(name)
    return found


def _raise_unknown(name: str) -> NoReturn:
    """Say that ``name`` is not built yet (``deepnb.toml`` defines it) or is no agent at all."""
    from deepnb.config import agent_names, find_config

    defined = agent_names()
    if name in defined:
        config = find_config()
        raise DeepnbError(
            f"Agent {name!r} is defined in {config.shown if config else 'deepnb.toml'} but not built yet: "
            f"run a %%deepagent cell with -a {name} (or %deepagent resume -a {name}) to build it."
        )
    known = ", ".join(sorted({*_registry, *defined})) or "none yet"
    raise DeepnbError(
        f"No agent named {name!r} (defined: {known}). Define it with %deepagent define {name} "
        f"-m MODEL, add [agents.{name}] to deepnb.toml, or pass -m MODEL to a %%deepagent cell."
    )


def lookup(name: str) -> Workbench | None:
    """The workbench registered as ``name``; else the one ``deepnb.toml`` defines, built now
    (if the project is trusted where the agent needs it); else ``None``."""
    found = _registry.get(name)
    if found is None:
        from deepnb.config import load_agent

        found = load_agent(name)
    return found


def registered() -> dict[str, Workbench]:
    return dict(_registry)


def current_name() -> str:
    return _current[0]


def use(name: str) -> Workbench | None:
    """Make ``name`` the current agent. One ``deepnb.toml`` defines is not built here (``None``
    then): the next cell that runs it builds it."""
    workbench = _registry.get(name)
    if workbench is None:
        from deepnb.config import agent_names

        if name not in agent_names():
            _raise_unknown(name)
    _current[0] = name
    return workbench


def agent(
    name: str = DEFAULT_AGENT,
    model: Any = None,
    *,
    checkpointer: CheckpointerSpec = "memory",
    todos: bool = True,
    **options: Any,
) -> Workbench:
    """Build a deep agent and register it as ``name``.

    ``model`` is a chat model, ``provider:model``, ``scripted:PATH`` or ``demo:NAME`` (default:
    ``$DEEPNB_MODEL``); ``options`` are ``create_deep_agent``'s keyword arguments; ``checkpointer``
    is ``"memory"``, ``"sqlite:PATH"`` or a LangGraph checkpointer. An agent already registered
    under ``name`` keeps its threads when it is rebuilt.
    """
    from deepnb.models import resolve_model

    spec = AgentSpec(
        resolve_model(model),
        model_label(model) if model else "$DEEPNB_MODEL",
        options=options,
        todos=todos,
    )
    previous = _registry.get(name)
    saver = (
        previous.checkpointer if previous and checkpointer == "memory" else make_checkpointer(checkpointer)
    )
    return _install(name, spec, saver, previous)


def rebuild(workbench: Workbench, spec: AgentSpec) -> Workbench:
    """Rebuild ``workbench`` from ``spec``, keeping its checkpointer and threads."""
    return _install(workbench.name, spec, workbench.checkpointer, workbench)


def reload(name: str | None = None) -> list[Workbench]:
    """Rebuild one agent, or every agent built from a spec, with the extensions registered now
    (an agent from ``deepnb.toml`` is read from it again); threads are kept."""
    from deepnb.config import load_agent

    targets = [get(name)] if name else [w for w in _registry.values() if w.spec is not None]
    if name and targets[0].spec is None:
        raise DeepnbError(f"Agent {name!r} was attached as a compiled graph: attach it again to change it.")
    rebuilt = []
    for workbench in targets:
        if workbench.origin:
            loaded = load_agent(workbench.name, previous=workbench)
            assert loaded is not None  # with previous=, load_agent raises rather than returns None
            rebuilt.append(loaded)
        else:
            spec = workbench.declared_spec
            assert spec is not None
            rebuilt.append(_install(workbench.name, spec, workbench.checkpointer, workbench))
    return rebuilt


def _install(
    name: str, spec: AgentSpec, saver: Any, previous: Workbench | None, *, origin: str | None = None
) -> Workbench:
    """Build ``spec`` with the registered extensions and register it as ``name``."""
    from deepnb.extensions.hosting import apply

    effective, applied = apply(spec)
    graph = effective.build(name=name, checkpointer=saver)
    workbench = Workbench(name, graph, saver, spec=effective, origin=origin)
    workbench.extensions = applied
    if previous is not None and previous.checkpointer is saver:
        workbench._current_thread = previous._current_thread
        workbench._lock = previous._lock
    return register(workbench)


def attach(graph: Any, name: str = DEFAULT_AGENT, *, checkpointer: CheckpointerSpec = None) -> Workbench:
    """Register an agent you compiled yourself. Without a checkpointer of its own, it gets one
    (``"memory"`` by default) so it can keep threads."""
    if not hasattr(graph, "astream") or not hasattr(graph, "aget_state"):
        raise DeepnbError(f"{type(graph).__name__} is not a compiled LangGraph agent.")
    saver = getattr(graph, "checkpointer", None)
    if checkpointer is not None or not saver:
        saver = make_checkpointer(checkpointer)
        graph = graph.copy(update={"checkpointer": saver})
    return register(Workbench(name, graph, saver, label=type(graph).__name__))
