"""An agent's anatomy: what it was given, read from the compiled graph (``%deepagent inspect``).

For the main agent and each subagent: the middleware stack in order (who added each one and
what it does, and what the harness profile excluded), the tools the model is offered, the
interrupt rules; for the agent: the model, its LangChain profile and the deepagents harness
profile that applied (and why), the backend and its routes, memory, skills and permissions.
Everything is read from the graph itself (:mod:`deepnb.core.graphs.reading`), so an attached graph
shows as much as a built one; what cannot be read is said in ``notes``. No agent code runs.
"""

from __future__ import annotations

import contextlib
import json
import re
import weakref
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from deepnb.core.addresses import shown_url
from deepnb.core.displayable import Displayable
from deepnb.core.graphs.reading import first, is_instance, middleware_of, model_of, tools_of
from deepnb.engine.deepagents_internals import (
    declared_subagents,
    excluded_tools,
    filesystem_rules,
    harness_profile,
    harness_profiles,
    model_identity,
    supports_delete,
)
from deepnb.engine.mcp import server_of

WHY: dict[str, str] = {
    "TodoListMiddleware": "the write_todos tool and its prompt (deepnb adds it)",
    "FilesystemMiddleware": "the file tools over the backend; enforces permissions",
    "SubAgentMiddleware": "the task tool: starts subagents",
    "AsyncSubAgentMiddleware": "the async task tools: subagents on a LangGraph server",
    "_ParentNotifierMiddleware": "wakes the agent that started this one as an async subagent",
    "SummarizationMiddleware": "summarizes older messages when the context fills up",
    "PatchToolCallsMiddleware": "answers tool calls left without a result (after a stop)",
    "SkillsMiddleware": "lists the skills (skills=) in the prompt",
    "AnthropicPromptCachingMiddleware": "prompt caching (Anthropic models only)",
    "MemoryMiddleware": "loads the memory files (memory=) into the prompt",
    "HumanInTheLoopMiddleware": "pauses for approval before gated tools (interrupt_on, permissions)",
    "UnsupportedContentMiddleware": "replaces content blocks the model can't accept",
    "_ToolExclusionMiddleware": "hides the tools the harness profile excludes",
    "CodeInterpreterMiddleware": "the eval tool: a JavaScript interpreter (deepnb's --interpreter)",
    "ExtensionToolsMiddleware": "the tools extensions register (deepnb)",
    "DeepnbSteeringMiddleware": "hands the next model call what run.steer queued (deepnb)",
    "DeepnbFilesWatchMiddleware": "tells the run what its tools changed in the server's files (deepnb)",
}
"""What each middleware deepagents, LangChain or deepnb adds does, by class."""
RANK = {name: index for index, name in enumerate((
    "FilesystemMiddleware", "SubAgentMiddleware", "_ParentNotifierMiddleware",
    "SummarizationMiddleware", "PatchToolCallsMiddleware", "AsyncSubAgentMiddleware", "",
    "SkillsMiddleware", "AnthropicPromptCachingMiddleware", "MemoryMiddleware", "HumanInTheLoopMiddleware",
    "UnsupportedContentMiddleware", "_ToolExclusionMiddleware",
))}  # fmt: skip
"""``create_deep_agent``'s order, where the graph leaves two middleware unordered ("": yours,
and deepnb's ``TodoListMiddleware``, which it passes as one of yours)."""
_SECRET_FIELD = re.compile(r"key|token(?!s)|secret|passw|auth|credential|header|cookie|client", re.IGNORECASE)
"""A field that may hold a secret (``max_tokens`` and ``budget_tokens`` are counts, not tokens)."""
_SCALARS = (str, int, float, bool)
SUMMARY = 100
"""Characters of a tool's description kept."""


@dataclass(frozen=True)
class Layer:
    """One middleware of a stack: its ``name``, class, and what it is there for."""

    name: str
    kind: str
    why: str


