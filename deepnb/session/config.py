"""Declarative agents: ``[agents.NAME]`` tables in the project's ``deepnb.toml`` (or
``[tool.deepnb.agents.NAME]`` in its ``pyproject.toml``), or a Python dict given to
``%deepagent define NAME --from VAR``, parsed into a :class:`Definition` (what to build; building
and registering it is :mod:`deepnb.session.building`'s job). Every mistake names the file (or variable)
and the key.

The project is found as ``deepnb.core.project`` says; its ``deepnb.toml`` wins over its
``pyproject.toml``. Relative paths in the file (``scripted:`` models, ``disk`` backends,
``sqlite:`` checkpointers) are relative to the file's folder, and ``module:attr`` references
import from it too. ``memory`` and ``skills`` name paths in the agent's backend, as deepagents
takes them: absolute (``/AGENTS.md``) or relative to the backend's folder (``./AGENTS.md``), and a
skill source may be ``[path, label]``; never ``..`` or ``~``. An agent is built the first time a
cell runs it (or ``deepnb.get`` asks).

Trust: an agent whose table imports code (``module:attr``: tools, middleware, backends,
subagents) or reaches outside the project's folder (a path out of it, ``~``, ``..``, a disk
backend with ``virtual_mode = false``, a Postgres database, a subagent with a ``url``) is built
only once you ran ``%deepagent trust`` for the project; until then nothing is imported and one
line says what waits for trust. An ``mcp_servers`` table (the servers whose tools the agent gets,
in ``langchain-mcp-adapters``' connection shapes) waits for trust too: it starts processes. A
dict of your own (``define NAME --from VAR``) needs no trust.

    [agents.researcher]
    model = "openai:gpt-5.5"
    system_prompt = "You research carefully."
    tools = ["mytools:search"]
    memory = ["/AGENTS.md"]
    skills = ["/skills/"]
    interrupt_on = { write_file = true }
    permissions = [{ operations = ["write"], paths = ["/secrets/**"], mode = "deny" }]
    backend = { type = "composite", default = "state", routes = { "/memories/" = "store" } }
    checkpointer = "sqlite:threads.db"

    [agents.researcher.mcp_servers.files]
    transport = "stdio"
    command = "npx"
    args = ["-y", "@modelcontextprotocol/server-filesystem", "."]

    [[agents.researcher.subagents]]
    name = "critic"
    description = "Reviews a draft."
    prompt = "Point out weak claims."
    tools = ["mytools:search"]
"""

from __future__ import annotations

import importlib
import os
import sys
import tomllib
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

from deepnb.core.errors import DeepnbError
from deepnb.core.project import HOME_ENV, MARKERS, deepnb_home, inside, project_root
from deepnb.core.threads.checkpointers import SPEC_HELP, make_checkpointer, parse_spec
from deepnb.engine.interpreter import interpreter_middleware
from deepnb.engine.mcp import McpConfigError, check_servers
from deepnb.engine.spec import model_label, parse_interrupt_on

__all__ = [  # project_root, deepnb_home, HOME_ENV and MARKERS live in deepnb.core.project
    "HOME_ENV",
    "MARKERS",
    "ConfigFile",
    "Definition",
    "Key",
    "UntrustedConfig",
    "agent_names",
    "deepnb_home",
    "describe_kind",
    "find_config",
    "parse_agent",
    "project_root",
]

TABLES = frozenset({"agents", "trace"})
"""The tables a project's config may hold: its agents, and ``trace`` (which
:mod:`deepnb.engine.tracing.settings` reads)."""
AGENT_KEYS = frozenset(
    {
        "model",
        "system_prompt",
        "tools",
        "middleware",
        "subagents",
        "backend",
        "memory",
        "skills",
        "permissions",
        "interrupt_on",
        "interpreter",
        "checkpointer",
        "todos",
        "context",
        "mcp_servers",
    }
)
SUBAGENT_KEYS = frozenset(
    {
        "name",
        "description",
        "system_prompt",
        "prompt",
        "model",
        "tools",
        "middleware",
        "interrupt_on",
        "permissions",
        "skills",
    }
)
ASYNC_SUBAGENT_KEYS = frozenset({"name", "description", "graph_id", "url", "headers"})
BACKEND_KEYS = {
    "state": {"type"},
    "disk": {"type", "root_dir", "virtual_mode"},
    "store": {"type", "namespace"},
    "composite": {"type", "default", "routes", "artifacts_root"},
}
DECISIONS = ("approve", "edit", "reject", "respond")


