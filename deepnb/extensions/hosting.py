"""Putting registrations into the agents deepnb builds: tools and middleware appended, routes
mounted through a ``CompositeBackend``, and a middleware that hands the model the extension tools
registered *now*, so a tool loaded after an agent was built reaches it on its next model call."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from langchain.agents.middleware.types import AgentMiddleware

from deepnb.engine.spec import AgentSpec
from deepnb.extensions import ensure_loaded
from deepnb.extensions.registry import REGISTRY, Registration
from deepnb.extensions.rules import overlaps, reserved_routes
from deepnb.extensions.store import default_store
from deepnb.extensions.sync_hooks import async_ready

RUNTIME_MIDDLEWARE = "deepnb_extension_tools"
BUILT_IN_TOOLS = frozenset(
    {"ls", "read_file", "write_file", "edit_file", "glob", "grep", "execute", "delete", "write_todos", "task"}
)
"""The tools deepagents' own middleware gives an agent. An extension tool of one of these names
replaces it, schema and function, as in Deep Agents Code (on the main agent, which the runtime
middleware serves; subagents keep the built-in)."""


@dataclass(frozen=True)
class Applied:
    """What an agent took in when it was built."""

    ids: frozenset[int]
    """The middleware and route registrations there were (mounted or skipped)."""
    skipped: tuple[str, ...] = ()
    """Routes not mounted on this agent, and why; built-in tools an extension's replaces."""


def _name(tool: Any) -> str | None:
    if isinstance(tool, dict):
        function = tool.get("function")
        name = function.get("name") if isinstance(function, dict) else tool.get("name")
    else:
        name = getattr(tool, "name", None) or getattr(tool, "__name__", None)
    return name if isinstance(name, str) else None


class ExtensionToolsMiddleware(AgentMiddleware):
    """Offer the model the extension tools registered at this moment, and run them."""

    name = RUNTIME_MIDDLEWARE

    def __init__(self, built: frozenset[str]) -> None:
        super().__init__()
        self._built = built
        """Names of the extension tools the agent was built with (replaced by their current
        registration, dropped once unregistered)."""

    def offered_tools(self, existing: list[Any]) -> list[Any]:
        """The tools the model is offered on a call that would offer ``existing``: the extension
        tools registered now, each in place of a built-in of its name."""
        current: dict[str | None, Any] = {r.name: r.unit for r in REGISTRY.of_kind("tool")}
        tools = []
        for tool in existing:
            name = _name(tool)
            if name in self._built or (name in BUILT_IN_TOOLS and name in current):
                if name in current:
                    tools.append(current.pop(name))
            else:
                tools.append(tool)
                current.pop(name, None)  # the agent's own tool of that name wins
        return tools + list(current.values())

    def offer_key(self) -> tuple[int, ...]:
        """The extension tools registered now (their registrations' ids): what it offers."""
        return tuple(r.id for r in REGISTRY.of_kind("tool"))

    def _tool_request(self, request: Any) -> Any:
        name = request.tool_call["name"]
        if request.tool is not None and name not in self._built and name not in BUILT_IN_TOOLS:
            return request
        registered = next((r.unit for r in REGISTRY.of_kind("tool") if r.name == name), None)
        return request if registered is None else request.override(tool=registered)

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return handler(request.override(tools=self.offered_tools(list(request.tools))))

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        return await handler(request.override(tools=self.offered_tools(list(request.tools))))

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return handler(self._tool_request(request))

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        return await handler(self._tool_request(request))


def _state_route_note(route: Registration, shared: str) -> str:
    if shared == "the agent's state":
        return (
            f"route {route.name} of {route.source.label} not mounted: it is a StateBackend, and the "
            f"agent's default backend keeps its files in the thread's state already, so "
            f"{route.name} files live there under their own paths"
        )
    return (
        f"route {route.name} of {route.source.label} not mounted: it is a StateBackend, and the "
        f"route {shared} keeps its files in the thread's state already (the two would share them)"
    )


