"""Models (or agents) side by side: ``deepnb.compare`` runs one task on each, in parallel, every
run on a new thread, and returns a :class:`Comparison` at once."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from deepnb.core.displayable import Displayable, LiveDisplayable
from deepnb.core.errors import DeepnbError
from deepnb.core.frames import records_frame, records_parquet
from deepnb.core.graphs.structured import output_fields
from deepnb.core.text.safe_display import safe_display
from deepnb.core.threads.checkpointers import make_checkpointer
from deepnb.engine.spec import AgentSpec, model_label
from deepnb.session import agents as agents_registry
from deepnb.session import building
from deepnb.session.protocol import Session
from deepnb.session.run import Run, follow

Column = Literal["model", "agent"]
"""What a comparison's columns are: models of one agent, or agents."""


@dataclass(frozen=True, repr=False)  # repr: the renderer's text table
class ComparisonTable(Displayable):
    """A comparison's table: one record per column (``records``, as ``to_records()`` gives them);
    drawn as text and escaped HTML."""

    records: tuple[Mapping[str, Any], ...]
    by: Column = "model"


@safe_display
class Comparison(LiveDisplayable):
    """One task run by several models (or agents) at once. ``runs`` maps each model (or agent)
    to its :class:`~deepnb.session.run.Run`; displayed, the runs' live views side by side and a table
    that fills in as they finish."""

    def __init__(self, prompt: str | Mapping[str, Any], runs: Mapping[str, Run], *, by: Column) -> None:
        self.prompt = prompt
        self.runs: dict[str, Run] = dict(runs)
        self.by: Column = by

    @property
    def done(self) -> bool:
        """Whether every run stopped (done, waiting for approval, failed or stopped)."""
        return all(run.done for run in self.runs.values())

    def wait(self, timeout: float | None = None) -> Comparison:
        """Block until every run stops; ``timeout`` (seconds) is for all of them together."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for run in self.runs.values():
            run.wait(None if deadline is None else max(0.0, deadline - time.monotonic()))
        return self

    async def wait_async(self, *, settled: bool = False) -> Comparison:
        """Await every run from the kernel's event loop (``settled``: through approvals too)."""
        await asyncio.gather(*(run.wait_async(settled=settled) for run in self.runs.values()))
        return self

    def follow(self) -> Comparison:
        """Wait as a foreground cell does: Ctrl-C (a kernel interrupt) stops every run, then
        propagates."""
        return follow(self)

    def stop(self, *, reason: str = "stopped") -> None:
        """Stop every run still going or waiting for approval (each thread keeps its steps)."""
        for run in self.runs.values():
            if not run.done or run.status == "interrupted":
                run.stop(reason=reason)

    @property
    def id(self) -> str:
        """The runs' ids, as one line says them."""
        return ", ".join(run.id for run in self.runs.values())

    def to_records(self) -> list[dict[str, Any]]:
        """Per column: the model (or agent), status, result, steps (as the run's head line counts
        them), model calls (subagents' too), tool calls, tokens in and
        out (``None``: no model call reported usage) and ``tokens_unreported`` (model calls that
        reported none), seconds, error, and ``output`` (``run.output``) when a run answered in a
        structure."""
        structured = any(run.output is not None for run in self.runs.values())
        records = []
        for key, run in self.runs.items():
            state = run.state
            record: dict[str, Any] = {
                self.by: key,
                "status": run.status,
                "result": run.result,
                "steps": state.own_steps,
                "model_calls": state.steps,
                "tool_calls": state.tool_calls,
                **state.tokens.columns(),
                "seconds": round(state.elapsed, 1),
                "error": run.error,
            }
            if structured:
                record["output"] = run.output
            records.append(record)
        return records

    def table(self) -> ComparisonTable:
        """The records as a table (displayed: escaped HTML)."""
        return ComparisonTable(tuple(self.to_records()), self.by)

    def _flat_records(self) -> list[dict[str, Any]]:
        """The records with a structured output's fields as ``output.FIELD`` columns."""
        rows = []
        for record in self.to_records():
            fields = output_fields(record.pop("output", None)) or {}
            rows.append({**record, **{f"output.{name}": value for name, value in fields.items()}})
        return rows

    def to_pandas(self) -> Any:
        """The records as a ``pandas.DataFrame``, one row per column of the comparison; a
        structured output's fields become ``output.FIELD`` columns."""
        return records_frame(self._flat_records(), what="comparison")

    def to_parquet(self, path: str | os.PathLike[str]) -> Path:
        """The same rows as ``to_pandas()`` written to a Parquet file (pyarrow is optional)."""
        return records_parquet(self._flat_records(), path, what="comparison")

    def __repr__(self) -> str:
        said = ", ".join(f"{key} ({run.status})" for key, run in self.runs.items())
        return f"<Comparison of {len(self.runs)} {self.by}s: {said}>"


