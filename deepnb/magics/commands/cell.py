"""What a ``%%deepagent`` cell's options become: the agent it runs on (built, or rebuilt when an
option changes it) and the values its variables hold."""

from __future__ import annotations

import os
import sys
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.core.graphs import structured
from deepnb.core.threads.checkpointers import make_checkpointer
from deepnb.engine.spec import AgentSpec, parse_interrupt_on
from deepnb.magics.commands.threads import forked_line, step_or_checkpoint, waiting_at
from deepnb.session import agents as agent_registry
from deepnb.session import building, graph_session
from deepnb.session.config import UntrustedConfig
from deepnb.session.protocol import Session


def agent_options(args: Any, namespace: dict[str, Any]) -> dict[str, Any]:
    """The agent options a cell's line sets, ``None`` where it sets none: ``--interrupt-on``,
    ``--interpreter`` / ``--ptc`` and ``--schema``."""
    return {
        "interrupt_on": parse_interrupt_on(args.interrupt_on),
        "interpreter": interpreter_option(args.interpreter, args.ptc),
        "response_format": schema_variable(args.schema, namespace),
    }


def at_option(at: str | None) -> int | str | None:
    """``--at``'s step number or checkpoint id (``None`` without the option)."""
    return None if at is None else step_or_checkpoint(at)


def forked_notice(workbench: Session, origin: str, at: str, new: str) -> str:
    """The line a cell run with ``--at`` prints: the new thread, where it came from, and what a
    fork holding tool calls before their results means."""
    return forked_line(new, origin, at, waiting_at(workbench, origin, at))


def interpreter_option(interpreter: bool, ptc: str | None) -> Any:
    """``--interpreter`` / ``--ptc read_file,glob`` as the ``interpreter`` agent option."""
    if ptc:
        names = [name.strip() for name in ptc.split(",") if name.strip()]
        if not names:
            raise DeepnbError("--ptc needs tool names, e.g. --ptc read_file,glob.")
        return {"ptc": names}
    return True if interpreter else None


def input_variable(name: str, body: str, namespace: dict[str, Any]) -> Any:
    """``--input VAR``: the dict (or prompt) in ``VAR``, sent as the graph's input; the cell
    body stays empty."""
    if body.strip():
        raise DeepnbError(f"--input {name} is the task: leave the cell body empty, or drop --input.")
    if name not in namespace:
        raise DeepnbError(f"No variable named {name!r}: --input takes a variable that holds a dict.")
    value = namespace[name]
    if not isinstance(value, dict | str):
        raise DeepnbError(
            f"{name} holds a {type(value).__name__}: --input takes a dict of the graph's input keys."
        )
    return value


def context_variable(name: str | None, namespace: dict[str, Any]) -> dict[str, Any] | None:
    """``--context VAR``: the runtime context in ``VAR`` (``None`` without the option)."""
    if name is None:
        return None
    if name not in namespace:
        raise DeepnbError(f"No variable named {name!r}: --context takes a variable that holds a dict.")
    value = namespace[name]
    if not isinstance(value, dict):
        raise DeepnbError(f"{name} holds a {type(value).__name__}: --context takes a dict of context keys.")
    return value


def schema_variable(name: str | None, namespace: dict[str, Any]) -> Any:
    """``--schema VAR``: the ``response_format`` in ``VAR`` (``None`` without the option)."""
    if name is None:
        return None
    if name not in namespace:
        raise DeepnbError(
            f"No variable named {name!r}: --schema takes a variable holding {structured.SCHEMA_KINDS}."
        )
    return structured.check_schema(namespace[name], variable=name)


def compare(
    models: str,
    agent: str | None,
    prompt: Any,
    options: dict[str, Any],
    *,
    auto_approve: bool,
    namespace: dict[str, Any],
    context: dict[str, Any] | None = None,
) -> Any:
    """``--compare A,B``: the task on each model at once (``deepnb.compare``)."""
    from deepnb.many.comparing import compare as start  # noqa: PLC0415  # lazy: only a compare cell needs it

    names = [name.strip() for name in models.split(",")]
    if not all(names):
        raise DeepnbError(
            f"--compare {models!r} has an empty model: write models between commas, e.g. --compare A,B."
        )
    chosen = {key: value for key, value in options.items() if value is not None}
    return start(
        prompt, names, agent=agent, auto_approve=auto_approve, namespace=namespace, context=context, **chosen
    )


def workbench_for(
    name: str | None, model: str | None, options: dict[str, Any], namespace: dict[str, Any]
) -> Session:
    """The workbench a cell runs on: defined on first use, rebuilt when ``-m`` or an option
    (``--interrupt-on``, ``--interpreter``, ``--schema``) changes it (its threads are kept). ``options`` holds
    the cell's agent options, ``None`` where the cell doesn't set one."""
    from deepnb.models import resolve_model  # noqa: PLC0415  # lazy: it imports langchain_core

    name = name or agent_registry.current_name()
    changes = {key: value for key, value in options.items() if value is not None}
    existing = _registered_or_config(name, skip_untrusted=model is not None)
    if existing is None:
        if model is None and not os.environ.get("DEEPNB_MODEL") and name != agent_registry.DEFAULT_AGENT:
            building.get(name)  # raises: no such agent, with how to define it
        chat = resolve_model(model, namespace)
        spec = AgentSpec(chat, model or os.environ["DEEPNB_MODEL"], changes)
        return building.install(name, spec, make_checkpointer("memory"), None)
    if model is None and not changes:
        return existing
    if why := existing.cannot_rebuild:
        raise DeepnbError(
            f"Agent {name!r} cannot take -m, --interrupt-on, --interpreter or --schema ({why}): "
            f"{existing.how_to_change}."
        )
    declared = existing.declared_spec
    assert declared is not None  # built from a spec, so declared with one
    spec = declared
    if model is not None and model != spec.model_label:
        spec = AgentSpec(resolve_model(model, namespace), model, spec.options, spec.todos)
    different = {k: v for k, v in changes.items() if spec.options.get(k) != v}
    if different:
        spec = spec.with_options(**different)
    return existing if spec is existing.declared_spec else building.rebuild(existing, spec)


def _registered_or_config(name: str, *, skip_untrusted: bool) -> graph_session.GraphSession | None:
    """The workbench ``name``: registered, or built now from ``deepnb.toml``. With
    ``skip_untrusted`` (the cell names its model), a definition that waits for trust is left
    out, said in one line, and the cell builds its agent from its own options."""

    try:
        return building.lookup(name)
    except UntrustedConfig as exc:
        if not skip_untrusted:
            raise
        print(f"deepnb: {exc} Running -m's model without it.", file=sys.stderr)
        return None