def _relative(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


# -- where a value sits, for messages -----------------------------------------------------------


@dataclass(frozen=True)
class Key:
    """A value's place: the file (or variable) and the dotted key, e.g. ``agents.x.tools[1]``."""

    where: str
    path: str = ""

    def __truediv__(self, part: str) -> Key:
        return Key(self.where, f"{self.path}.{part}" if self.path else part)

    def __getitem__(self, index: int | str) -> Key:
        return Key(self.where, f"{self.path}[{index!r}]")

    def error(self, message: str) -> DeepnbError:
        return DeepnbError(
            f"{self.where}: {self.path}: {message}" if self.path else f"{self.where}: {message}"
        )


def describe_kind(value: Any) -> str:
    """What ``value`` is, for a message: "a string", "a list", "a table", …"""
    names = {str: "a string", bool: "true/false", int: "a number", float: "a number", list: "a list"}
    return names.get(type(value), "a table" if isinstance(value, Mapping) else type(value).__name__)


DEFERRED: Any = object()
"""What an untrusted reference or outside path stands for while its table is checked."""


@dataclass
class _Context:
    base_dir: Path
    namespace: Mapping[str, Any] = field(default_factory=dict)
    needs_store: bool = False
    trusted: bool = True
    needs: list[str] = field(default_factory=list)
    """What waits for trust: ``"import mod:attr"``, ``"use PATH as its folder"``, …"""

    def allows(self, what: str) -> bool:
        """Whether ``what`` (code or a reach outside the project) may happen now; if not, it
        is recorded for the one-line message."""
        if not self.trusted and what not in self.needs:
            self.needs.append(what)
        return self.trusted

    def host_path(self, text: str) -> tuple[Path, bool]:
        """A path on this machine as the file wrote it (relative to the file's folder), and
        whether it stays inside the project: no ``~``, no ``..``, not out of it by a symlink."""
        raw = Path(text)
        path = raw.expanduser()
        path = path if path.is_absolute() else self.base_dir / path
        within = not text.startswith("~") and ".." not in raw.parts and inside(path, self.base_dir)
        return path, within


class UntrustedConfig(DeepnbError):
    """A project's agent imports code or reaches outside the project, and the project is not
    trusted: nothing was imported."""

    def __init__(self, where: str, agent: str, needs: list[str], root: Path) -> None:
        imports = [n.removeprefix("import ") for n in needs if n.startswith("import ")]
        rest = [n for n in needs if not n.startswith("import ")]
        what = " and ".join(([f"import {', '.join(imports)}"] if imports else []) + rest)
        super().__init__(
            f"{where}: agent {agent!r} needs trust to {what} — run %deepagent trust {root} "
            "if you trust this project."
        )
        self.needs = list(needs)
        self.root = root


def _table(value: Any, key: Key, allowed: frozenset[str] | set[str] | None = None) -> Mapping[str, Any]:
    """``value`` if it is a table whose keys are all ``allowed`` (any, for ``None``)."""
    if not isinstance(value, Mapping):
        raise key.error(f"expected a table, got {describe_kind(value)}")
    for name in value:
        if allowed is not None and name not in allowed:
            raise (key / str(name)).error(f"unknown key: use one of {', '.join(sorted(allowed))}")
    return value


def _string(value: Any, key: Key) -> str:
    if not isinstance(value, str) or not value.strip():
        raise key.error(f"expected a non-empty string, got {describe_kind(value)}")
    return value


def _list(value: Any, key: Key) -> list[Any]:
    if not isinstance(value, list | tuple):
        raise key.error(f"expected a list, got {describe_kind(value)}")
    return list(value)


def _paths(value: Any, key: Key, *, labelled: bool = False) -> list[Any]:
    """Memory or skill sources, written as deepagents takes them: paths in the agent's backend,
    absolute (``/AGENTS.md``) or relative to its folder (``./AGENTS.md``, ``skills/``); with
    ``labelled`` (skills), also ``[path, label]`` pairs. Never ``..`` or ``~``: deepagents'
    folder backend refuses them, and they would climb out of a folder used as it is."""
    paths: list[Any] = []
    for i, item in enumerate(_list(value, key)):
        if labelled and isinstance(item, list | tuple):
            if len(item) != 2:
                raise key[i].error("a labelled source is [path, label], e.g. ['./skills/', 'Project']")
            path, label = _string(item[0], key[i][0]), _string(item[1], key[i][1])
            paths.append((path, label))
        else:
            path = _string(item, key[i])
            paths.append(path)
        if ".." in path.replace("\\", "/").split("/"):
            raise key[i].error(f"{path!r} — a path may not climb out with '..': name the file itself")
        if path.startswith("~"):
            raise key[i].error(f"{path!r} — '~' is not in the agent's filesystem: name a path in its backend")
    return paths


# -- references: "module:attr" --------------------------------------------------------------------


def _reference(value: Any, key: Key, ctx: _Context) -> Any:
    """``"module:attr"`` (``attr`` may be dotted) imported; any other object as it is."""
    if not isinstance(value, str):
        return value
    module_name, sep, attr = value.partition(":")
    if not sep or not module_name or not attr:
        raise key.error(f"{value!r} — write module:attribute, e.g. 'mytools:search'")
    if not ctx.allows(f"import {value}"):
        return DEFERRED
    folder = str(ctx.base_dir)
    if folder not in sys.path:
        sys.path.append(folder)
    try:
        target = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            raise key.error(f"{value!r} — no module named {module_name!r}") from None
        raise key.error(f"{value!r} — importing {module_name} failed: {exc}") from None
    except Exception as exc:
        raise key.error(f"{value!r} — importing {module_name} failed: {type(exc).__name__}: {exc}") from None
    for part in attr.split("."):
        if not hasattr(target, part):
            raise key.error(f"{value!r} — module {module_name} has no attribute {attr!r}")
        target = getattr(target, part)
    return target


def _tools(value: Any, key: Key, ctx: _Context) -> list[Any]:
    from langchain_core.tools import BaseTool  # noqa: PLC0415  # lazy: langchain_core is heavy

    tools: list[Any] = []
    for i, item in enumerate(_list(value, key)):
        found = _reference(item, key[i], ctx)
        if found is DEFERRED:
            continue
        for tool in found if isinstance(found, list | tuple) else [found]:
            if not isinstance(tool, BaseTool | Mapping):
                problem = _not_a_tool(tool)
                if problem:
                    raise key[i].error(
                        f"{_label(item, tool)} is {problem}, not a tool: give a BaseTool (@tool) or a "
                        "function of your own, defined in Python"
                    )
            tools.append(tool)
    return tools


def _label(item: Any, tool: Any) -> str:
    return repr(item) if isinstance(item, str) else repr(getattr(tool, "__name__", type(tool).__name__))


def _standard_library(module: Any) -> bool:
    return str(module or "").partition(".")[0] in sys.stdlib_module_names


def _not_a_tool(tool: Any) -> str | None:
    """Why ``tool`` can't be one (``None`` if it can): a tool is a function defined in Python,
    not a class, a built-in or C function, an object, or a standard-library function
    (``os:popen``, ``subprocess:call``)."""
    if isinstance(tool, type):
        return "a class"
    if isinstance(tool, types.MethodType):
        tool = tool.__func__
    if isinstance(tool, types.FunctionType):
        return "a standard-library function" if _standard_library(tool.__module__) else None
    if isinstance(tool, types.BuiltinFunctionType | types.BuiltinMethodType) or not hasattr(tool, "__dict__"):
        return "a built-in function" if callable(tool) else describe_kind(tool)
    return f"a {type(tool).__name__} object"


def _middleware(value: Any, key: Key, ctx: _Context) -> list[Any]:
    from langchain.agents.middleware.types import AgentMiddleware  # noqa: PLC0415  # lazy: heavy

    found = []
    for i, item in enumerate(_list(value, key)):
        middleware = _reference(item, key[i], ctx)
        if middleware is DEFERRED:
            continue
        if isinstance(middleware, type) and issubclass(middleware, AgentMiddleware):
            try:
                middleware = middleware()
            except Exception as exc:
                raise key[i].error(f"{item!r} — could not construct it: {exc}") from None
        if not isinstance(middleware, AgentMiddleware):
            raise key[i].error(f"{item!r} is {describe_kind(middleware)}, not an AgentMiddleware")
        found.append(middleware)
    return found


# -- options ---------------------------------------------------------------------------------------


def _model(value: Any, key: Key, ctx: _Context) -> tuple[Any, str]:
    from deepnb.models import resolve_model  # noqa: PLC0415  # lazy: it imports langchain_core

    label = model_label(value)
    if isinstance(value, str) and value.startswith("scripted:"):
        path, within = ctx.host_path(value.removeprefix("scripted:"))
        if not within and not ctx.allows(f"read the script {path}"):
            return DEFERRED, label
        value = f"scripted:{path}"
    try:
        return resolve_model(value, dict(ctx.namespace)), label
    except DeepnbError as exc:
        raise key.error(str(exc)) from None


def _interrupt_on(value: Any, key: Key) -> dict[str, Any]:
    if isinstance(value, str | list | tuple):
        try:
            return parse_interrupt_on(value) or {}
        except DeepnbError as exc:
            raise key.error(str(exc)) from None
    rules: dict[str, Any] = {}
    for tool, rule in _table(value, key).items():
        if isinstance(rule, bool):
            rules[tool] = rule
            continue
        if not isinstance(rule, Mapping):
            raise (key / tool).error(f"expected true, false or a table, got {describe_kind(rule)}")
        rule = dict(_table(rule, key / tool, {"allowed_decisions", "description"}))
        decisions = [_string(d, key / tool / "allowed_decisions") for d in rule.get("allowed_decisions", [])]
        for d in decisions:
            if d not in DECISIONS:
                raise (key / tool / "allowed_decisions").error(f"{d!r} — use {', '.join(DECISIONS)}")
        rules[tool] = rule
    return rules


def _permissions(value: Any, key: Key) -> list[Any]:
    from deepagents import FilesystemPermission  # noqa: PLC0415  # lazy: deepagents is heavy

    rules = []
    for i, item in enumerate(_list(value, key)):
        if isinstance(item, FilesystemPermission):
            rules.append(item)
            continue
        table = _table(item, key[i], {"operations", "paths", "mode"})
        operations = [
            _string(o, key[i] / "operations") for o in _list(table.get("operations"), key[i] / "operations")
        ]
        for o in operations:
            if o not in ("read", "write"):
                raise (key[i] / "operations").error(f"{o!r} — use read or write")
        mode = table.get("mode", "allow")
        if mode not in ("allow", "deny", "interrupt"):
            raise (key[i] / "mode").error(f"{mode!r} — use allow, deny or interrupt")
        try:
            checked = cast('list[Literal["read", "write"]]', operations)  # each one checked above
            rules.append(FilesystemPermission(operations=checked, paths=table.get("paths", []), mode=mode))
        except (TypeError, ValueError) as exc:
            raise (key[i] / "paths").error(str(exc)) from None
    return rules


def _backend(value: Any, key: Key, ctx: _Context) -> Any:
    """``"state"``, ``"disk"``, ``"store"``, a ``{type = ...}`` table (``composite`` with
    ``default`` and ``routes``), ``"module:attr"``, or a backend object."""
    # lazy: deepagents is heavy to import
    from deepagents.backends import (  # noqa: PLC0415
        CompositeBackend,
        FilesystemBackend,
        StateBackend,
        StoreBackend,
    )
    from deepagents.backends.protocol import BackendProtocol  # noqa: PLC0415

    if isinstance(value, str) and ":" in value:
        found = _reference(value, key, ctx)
        if found is not DEFERRED and not isinstance(found, BackendProtocol):
            raise key.error(
                f"{value!r} is {describe_kind(found)}, not a backend (a deepagents BackendProtocol)"
            )
        return found
    if isinstance(value, str):
        value = {"type": value}
    if not isinstance(value, Mapping):
        return value  # a backend object, from Python
    kind = value.get("type")
    if not isinstance(kind, str) or kind not in BACKEND_KEYS:
        raise (key / "type" if "type" in value else key).error(
            f"{kind!r} — use one of {', '.join(BACKEND_KEYS)}, or 'module:attr'"
        )
    table = _table(value, key, BACKEND_KEYS[kind])
    if kind == "state":
        return StateBackend()
    if kind == "disk":
        root, within = ctx.host_path(_string(table.get("root_dir", "."), key / "root_dir"))
        virtual = table.get("virtual_mode", True)
        if not isinstance(virtual, bool):
            raise (key / "virtual_mode").error(f"expected true or false, got {describe_kind(virtual)}")
        allowed = within or ctx.allows(f"use {root} as its folder")
        if not virtual:  # paths are then used as they are, anywhere on the machine
            allowed = ctx.allows("reach any path on this machine (virtual_mode = false)") and allowed
        if not allowed:
            return DEFERRED
        if not root.is_dir():
            raise (key / "root_dir").error(f"{str(root)!r} is not a folder")
        return FilesystemBackend(root_dir=root, virtual_mode=virtual)
    if kind == "store":
        parts = tuple(
            _string(p, key / "namespace")
            for p in _list(table.get("namespace", ["filesystem"]), key / "namespace")
        )
        ctx.needs_store = True
        return StoreBackend(namespace=lambda _runtime: parts)
    routes = {}
    for prefix, backend in _table(table.get("routes", {}), key / "routes").items():
        if not (prefix.startswith("/") and prefix.endswith("/") and len(prefix) > 1):
            raise (key / "routes")[prefix].error(
                "a route is an absolute path with slashes at both ends, e.g. '/memories/'"
            )
        routes[prefix] = _backend(backend, (key / "routes")[prefix], ctx)
    artifacts_root = _string(table.get("artifacts_root", "/"), key / "artifacts_root")
    default = _backend(table.get("default", "state"), key / "default", ctx)
    if default is DEFERRED or DEFERRED in routes.values():
        return DEFERRED
    return CompositeBackend(default, routes, artifacts_root=artifacts_root)


def _subagent(value: Any, key: Key, ctx: _Context) -> Any:
    if isinstance(value, str):
        found = _reference(value, key, ctx)
        if found is not DEFERRED and not isinstance(found, Mapping):
            raise key.error(
                f"{value!r} is {describe_kind(found)}, not a subagent (a dict with name and description)"
            )
        return found
    if isinstance(value, Mapping) and "graph_id" in value:  # an async subagent on a LangGraph server
        table = _table(value, key, ASYNC_SUBAGENT_KEYS)
        if "url" in table:  # a server elsewhere (without one, the agent's own deployment)
            ctx.allows(f"send tasks to {table['url']}")
    else:
        table = _table(value, key, SUBAGENT_KEYS)
    for required in ("name", "description"):
        if required not in table:
            raise (key / required).error("missing: a subagent needs a name and a description")
    if "prompt" in table and "system_prompt" in table:
        raise (key / "prompt").error("give either prompt or system_prompt, not both")
    spec: dict[str, Any] = {
        "name": _string(table["name"], key / "name"),
        "description": _string(table["description"], key / "description"),
    }
    if "graph_id" in table:
        return {**table, **spec, "graph_id": _string(table["graph_id"], key / "graph_id")}
    prompt = table.get("system_prompt", table.get("prompt"))
    if prompt is not None:
        spec["system_prompt"] = _string(prompt, key / ("prompt" if "prompt" in table else "system_prompt"))
    if "model" in table:
        spec["model"] = _model(table["model"], key / "model", ctx)[0]
    if "tools" in table:
        spec["tools"] = _tools(table["tools"], key / "tools", ctx)
    if "middleware" in table:
        spec["middleware"] = _middleware(table["middleware"], key / "middleware", ctx)
    if "interrupt_on" in table:
        spec["interrupt_on"] = _interrupt_on(table["interrupt_on"], key / "interrupt_on")
    if "permissions" in table:
        spec["permissions"] = _permissions(table["permissions"], key / "permissions")
    if "skills" in table:
        spec["skills"] = _paths(table["skills"], key / "skills", labelled=True)
    return spec


@dataclass(frozen=True)
class Definition:
    """An agent as a config defines it: what ``deepnb.agent`` takes."""

    model: Any
    label: str
    options: dict[str, Any]
    checkpointer: Any = "memory"
    todos: bool = True


def parse_agent(
    value: Any,
    key: Key,
    *,
    base_dir: Path,
    namespace: Mapping[str, Any] | None = None,
    trusted: bool = True,
) -> Definition:
    """Check and resolve one agent's table (or dict); a mistake raises naming its key. Not
    ``trusted`` (a project's file before ``%deepagent trust``), a table that imports code or
    reaches outside ``base_dir`` raises ``UntrustedConfig`` and nothing is imported."""
    ctx = _Context(base_dir, namespace or {}, trusted=trusted)
    table = _table(value, key, AGENT_KEYS)
    if "model" in table:
        model, label = _model(table["model"], key / "model", ctx)
    elif os.environ.get("DEEPNB_MODEL"):
        model, label = _model(os.environ["DEEPNB_MODEL"], key / "model", ctx)
    else:
        raise (key / "model").error(
            'missing: set model = "provider:model" (or the DEEPNB_MODEL environment variable)'
        )
    options: dict[str, Any] = {}
    if "system_prompt" in table:
        options["system_prompt"] = _string(table["system_prompt"], key / "system_prompt")
    if "tools" in table:
        options["tools"] = _tools(table["tools"], key / "tools", ctx)
    if "middleware" in table:
        options["middleware"] = _middleware(table["middleware"], key / "middleware", ctx)
    if "subagents" in table:
        subagents = _list(table["subagents"], key / "subagents")
        options["subagents"] = [_subagent(s, (key / "subagents")[i], ctx) for i, s in enumerate(subagents)]
    if "backend" in table:
        options["backend"] = _backend(table["backend"], key / "backend", ctx)
    for name in ("memory", "skills"):
        if name in table:
            options[name] = _paths(table[name], key / name, labelled=name == "skills")
    if "permissions" in table:
        options["permissions"] = _permissions(table["permissions"], key / "permissions")
    if "interrupt_on" in table:
        options["interrupt_on"] = _interrupt_on(table["interrupt_on"], key / "interrupt_on")
    if table.get("interpreter"):
        options["interpreter"] = _interpreter(table["interpreter"], key / "interpreter")
    if ctx.needs_store:
        from langgraph.store.memory import InMemoryStore  # noqa: PLC0415  # lazy: langgraph is heavy

        options["store"] = InMemoryStore()
    if "mcp_servers" in table:
        servers = _mcp_servers(table["mcp_servers"], key / "mcp_servers", ctx)
        if servers:
            options["mcp_servers"] = servers
    if "context" in table:
        if not isinstance(table["context"], Mapping):
            raise (key / "context").error(
                f"expected a table of runtime context keys, got {describe_kind(table['context'])}"
            )
        options["context"] = dict(table["context"])
    todos = table.get("todos", True)
    if not isinstance(todos, bool):
        raise (key / "todos").error(f"expected true or false, got {describe_kind(todos)}")
    checkpointer = _checkpointer(table.get("checkpointer", "memory"), key, ctx)
    if ctx.needs:
        raise UntrustedConfig(key.where, key.path.rpartition(".")[2], ctx.needs, base_dir)
    return Definition(model, label, options, checkpointer, todos)


def _mcp_servers(value: Any, key: Key, ctx: _Context) -> dict[str, Any]:
    """The ``[agents.NAME.mcp_servers]`` table (the connections of ``langchain-mcp-adapters``).
    Servers start processes or send requests with the file's headers, so they wait for trust
    like code; a stdio server's relative ``cwd`` is relative to the file's folder."""
    try:
        servers = check_servers(value)
    except McpConfigError as exc:
        raise (key / exc.path).error(exc.problem) from None
    except DeepnbError as exc:
        raise key.error(str(exc)) from None
    if servers and not ctx.allows(f"start the MCP servers {', '.join(servers)}"):
        return {}
    for connection in servers.values():
        if isinstance(connection.get("cwd"), str):
            connection["cwd"] = str(ctx.host_path(connection["cwd"])[0])
    return servers


def _interpreter(value: Any, key: Key) -> Any:
    if not (value is True or isinstance(value, Mapping)):
        raise key.error(f"expected true or a table of interpreter options, got {describe_kind(value)}")
    if isinstance(value, Mapping) and "ptc" in value:
        ptc = value["ptc"]
        names = [n.strip() for n in ptc.split(",") if n.strip()] if isinstance(ptc, str) else ptc
        names = _list(names, key / "ptc")
        for i, name in enumerate(names):
            _string(name, (key / "ptc")[i])
            if name == "task":
                raise (key / "ptc")[i].error(
                    "'task' — the interpreter's code cannot call task: subagents are the task() global"
                )
    try:
        interpreter_middleware(value)  # checks the options now, so the message can name the key
    except DeepnbError as exc:
        raise key.error(str(exc)) from None
    return value if value is True else dict(value)


def _checkpointer(value: Any, key: Key, ctx: _Context) -> Any:
    if isinstance(value, str) and value != "memory":
        try:
            kind, target = parse_spec(value)
        except DeepnbError:
            raise (key / "checkpointer").error(f"{value!r} — {SPEC_HELP}") from None
        if kind == "sqlite":  # relative to the file that names it
            path, within = ctx.host_path(target)
            if path.is_dir():
                raise (key / "checkpointer").error(
                    f"{value!r} is a folder: name a database file in it, e.g. sqlite:threads.db"
                )
            if not within and not ctx.allows(f"keep threads in {path}"):
                return value
            value = f"sqlite:{path}"
        elif not ctx.allows("keep threads in a Postgres database"):
            return value
    if not isinstance(value, str):
        try:
            make_checkpointer(value)
        except DeepnbError as exc:
            raise (key / "checkpointer").error(str(exc)) from None
    return value


# -- the project's file ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ConfigFile:
    """A project's agent definitions: the file, the key they sit under, and the tables."""

    path: Path
    prefix: str
    agents: Mapping[str, Any]

    @property
    def shown(self) -> str:
        return _relative(self.path)


def _read(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8-sig"))  # a BOM is no mistake
    except tomllib.TOMLDecodeError as exc:
        raise DeepnbError(f"{_relative(path)}: not valid TOML ({exc}): fix the file.") from None
    except OSError as exc:
        raise DeepnbError(f"{_relative(path)}: cannot read it ({exc}).") from None


def find_config(root: Path | None = None) -> ConfigFile | None:
    """The project's ``deepnb.toml``, or its ``pyproject.toml`` if that has ``[tool.deepnb]``."""
    root = root or project_root()
    path = root / "deepnb.toml"
    if path.is_file():
        section: Any = _read(path)
        prefix = ""
    else:
        path = root / "pyproject.toml"
        if not path.is_file():
            return None
        section = _read(path).get("tool", {}).get("deepnb")
        if section is None:
            return None
        prefix = "tool.deepnb"
    key = Key(_relative(path), prefix)
    section = _table(section, key, TABLES)
    agents = _table(section.get("agents", {}), key / "agents")
    return ConfigFile(path, f"{prefix}.agents" if prefix else "agents", agents)


def agent_names() -> list[str]:
    """The agents the project's config defines."""
    config = find_config()
    return sorted(config.agents) if config else []
