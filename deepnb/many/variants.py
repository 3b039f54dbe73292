"""An experiment's variants, each made a session before any run starts: what changes from the
base agent (``agent=``, default the current one) for each label.

A variant is a registered agent's name (run as it is: a connected agent runs on its server), a
model (a ``provider:model`` / ``scripted:`` / ``demo:`` string or a chat model object), a system
prompt (a string with spaces), a dict of ``deepnb.agent`` options (``model``, ``system_prompt``,
``skills``, ``subagents``, ...), a session (a workbench, local or remote), or a callable that
returns one. Copies of the base agent are built with the registered extensions, each on an
in-memory checkpointer of its own, and not registered: the base agent stays as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.core.threads.checkpointers import make_checkpointer
from deepnb.engine.spec import AgentSpec, model_label
from deepnb.session import agents as agents_registry
from deepnb.session import building
from deepnb.session.config import agent_names
from deepnb.session.protocol import Session


def build(
    variants: Mapping[str, Any] | None,
    agent: str | None,
    namespace: Mapping[str, Any] | None = None,
    *,
    cache: Any = None,
) -> dict[str, tuple[Session, str]]:
    """Each variant's session and what it is (a few words for the log), by label; one line for
    the first that cannot be made, and then none is. ``cache`` (a LangChain ``BaseCache``):
    given to each variant's model, so a registered agent run as it is becomes a copy of it with
    the cached model (one that cannot be rebuilt, a workbench given as such and a function's
    runs as they are, uncached)."""
    if variants is None:
        session = building.get(agent)
        return {session.name: (_as_is(session, namespace, cache), f"agent {session.name}")}
    if not isinstance(variants, Mapping):
        raise DeepnbError(
            "variants= is a dict of label -> what changes, e.g. "
            "{'short': 'Answer in one line.', 'gpt': 'openai:gpt-5.5'}."
        )
    if not variants:
        raise DeepnbError("variants= is empty: give at least one label -> what changes.")
    base_name = agent or agents_registry.current_name()
    built: dict[str, tuple[Session, str]] = {}
    for label, value in variants.items():
        text = str(label).strip()
        if not text:
            raise DeepnbError("A variant has an empty label: give each variant a name.")
        if text in built:
            raise DeepnbError(f"Variant {text!r} is given twice: each label names one variant.")
        built[text] = _variant(
            text, value, base_name, explicit=agent is not None, namespace=namespace, cache=cache
        )
    return built


def _as_is(session: Session, namespace: Mapping[str, Any] | None, cache: Any) -> Session:
    """A registered agent run as it is: itself, or with a cache a copy of it whose model has
    the cache (itself where it cannot be built again: a served agent, a compiled graph)."""
    if cache is None or getattr(session, "declared_spec", None) is None:
        return session
    return _copy(session.name, session.name, True, {}, namespace, cache)


def _variant(
    label: str,
    value: Any,
    base_name: str,
    *,
    explicit: bool,
    namespace: Mapping[str, Any] | None,
    cache: Any = None,
) -> tuple[Session, str]:
    if isinstance(value, Session):
        return value, f"agent {value.name}"
    if isinstance(value, str):
        text = value.strip()
        if text in agents_registry.registered() or text in agent_names():
            return _as_is(building.get(text), namespace, cache), f"agent {text}"
        if text and not any(c.isspace() for c in text):
            if ":" in text or (namespace is not None and text in namespace):
                return _copy(label, base_name, explicit, {"model": text}, namespace, cache), f"model {text}"
            raise DeepnbError(
                f"Variant {label!r}: {text!r} is no registered agent and no model (provider:model, "
                "scripted:PATH, demo:NAME); for a system prompt give {'system_prompt': ...}."
            )
        if not text:
            raise DeepnbError(f"Variant {label!r} is an empty string: give a model, an agent or a prompt.")
        return _copy(label, base_name, explicit, {"system_prompt": text}, namespace, cache), "system prompt"
    if isinstance(value, Mapping):
        options = {str(k): v for k, v in value.items()}
        made = _copy(label, base_name, explicit, options, namespace, cache)
        return made, "options " + ", ".join(sorted(options))
    if hasattr(value, "invoke") and hasattr(value, "bind_tools"):  # a chat model
        made = _copy(label, base_name, explicit, {"model": value}, namespace, cache)
        return made, f"model {model_label(value)}"
    if callable(value):
        return _called(label, value), "built by " + getattr(value, "__name__", type(value).__name__)
    raise DeepnbError(
        f"Variant {label!r} is a {type(value).__name__}: give a model, a registered agent's name, a "
        "system prompt, a dict of agent options, a workbench, or a function that returns one."
    )


def _cached(chat: Any, cache: Any) -> Any:
    """A copy of the chat model ``chat`` answering through ``cache`` (``chat`` itself without
    one, or where it takes no cache): the model given stays as it was."""
    if cache is None or not hasattr(chat, "cache") or not hasattr(chat, "model_copy"):
        return chat
    return chat.model_copy(update={"cache": cache})


def _called(label: str, make: Callable[[], Any]) -> Session:
    try:
        made = make()
    except DeepnbError:
        raise
    except Exception as exc:
        raise DeepnbError(f"Variant {label!r}: building it failed: {type(exc).__name__}: {exc}") from None
    if not isinstance(made, Session):
        raise DeepnbError(
            f"Variant {label!r}: its function returned a {type(made).__name__}, not a workbench "
            "(return deepnb.agent(...), deepnb.connect(...) or deepnb.get(NAME))."
        )
    return made


def _copy(
    label: str,
    base_name: str,
    explicit: bool,
    options: dict[str, Any],
    namespace: Mapping[str, Any] | None,
    cache: Any = None,
) -> Session:
    """A copy of the base agent with ``options`` (``model`` among them resolved; given
    ``cache``, the model is a copy of it with that cache)."""
    from deepnb.models import resolve_model  # noqa: PLC0415  # lazy: it imports langchain_core

    base = building.lookup(base_name)
    if base is None and (explicit or base_name != agents_registry.DEFAULT_AGENT):
        building.raise_unknown(base_name)
    spec = base.declared_spec if base is not None else None
    if base is not None and spec is None:
        raise DeepnbError(
            f"Variant {label!r}: agent {base.name!r} cannot be built again with changes "
            f"({base.cannot_rebuild}): "
            "make each variant a registered agent instead (variants={'a': 'agent-a', ...})."
        )
    model = options.pop("model", None)
    if spec is None:
        if model is None:
            raise DeepnbError(
                f"Variant {label!r} changes an agent, and there is none yet: pass agent=NAME, or give "
                "each variant a model ({'model': 'demo:research', ...})."
            )
        spec = AgentSpec(None, "")
    if model is not None:
        chat = resolve_model(model.strip() if isinstance(model, str) else model, dict(namespace or {}))
        spec = replace(spec.declared or spec, model=_cached(chat, cache), model_label=model_label(model))
    elif cache is not None and spec.model is not None:
        chat = resolve_model(
            spec.model.strip() if isinstance(spec.model, str) else spec.model, dict(namespace or {})
        )
        spec = replace(spec.declared or spec, model=_cached(chat, cache))
    try:
        changed = spec.with_options(**options)
    except DeepnbError as exc:
        raise DeepnbError(f"Variant {label!r}: {exc}") from None
    return building.variant(
        base_name, changed, make_checkpointer("memory"), origin=base.origin if base else None
    )
