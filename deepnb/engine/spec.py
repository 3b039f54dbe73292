"""What agent to build, and building it with ``deepagents.create_deep_agent``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.core.graphs.structured import expect_in_checkpoints
from deepnb.core.text.safe_display import safe_display
from deepnb.engine.approval_rules import check_rules
from deepnb.engine.deepagents_internals import filesystem_rules, with_filesystem_rules
from deepnb.engine.drawing import drawing_given
from deepnb.engine.files.rules import agent_rules
from deepnb.engine.files.served_watch import files_watch_middleware, watched
from deepnb.engine.gating import check as check_gating
from deepnb.engine.interpreter import interpreter_middleware
from deepnb.engine.mcp import check_servers, load_tools
from deepnb.engine.steering import mark as mark_steerable
from deepnb.engine.steering import steering_middleware

# create_deep_agent's keyword arguments that a spec passes through unchanged.
AGENT_OPTIONS = frozenset(
    {
        "tools",
        "system_prompt",
        "middleware",
        "subagents",
        "skills",
        "memory",
        "permissions",
        "backend",
        "interrupt_on",
        "response_format",
        "state_schema",
        "context_schema",
        "store",
        "debug",
        "cache",
        "interpreter",  # deepnb's: True or {options} adds langchain-quickjs' CodeInterpreterMiddleware
        "context",  # deepnb's: the runtime context every run of the agent gets (not a build option)
        "mcp_servers",  # deepnb's: {name: connection} whose tools the agent gets (deepnb.engine.mcp)
    }
)


def parse_interrupt_on(
    value: str | Sequence[str] | Mapping[str, Any] | None,
) -> dict[str, Any] | None:
    """``"write_file,edit_file"`` or a list of tool names → ``{"write_file": True, ...}``;
    ``"none"`` → ``{}`` (no tool asks first: it clears a rule an earlier cell set); a mapping
    passes through."""
    if value is None or isinstance(value, Mapping):
        return dict(value) if value is not None else None
    if isinstance(value, str) and value.strip().lower() == "none":
        return {}
    names = value.split(",") if isinstance(value, str) else list(value)
    names = [n.strip() for n in names if n and n.strip()]
    if not names:
        raise DeepnbError(
            "--interrupt-on needs tool names, e.g. --interrupt-on write_file,edit_file "
            "(--interrupt-on none asks before no tool)."
        )
    return dict.fromkeys(names, True)


@safe_display
@dataclass(frozen=True)
class AgentSpec:
    """A deep agent to build: the model (resolved chat model), its label, and options."""

    model: Any
    model_label: str
    options: Mapping[str, Any] = field(default_factory=dict)
    todos: bool = True
    """Add ``TodoListMiddleware`` (deepagents 0.7 no longer adds ``write_todos`` itself)."""
    declared: AgentSpec | None = field(default=None, compare=False, repr=False)
    """For a spec extensions were applied to (a workbench's ``spec``): the spec as written,
    before their tools, middleware and routes were added. Rebuilds start from it."""

    def __post_init__(self) -> None:
        context = self.options.get("context")
        if context is not None and not isinstance(context, Mapping):
            raise DeepnbError(f"context= is a dict of runtime context keys, not a {type(context).__name__}.")
        if self.options.get("mcp_servers") is not None:
            check_servers(self.options["mcp_servers"])  # a caller's mistake says so now, not at build
        unknown = set(self.options) - AGENT_OPTIONS
        if unknown:
            raise DeepnbError(
                f"Unknown agent option(s) {', '.join(sorted(unknown))}: use create_deep_agent's "
                f"keyword arguments ({', '.join(sorted(AGENT_OPTIONS))})."
            )

    def __repr__(self) -> str:  # bounded and secret-free: options may hold MCP servers' env and headers
        return f"AgentSpec(model={self.model_label!r}, options={sorted(self.options)}, todos={self.todos})"

    def with_options(self, **changes: Any) -> AgentSpec:
        """The declared spec with ``changes`` (``None`` values ignored)."""
        base = self.declared or self
        options = {**base.options, **{k: v for k, v in changes.items() if v is not None}}
        return replace(base, options=options)

    def build(self, *, name: str, checkpointer: Any, served: bool = False) -> Any:
        """Compile the agent with ``checkpointer``; an agent whose interpreter code could run a
        tool its approval rules gate is refused (:mod:`deepnb.engine.gating`). ``served``: for
        an Agent Server, where its tools' changes to files outside the thread's state are told
        to the run's stream (:mod:`deepnb.engine.files.served_watch`), as no kernel can list them."""
        from deepagents import create_deep_agent  # noqa: PLC0415  # lazy: deepagents is heavy to import

        options = dict(self.options)
        options.pop("context", None)  # given at each run, not at build time
        servers = options.pop("mcp_servers", None)
        if servers:  # their tools join the agent's own, listed from the servers now
            own = list(options.get("tools") or ())
            taken = [str(getattr(t, "name", getattr(t, "__name__", ""))) for t in own]
            options["tools"] = [*own, *load_tools(check_servers(servers), taken=taken)]
        middleware = list(options.pop("middleware", None) or ())
        interpreter = options.pop("interpreter", None)
        if interpreter:
            middleware.append(interpreter_middleware(interpreter))
        _match_dotfiles(options, middleware)
        if self.todos:
            from langchain.agents.middleware import TodoListMiddleware  # noqa: PLC0415  # lazy: heavy

            if not any(isinstance(m, TodoListMiddleware) for m in middleware):
                middleware.insert(0, TodoListMiddleware())
        check_gating(options, middleware)
        expect_in_checkpoints(options.get("response_format"))
        middleware.append(steering_middleware())  # run.steer: messages given while it works
        if served and watched(options.get("backend")):
            middleware.append(files_watch_middleware(options["backend"]))
        graph = create_deep_agent(
            model=self.model,
            middleware=middleware,
            checkpointer=checkpointer,
            name=name,
            **options,
        )
        check_rules(options, graph)  # a rule naming no tool of the agent would gate nothing
        return mark_steerable(drawing_given(graph))  # served, it says what its agents are given


def _match_dotfiles(options: dict[str, Any], middleware: list[Any]) -> None:
    """Give every permission rule (the agent's, its subagents', a ``FilesystemMiddleware``'s)
    patterns that match dotfiles too, the way the notebook side matches them (see
    :mod:`deepnb.engine.files.rules`): without them ``/secrets/**`` would not cover ``/secrets/.env``."""
    if options.get("permissions"):
        options["permissions"] = agent_rules(options["permissions"])
    if options.get("subagents"):
        options["subagents"] = [
            {**s, "permissions": agent_rules(s["permissions"])}
            if isinstance(s, Mapping) and s.get("permissions")
            else s
            for s in options["subagents"]
        ]
    for i, m in enumerate(middleware):
        rules = filesystem_rules(m)
        if rules:
            middleware[i] = with_filesystem_rules(m, agent_rules(rules))


def model_label(model: Any) -> str:
    """A short, secret-free label for a model argument."""
    if isinstance(model, str):
        return model
    name = getattr(model, "model_name", None) or getattr(model, "model", None)
    return f"{type(model).__name__}({name})" if isinstance(name, str) else type(model).__name__