@dataclass(frozen=True)
class AgentPart:
    """The main agent or a subagent: its middleware stack, tools and interrupt rules."""

    name: str
    role: str
    """``"main agent"``, ``"subagent"``, ``"compiled subagent"`` or ``"async subagent"``."""
    model: str = ""
    middleware: tuple[Layer, ...] = ()
    excluded: tuple[str, ...] = ()
    """Middleware the harness profile removed from the stack."""
    tools: tuple[tuple[str, str], ...] = ()
    """``(name, first line of its description)``, in the order the model is offered them."""
    hidden: tuple[tuple[str, str], ...] = ()
    """Tools in the graph the model is not offered, and why."""
    interrupts: tuple[tuple[str, str], ...] = ()
    """``(tool, decisions allowed)`` for each gated tool."""
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, repr=False)
class Anatomy(Displayable):
    """What an agent was given. Shows as text and static HTML."""

    name: str
    source: str
    """``"built by deepnb"`` or ``"attached graph (CompiledStateGraph)"``."""
    model: tuple[tuple[str, str], ...] = ()
    model_profile: tuple[tuple[str, str], ...] = ()
    harness: tuple[tuple[str, str], ...] = ()
    backend: tuple[tuple[str, str], ...] = ()
    """``(what, value)``: the backend, each route, memory, skills, permissions."""
    agents: tuple[AgentPart, ...] = ()
    notes: tuple[str, ...] = field(default=())


def inspect_agent(workbench: Any) -> Anatomy:
    """The anatomy of ``workbench``'s agent (a built or an attached one)."""
    graph = workbench.graph
    source = "built by deepnb" if workbench.spec is not None else f"attached graph ({type(graph).__name__})"
    stack = middleware_of(graph, prefer=_rank)
    if stack is None:
        nodes = ", ".join(n for n in getattr(graph, "nodes", {}) if not n.startswith("__")) or "none"
        return Anatomy(
            workbench.name,
            source,
            notes=(
                "Not a LangChain agent (no model step): its middleware, tools and model can't be read. "
                f"Its nodes: {nodes}.",
            ),
        )
    model = model_of(graph)
    profile = _harness(model)
    notes: list[str] = []
    if model is None:
        notes.append("The model is chosen per call (no model object in the graph): its profile is unknown.")
    main = _part(workbench.name, "main agent", stack, tools_of(graph) or [], profile, model, notes)
    subagents = _subagents(stack, profile)
    return Anatomy(
        name=workbench.name,
        source=source,
        model=_model_fields(model, getattr(workbench, "label", "")),
        model_profile=_pairs(getattr(model, "profile", None) or {}),
        harness=profile.rows if profile else (("harness profile", "could not be read"),),
        backend=_backend(stack) + _files_read_through(workbench, stack),
        agents=(main, *subagents),
        notes=tuple(notes),
    )


# -- the parts -----------------------------------------------------------------------------------


@runtime_checkable
class OffersTools(Protocol):
    """A middleware that says which tools the model is offered through it (deepnb's extension
    tools middleware does)."""

    def offered_tools(self, existing: list[Any]) -> list[Any]: ...

    def offer_key(self) -> Hashable:
        """What changes whenever the tools it offers do (an extension loaded or unloaded)."""
        ...


@runtime_checkable
class ListsItsTools(Protocol):
    """A graph that says itself which tools its agents run (an agent on a server, which no
    middleware stack here describes)."""

    async def listed_tools(self) -> dict[str, tuple[str, ...]]: ...


def _through(stack: Sequence[Any], offered: Sequence[Any]) -> tuple[list[Any], list[str]]:
    """The tools the model is offered once the middleware that choose them has: and the names
    whose tool one of them put in place of another of that name."""
    tools = list(offered)
    for middleware in stack:
        if isinstance(middleware, OffersTools):
            tools = middleware.offered_tools(tools)
    before = {_tool(t)[0]: t for t in offered}
    replaced = [n for n, t in ((_tool(t)[0], t) for t in tools) if n in before and before[n] is not t]
    return tools, replaced