def compare(
    prompt: str | Mapping[str, Any],
    models: Sequence[Any] | Mapping[str, Any] | None = None,
    *,
    agents: Sequence[str] | None = None,
    agent: str | None = None,
    auto_approve: bool = False,
    namespace: Mapping[str, Any] | None = None,
    context: Mapping[str, Any] | None = None,
    **options: Any,
) -> Comparison:
    """Run ``prompt`` on each of ``models`` at once, each on a new thread, and return at once.

    ``models``: model strings (``provider:model``, ``scripted:PATH``, ``demo:NAME``) or chat
    models, or a dict of label → model. Each column is a copy of ``agent`` (default: the
    current agent) with that model, on threads of its own: the agent itself is not changed.
    ``agents`` instead names registered agents to compare as they are, each on a new thread of
    its own (which becomes its current thread). ``options`` are ``create_deep_agent`` keyword
    arguments every column gets (e.g. ``response_format=``); with ``agents``, each column is
    then a copy of its agent with them. ``namespace``: where a model given as a variable name
    is looked up (the magic passes the kernel's). ``context``: the runtime context every
    column's run is given.
    """
    if (models is None) == (agents is None):
        raise DeepnbError("Pass either models=[...] (one agent, several models) or agents=[...], not both.")
    if agents is not None:
        if agent is not None:
            raise DeepnbError(
                "agent= picks the agent whose models are compared: with agents=[...], leave it out."
            )
        columns = _columns(agents, "agent")
        sessions = {name: _agent_column(name, options) for name in columns}
        by: Column = "agent"
    else:
        assert models is not None
        columns = _columns(models, "model")
        sessions = _model_columns(columns, agent, options, namespace)
        by = "model"
    runs: dict[str, Run] = {}
    try:
        for key, session in sessions.items():
            runs[key] = session.start(prompt, new_thread=True, auto_approve=auto_approve, context=context)
    except BaseException:
        for run in runs.values():
            run.stop()
        raise
    return Comparison(prompt, runs, by=by)


def _columns(given: Sequence[Any] | Mapping[str, Any], kind: Column) -> dict[str, Any]:
    """Each model (or agent) by its label (a mapping's keys), refusing fewer than two and
    duplicates."""
    if isinstance(given, str):
        raise DeepnbError(f"{kind}s= takes a list, e.g. {kind}s=['{given}', ...], not one string.")
    pairs = (
        [(str(label), item) for label, item in given.items()]
        if isinstance(given, Mapping)
        else [(item if isinstance(item, str) else model_label(item), item) for item in given]
    )
    labels: dict[str, Any] = {}
    for label, item in pairs:
        label = label.strip()
        if not label:
            raise DeepnbError(f"An empty {kind} name: give each {kind} of the comparison by name.")
        if label in labels:
            hint = "" if isinstance(item, str) else f", or label them: {kind}s={{'a': ..., 'b': ...}}"
            raise DeepnbError(
                f"{kind.capitalize()} {label!r} is given twice: each column runs a different {kind}{hint}."
            )
        labels[label] = item
    if len(labels) < 2:
        raise DeepnbError(f"A comparison needs at least two {kind}s, got {len(labels)}: add another.")
    return labels


def _model_columns(
    columns: Mapping[str, Any],
    agent: str | None,
    options: Mapping[str, Any],
    namespace: Mapping[str, Any] | None,
) -> dict[str, Session]:
    """A copy of ``agent`` per model, all built before any run starts (a bad model is one line
    and nothing runs), on one in-memory checkpointer of their own."""
    from deepnb.models import resolve_model  # noqa: PLC0415  # lazy: it imports langchain_core

    name = agent or agents_registry.current_name()
    base = building.lookup(name)
    if base is None and (agent is not None or name != agents_registry.DEFAULT_AGENT):
        building.raise_unknown(name)  # the default agent need not exist: the models are given
    spec = base.declared_spec if base is not None else None
    if base is not None and spec is None:
        raise DeepnbError(
            f"Agent {base.name!r} cannot change its model ({base.cannot_rebuild}): compare agents instead, "
            "deepnb.compare(prompt, agents=[...])."
        )
    saver = make_checkpointer("memory")
    built: dict[str, Session] = {}
    for label, model in columns.items():
        chat = resolve_model(model.strip() if isinstance(model, str) else model, dict(namespace or {}))
        column = (
            replace(spec, model=chat, model_label=label) if spec else AgentSpec(chat, label)
        ).with_options(**options)
        built[label] = building.variant(name, column, saver, origin=base.origin if base else None)
    return built


def _agent_column(name: str, options: Mapping[str, Any]) -> Session:
    session = building.get(name)
    if not options:
        return session
    spec = session.declared_spec
    if spec is None:
        raise DeepnbError(
            f"Agent {name!r} cannot take agent options here ({session.cannot_rebuild}): "
            "compare it without them."
        )
    column = spec.with_options(**options)
    return building.variant(name, column, make_checkpointer("memory"), origin=session.origin)