def _mount(backend: Any, routes: list[Registration]) -> tuple[Any, list[str]]:
    """The agent's backend with the extension routes mounted, and the routes left out."""
    # lazy: deepagents is heavy to import
    from deepagents.backends import CompositeBackend, StateBackend  # noqa: PLC0415
    from deepagents.backends.protocol import BackendProtocol  # noqa: PLC0415

    if not routes:
        return backend, []
    default: BackendProtocol
    if backend is None:
        default, own, root = StateBackend(), {}, "/"
    elif isinstance(backend, CompositeBackend):
        default, own, root = backend.default, dict(backend.routes), backend.artifacts_root
    elif not isinstance(backend, BackendProtocol):
        return backend, [
            f"route {r.name} of {r.source.label} not mounted: the agent's backend is a factory"
            for r in routes
        ]
    else:
        default, own, root = backend, {}, "/"
    taken = {**reserved_routes(root), **dict.fromkeys(own, "a route of the agent's own backend")}
    mounted, skipped = {}, []
    in_state = [p for p, b in own.items() if isinstance(b, StateBackend)]
    state_default = isinstance(default, StateBackend)
    for route in routes:
        clash = next((p for p in taken if overlaps(route.name, p)), None)
        if clash is not None:
            skipped.append(
                f"route {route.name} of {route.source.label} not mounted: it overlaps {clash}, {taken[clash]}"
            )
        elif isinstance(route.unit, StateBackend) and (state_default or in_state):
            # Every StateBackend keeps its files in the one ``files`` key of the thread's state,
            # by the path it is given: mounted beside another, /scratch/a.md would be /a.md.
            skipped.append(_state_route_note(route, "the agent's state" if state_default else in_state[0]))
        else:
            mounted[route.name] = route.unit
            if isinstance(route.unit, StateBackend):
                in_state.append(route.name)
    if not mounted:
        return backend, skipped
    return CompositeBackend(default, {**mounted, **own}, artifacts_root=root), skipped


def apply(spec: AgentSpec) -> tuple[AgentSpec, Applied]:
    """``spec`` with the registered tools, middleware and routes added (its ``declared`` is
    ``spec``), and what the agent takes in. Middleware with sync-only hooks, the agent's own and
    its subagents' too, gets their async twins (:mod:`deepnb.extensions.sync_hooks`)."""
    spec = spec.declared or spec
    ensure_loaded()
    with REGISTRY.lock:
        tools = REGISTRY.of_kind("tool")
        middleware = REGISTRY.of_kind("middleware")
        routes = REGISTRY.of_kind("route")
        servers = REGISTRY.of_kind("mcp_server")
        skills = REGISTRY.of_kind("skills")
    options = dict(spec.options)
    if servers:  # a plugin's MCP servers: the agent's own of the same name win
        own_servers = dict(options.get("mcp_servers") or {})
        options["mcp_servers"] = {
            **{r.name: r.unit for r in servers if r.name not in own_servers},
            **own_servers,
        }
    if skills:  # a plugin's skills folders, mounted among the routes below
        own_skills = list(options.get("skills") or ())
        options["skills"] = own_skills + [r.unit for r in skills if r.unit not in own_skills]

    own_tools = list(options.get("tools") or ())
    names = {_name(t) for t in own_tools}
    # a built-in's replacement goes through the runtime middleware alone: passed as a tool too,
    # subagents would be offered two tools of one name
    added = [r for r in tools if r.name not in names and r.name not in BUILT_IN_TOOLS]
    replacing = [r for r in tools if r.name not in names and r.name in BUILT_IN_TOOLS]
    if added:
        options["tools"] = own_tools + [r.unit for r in added]

    own_middleware = [async_ready(m) for m in options.get("middleware") or ()]
    for subagent in options.get("subagents") or ():
        if isinstance(subagent, Mapping):
            for m in subagent.get("middleware") or ():
                async_ready(m)
    names = {getattr(m, "name", type(m).__name__) for m in own_middleware}
    own_middleware += [r.unit for r in middleware if r.name not in names]
    own_middleware.append(ExtensionToolsMiddleware(frozenset(r.name for r in added)))
    options["middleware"] = own_middleware

    if options.get("store") is None:  # a StoreBackend route needs one: the kernel's, as langgraph dev does
        options["store"] = default_store()
    backend, skipped = _mount(options.get("backend"), routes)
    if backend is not options.get("backend"):
        options["backend"] = backend
    effective = replace(spec, options=options, declared=spec)
    replaced = [
        f"tool {r.name} of {r.source.label} replaces the built-in {r.name} on the main agent "
        "(its subagents keep the built-in)"
        for r in replacing
    ]
    taken_in = [*middleware, *routes, *servers, *skills]
    return effective, Applied(frozenset(r.id for r in taken_in), tuple(replaced + skipped))