def _part(
    name: str,
    role: str,
    stack: Sequence[Any],
    offered: Sequence[Any],
    profile: Harness | None,
    model: Any,
    notes: list[str] | None = None,
) -> AgentPart:
    layers = tuple(Layer(str(m.name), _kind(m), _why(m, profile)) for m in stack)
    offered, replaced = _through(stack, offered)
    hidden = _hidden(stack, offered)
    hitl = next((m for m in stack if _kind(m) == "HumanInTheLoopMiddleware"), None)
    rules = getattr(hitl, "interrupt_on", None) or {}
    changing = [str(m.name) for m in stack if not _known(m) and _overrides(m, "wrap_model_call")]
    part_notes = list(notes or ())
    part_notes += [f"{name} is an extension's tool, in place of the built-in one." for name in replaced]
    if changing:
        part_notes.append(f"{', '.join(changing)} may change the tools the model sees on each call.")
    return AgentPart(
        name=name,
        role=role,
        model=_label(model),
        middleware=layers,
        excluded=profile.excluded if profile else (),
        tools=tuple((n, s) for n, s in (_tool(t) for t in offered) if n not in dict(hidden)),
        hidden=hidden,
        interrupts=tuple((tool, _decisions(rule)) for tool, rule in rules.items()),
        notes=tuple(part_notes),
    )


@dataclass(frozen=True)
class _Read:
    """What :func:`tools_by_agent` read of a graph, and what it depends on besides the graph."""

    tools: dict[str, tuple[str, ...]]
    offering: tuple[OffersTools, ...]
    """The graph's middleware that choose the tools on each call (extension tools)."""
    keys: tuple[Hashable, ...]
    """What those offered when it was read."""

    def fresh(self) -> bool:
        return tuple(m.offer_key() for m in self.offering) == self.keys


_TOOLS_READ: weakref.WeakKeyDictionary[Any, _Read] = weakref.WeakKeyDictionary()
"""What :func:`tools_by_agent` read of each compiled graph: a compiled graph does not change, and
every run of it (a batch's hundred) would read it again, building each tool's schema. What its
tool-offering middleware offer can change (an extension loaded after the agent was built): the
reading is then taken again."""


def tools_by_agent(graph: Any) -> dict[str, tuple[str, ...]]:
    """The tools each agent can call: ``"main"`` and each subagent's name → tool names (what a
    run view lists; ``{}`` for a graph that isn't a LangChain agent). Harness profiles are not
    looked up: their tool exclusions are in the stacks already. Read once per graph, and again
    when the extension tools registered change."""
    try:
        read = _TOOLS_READ[graph]
        if read.fresh():
            return dict(read.tools)
    except (KeyError, TypeError):  # not read yet, or a graph that can't be weakly referenced
        pass
    stack = middleware_of(graph, prefer=_rank) or []
    offering = tuple(m for m in stack if isinstance(m, OffersTools))
    keys = tuple(m.offer_key() for m in offering)  # before reading: a change meanwhile reads again
    found = _read_tools_by_agent(graph)
    with contextlib.suppress(TypeError):
        _TOOLS_READ[graph] = _Read(found, offering, keys)
    return dict(found)


def _read_tools_by_agent(graph: Any) -> dict[str, tuple[str, ...]]:
    stack = middleware_of(graph, prefer=_rank)
    if stack is None:
        return {}
    main = _part("main", "main agent", stack, tools_of(graph) or [], None, None)
    parts = (main, *_subagents(stack, None, profiles=False))
    return {part.name: tuple(name for name, _ in part.tools) for part in parts if part.tools}


def _subagents(stack: Sequence[Any], profile: Harness | None, *, profiles: bool = True) -> list[AgentPart]:
    found: list[AgentPart] = []
    for spec in declared_subagents(first(stack, "SubAgentMiddleware")):
        name = str(spec.get("name", "?"))
        if "runnable" in spec:
            runnable = spec["runnable"]
            inner = middleware_of(runnable, prefer=_rank)
            if inner is None:
                found.append(AgentPart(name, "compiled subagent", notes=("A graph deepnb can't read into.",)))
            else:
                offered = tools_of(runnable) or []
                found.append(_part(name, "compiled subagent", inner, offered, None, model_of(runnable)))
            continue
        # create_deep_agent's processed spec: create_agent adds approval and content handling
        stack_ = list(spec.get("middleware") or ())
        extra = []
        if spec.get("interrupt_on"):
            extra.append(_Added("HumanInTheLoopMiddleware", interrupt_on=_rules(spec["interrupt_on"])))
        if not any(getattr(m, "name", "") == "UnsupportedContentMiddleware" for m in stack_):
            extra.append(_Added("UnsupportedContentMiddleware"))
        offered = [t for m in stack_ for t in getattr(m, "tools", ())] + list(spec.get("tools") or ())
        sub_profile = _harness(spec.get("model")) if profiles else None
        found.append(_part(name, "subagent", [*stack_, *extra], offered, sub_profile, spec.get("model")))
    for agent in getattr(first(stack, "AsyncSubAgentMiddleware"), "_agents", None) or ():
        where = shown_url(str(agent["url"])) if agent.get("url") else "the LangGraph server it runs on"
        found.append(
            AgentPart(
                str(agent.get("name", "?")),
                "async subagent",
                notes=(f"Graph {agent.get('graph_id')!r} at {where}: its anatomy lives on that server.",),
            )
        )
    return found


class _Added:
    """A middleware ``create_agent`` adds to a subagent when it compiles it (not built yet)."""

    def __init__(self, kind: str, **attrs: Any) -> None:
        self.name = kind
        self.kind = kind
        self.__dict__.update(attrs)


def _rules(interrupt_on: Mapping[str, Any]) -> dict[str, Any]:
    return {tool: rule for tool, rule in interrupt_on.items() if rule}


def _rank(m: Any) -> int:
    return RANK.get(_known(m), RANK[""])


def _known(m: Any) -> str:
    """The class of deepagents, LangChain or deepnb that ``m`` is (``""``: none we know): by
    class, base class, or the name it takes in the stack."""
    if isinstance(m, _Added):
        return m.kind
    names = [k.__name__ for k in type(m).__mro__] + [str(getattr(m, "name", ""))]
    return next((n for n in names if n in WHY), "")


def _kind(m: Any) -> str:
    return m.kind if isinstance(m, _Added) else type(m).__name__


_LIBRARIES = {"langchain": "LangChain's", "deepagents": "deepagents'", "langgraph": "LangGraph's"}
"""Packages whose middleware is theirs, not the user's, though deepnb has no line for it."""


def _why(m: Any, profile: Harness | None) -> str:
    if profile is not None and _kind(m) in profile.added:
        return f"added by the harness profile {profile.key!r} (or yours, in its place: same name)"
    known = _known(m)
    if known:
        return WHY[known]
    module = type(m).__module__
    if _kind(m) == "ModelFallbackMiddleware":
        models = ", ".join(_label(model) for model in getattr(m, "models", ()) or ()) or "other models"
        return f"LangChain's: when a model call fails, tries {models} in turn"
    owner = _LIBRARIES.get(module.partition(".")[0])
    return f"{owner} {type(m).__name__} ({module})" if owner else f"yours ({module})"


def _overrides(m: Any, hook: str) -> bool:
    for klass in type(m).__mro__:
        if hook in vars(klass) or f"a{hook}" in vars(klass):
            return klass.__name__ != "AgentMiddleware"
    return False


def _tool(tool: Any) -> tuple[str, str]:
    if isinstance(tool, Mapping):  # a provider's built-in tool
        name = tool.get("name") or tool.get("type") or "?"
        return str(name), "a provider built-in tool"
    description = str(getattr(tool, "description", "") or "").strip()
    line = description.splitlines()[0] if description else ""
    server = server_of(tool)
    if server is not None:  # a tool of an MCP server says whose
        line = f"MCP server {server}" + (f": {line}" if line else "")
    return str(getattr(tool, "name", "?")), line if len(line) <= SUMMARY else line[: SUMMARY - 1] + "…"


def _hidden(stack: Sequence[Any], offered: Sequence[Any]) -> tuple[tuple[str, str], ...]:
    names = {_tool(t)[0] for t in offered}
    hidden: list[tuple[str, str]] = []
    exclusion = first(stack, "_ToolExclusionMiddleware")
    for name in excluded_tools(exclusion):
        if name in names:
            hidden.append((name, "excluded by the harness profile"))
    filesystem = first(stack, "FilesystemMiddleware")
    backend = getattr(filesystem, "backend", None)
    if backend is not None:
        # deepagents' own capability checks, as FilesystemMiddleware applies them per call
        from deepagents.middleware.filesystem import supports_execution  # noqa: PLC0415  # lazy: heavy

        if "execute" in names and not supports_execution(backend):
            hidden.append(("execute", f"{type(backend).__name__} can't run commands"))
        if "delete" in names and not supports_delete(backend):
            hidden.append(("delete", f"{type(backend).__name__} can't delete files"))
    return tuple(hidden)


def _decisions(rule: Any) -> str:
    if rule is True:
        return "approve, edit, reject, respond"
    allowed = rule.get("allowed_decisions") if isinstance(rule, Mapping) else None
    return ", ".join(allowed) if allowed else "approve, edit, reject, respond"


# -- model and harness profile -------------------------------------------------------------------


def _label(model: Any) -> str:
    if model is None:
        return ""
    if isinstance(model, str):
        return model
    name = getattr(model, "model_name", None) or getattr(model, "model", None)
    return f"{type(model).__name__}({name})" if isinstance(name, str) else type(model).__name__


def _model_fields(model: Any, label: str) -> tuple[tuple[str, str], ...]:
    """The model's class and the settings it was given (non-default plain values), never a
    field whose name looks secret (keys, tokens, headers, clients)."""
    if model is None:
        return (("model", label or "unknown"),)
    rows = [("model", _label(model))]
    if label and label != _label(model):
        rows.append(("given as", label))
    fields = getattr(type(model), "model_fields", {}) or {}
    for name, info in fields.items():
        if _SECRET_FIELD.search(name) or name in ("model_name", "model", "profile", "metadata", "tags"):
            continue
        value = getattr(model, name, None)
        default = getattr(info, "default", None)
        if repr(default) == "PydanticUndefined":  # a default computed when built: not told apart
            continue
        if value == default or value is None:
            continue
        if isinstance(value, _SCALARS) and len(str(value)) <= 200:
            rows.append((name, str(value)))
        elif isinstance(value, Mapping | list | tuple) and _plain(value):  # thinking, reasoning, stop
            text = json.dumps(value, sort_keys=True, default=str)
            if len(text) <= 200:
                rows.append((name, text))
    return tuple(rows[:20])


def _plain(value: Any, depth: int = 0) -> bool:
    """A small structure of plain values with no key that looks secret (``thinking={...}``)."""
    if isinstance(value, _SCALARS) or value is None:
        return True
    if depth > 2:
        return False
    if isinstance(value, Mapping):
        return all(
            isinstance(k, str) and not _SECRET_FIELD.search(k) and _plain(v, depth + 1)
            for k, v in value.items()
        )
    if isinstance(value, list | tuple):
        return all(_plain(v, depth + 1) for v in value)
    return False


def _pairs(mapping: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    return tuple(
        (str(k), str(v))
        for k, v in mapping.items()
        if isinstance(v, _SCALARS) and not _SECRET_FIELD.search(str(k))
    )


@dataclass(frozen=True)
class Harness:
    """The deepagents harness profile that applied to a model: its registry ``key`` (``""``:
    none matched), what it ``added`` (middleware classes) and ``excluded``, and the ``rows`` the
    anatomy lists of it."""

    key: str
    added: frozenset[str]
    excluded: tuple[str, ...]
    rows: tuple[tuple[str, str], ...]


def _harness(model: Any) -> Harness | None:
    """The harness profile ``create_deep_agent`` chose for ``model``, found the way it finds it
    (the model's ``provider:identifier``, then the provider); ``None`` when it can't be told."""
    if model is None or isinstance(model, str):
        return None
    identifier, provider = model_identity(model)  # deepagents' own lookup
    registry = harness_profiles()
    exact = f"{provider}:{identifier}" if provider and identifier else (identifier or "")
    key = next((k for k in (exact, identifier or "") if k and ":" in k and k in registry), "")
    why = f"registered for {key!r}" if key else ""
    if not key and provider and harness_profile(provider) is not None:
        key = provider
        why = f"the profile of the provider {provider!r}" + (f" (none for {exact!r})" if exact else "")
    if not key:
        return Harness("", frozenset(), (), (
            ("harness profile", "none"),
            ("why", f"no profile is registered for {exact or type(model).__name__!r}: deepagents' defaults"),
        ))  # fmt: skip
    profile = harness_profile(key)
    if profile is None:  # registered a moment ago, gone now
        return None
    try:  # what create_deep_agent adds for it (a factory builds fresh instances, as it does)
        added = frozenset(type(m).__name__ for m in profile.materialize_extra_middleware())
    except Exception:  # a factory that fails here failed when the agent was built too
        added = frozenset()
    excluded = tuple(sorted(e if isinstance(e, str) else e.__name__ for e in profile.excluded_middleware))
    rows = [("harness profile", key), ("why", why)]
    if added:
        rows.append(("adds middleware", ", ".join(sorted(added))))
    if excluded:
        rows.append(("excludes middleware", ", ".join(excluded)))
    if profile.excluded_tools:
        rows.append(("hides tools", ", ".join(sorted(profile.excluded_tools))))
    if profile.tool_description_overrides:
        rows.append(("rewrites the descriptions of", ", ".join(sorted(profile.tool_description_overrides))))
    if profile.base_system_prompt is not None:
        rows.append(("base system prompt", f"{len(profile.base_system_prompt):,} characters"))
    if profile.system_prompt_suffix is not None:
        rows.append(("system prompt suffix", f"{len(profile.system_prompt_suffix):,} characters"))
    gp = profile.general_purpose_subagent
    if gp is not None and gp.enabled is False:
        rows.append(("general-purpose subagent", "disabled"))
    return Harness(key, added, excluded, tuple(rows))


# -- backend -------------------------------------------------------------------------------------


def _describe_backend(backend: Any) -> str:
    kind = type(backend).__name__
    if is_instance(backend, "FilesystemBackend"):
        mode = "virtual paths" if getattr(backend, "virtual_mode", False) else "real paths"
        return f"{kind}: the folder {getattr(backend, 'cwd', '?')} ({mode})"
    if is_instance(backend, "StateBackend"):
        return f"{kind}: files in the thread's checkpoint state"
    if is_instance(backend, "StoreBackend"):
        return f"{kind}: the LangGraph store"
    return kind


def _files_read_through(workbench: Any, stack: Sequence[Any]) -> tuple[tuple[str, str], ...]:
    """Where deepnb reads the files of an agent whose main stack has no file tools: the backend
    given to ``attach(..., backend=...)`` or found in a subagent's stack."""
    if first(stack, "FilesystemMiddleware") is not None:
        return ()
    try:
        backend = getattr(getattr(workbench, "file_setup", None), "backend", None)
    except Exception:  # reading the graph is best effort: the anatomy says what it could read
        return ()
    return (("files read through", _describe_backend(backend)),) if backend is not None else ()


def _backend(stack: Sequence[Any]) -> tuple[tuple[str, str], ...]:
    filesystem = first(stack, "FilesystemMiddleware")
    if filesystem is None:
        return (("backend", "none (no FilesystemMiddleware: the agent has no file tools)"),)
    backend = getattr(filesystem, "backend", None)
    rows: list[tuple[str, str]] = []
    if callable(backend) and not hasattr(backend, "ls"):
        rows.append(("backend", "a factory, built per run"))
    elif is_instance(backend, "CompositeBackend"):
        default = getattr(backend, "default", None)
        rows.append(("backend", f"CompositeBackend, by default {_describe_backend(default)}"))
        for prefix, routed in sorted((getattr(backend, "routes", None) or {}).items()):
            rows.append((f"route {prefix}", _describe_backend(routed)))
    else:
        rows.append(("backend", _describe_backend(backend)))
    for kind, what in (("MemoryMiddleware", "memory"), ("SkillsMiddleware", "skills")):
        sources = getattr(first(stack, kind), "sources", None)
        if sources:
            rows.append((what, ", ".join(str(s) for s in sources)))
    for rule in filesystem_rules(filesystem):
        operations = ", ".join(getattr(rule, "operations", ()) or ())
        paths = ", ".join(getattr(rule, "paths", ()) or ())
        rows.append(("permission", f"{getattr(rule, 'mode', '?')} {operations} on {paths}"))
    return tuple(rows)
