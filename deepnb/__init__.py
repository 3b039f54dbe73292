"""deepnb: a Jupyter-native workbench for Deep Agents.

``%load_ext deepnb`` registers the ``%deepagent`` / ``%%deepagent`` magics. Without magics,
``deepnb.agent(...)`` builds and registers an agent, ``deepnb.attach(graph)`` registers one you
compiled, ``deepnb.connect(url, assistant)`` one served over the Agent Protocol, and
``deepnb.get(name)`` returns a registered agent or builds one the project's ``deepnb.toml`` defines;
``deepnb.compare(prompt, models=[...])`` runs one task on several models side by side;
``deepnb.dataset(source, input=..., reference=...)`` reads a dataset as people have it (CSV,
JSON, Parquet, Hugging Face, Inspect, promptfoo, LangSmith) and says its field mapping;
``deepnb.experiment(dataset, variants=..., scorers=...)`` runs a dataset by each variant and
scores every run (``deepnb.scorers``), ``deepnb.load_experiment(path)`` reopens one from its log,
``deepnb.experiments()`` lists the logs with their headline scores and
``deepnb.compare_experiments(a, b)`` compares two over the rows they share;
``deepnb.deploy(path)`` writes those agents as a LangGraph Agent Server app and ``deepnb.serve()``
serves them with ``langgraph dev``. Extensions (``deepnb.extensions``) add tools, middleware and
backend routes to every agent deepnb builds.

The types those calls return (``Workbench``, ``Run``, ``Batch``, ``Files``), ``DeepnbError``, the replay model
``ScriptedChatModel`` and the ``extensions`` and ``models`` packages are attributes of ``deepnb``
too. They load on first use (PEP 562), so ``import deepnb`` imports no agent library.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = [
    "Batch",
    "Comparison",
    "Dataset",
    "DeepnbError",
    "Experiment",
    "Files",
    "Run",
    "ScriptedChatModel",
    "Workbench",
    "__version__",
    "agent",
    "attach",
    "compare",
    "compare_experiments",
    "connect",
    "dataset",
    "deploy",
    "experiment",
    "experiments",
    "export",
    "extensions",
    "get",
    "load_experiment",
    "load_ipython_extension",
    "models",
    "scorers",
    "serve",
    "trace",
    "unload_ipython_extension",
]

# Public name -> the module that defines it; imported on first attribute access.
_LAZY_NAMES = {
    "Batch": "deepnb.many.batch",
    "Comparison": "deepnb.many.comparing",
    "Dataset": "deepnb.many.datasets",
    "DeepnbError": "deepnb.core.errors",
    "Experiment": "deepnb.many.experiment",
    "Files": "deepnb.session.files",
    "Run": "deepnb.session.run",
    "ScriptedChatModel": "deepnb.models.scripted",
    "Workbench": "deepnb.session.local",
}
# Documented modules, reachable as ``deepnb.extensions`` without importing them first: name -> module.
_LAZY_MODULES = {
    "extensions": "deepnb.extensions",
    "models": "deepnb.models",
    "scorers": "deepnb.many.scorers",
}

if TYPE_CHECKING:
    from collections.abc import Mapping

    from deepnb import extensions, models
    from deepnb.core.errors import DeepnbError
    from deepnb.engine.tracing.switch import TraceStatus
    from deepnb.many import scorers
    from deepnb.many.across import ExperimentComparison
    from deepnb.many.batch import Batch
    from deepnb.many.comparing import Comparison
    from deepnb.many.datasets import Dataset
    from deepnb.many.experiment import Experiment
    from deepnb.many.history import Experiments
    from deepnb.models.scripted import ScriptedChatModel
    from deepnb.session.files import Files
    from deepnb.session.graph_session import GraphSession
    from deepnb.session.local import Workbench
    from deepnb.session.remote import RemoteWorkbench
    from deepnb.session.run import Run


def __getattr__(name: str) -> Any:
    """Import a public name or documented subpackage the first time it is used (PEP 562)."""
    if name in _LAZY_NAMES:
        value = getattr(importlib.import_module(_LAZY_NAMES[name]), name)
    elif name in _LAZY_MODULES:
        value = importlib.import_module(_LAZY_MODULES[name])
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


# The functions below import their module when called: deepnb.session.building and deepnb.magics bring in
# pygments and, on first use, deepagents and LangChain, which `import deepnb` and `%load_ext deepnb`
# must not load.


def agent(name: str = "default", model: Any = None, **options: Any) -> Workbench:
    """Build a deep agent, register it under ``name`` and return its workbench.

    Takes ``create_deep_agent``'s keyword arguments, plus ``checkpointer="memory" | "sqlite:PATH"
    | saver``. ``model``: a chat model, ``provider:model``, ``scripted:PATH`` or ``demo:NAME``.
    """
    from deepnb.session.building import agent as build  # noqa: PLC0415  # lazy: see above

    return build(name, model, **options)


def attach(graph: Any, name: str = "default", **options: Any) -> Workbench:
    """Register a compiled agent under ``name`` so ``%%deepagent -a NAME`` can run it."""
    from deepnb.session.building import attach as register  # noqa: PLC0415  # lazy: see above

    return register(graph, name, **options)


def compare(
    prompt: str | Mapping[str, Any],
    models: Sequence[Any] | Mapping[str, Any] | None = None,
    *,
    agents: Sequence[str] | None = None,
    agent: str | None = None,
    context: Mapping[str, Any] | None = None,
    **options: Any,
) -> Comparison:
    """Run ``prompt`` on several models at once, side by side, each on a new thread; returns a
    ``Comparison`` at once (``.runs``, ``.wait()``, ``.stop()``, ``.table()``, ``.to_records()``,
    ``.to_pandas()``). Each column is a copy of ``agent`` (default: the current agent) with that
    model; ``agents=[...]`` compares registered agents instead. ``options``: ``auto_approve`` and
    ``create_deep_agent``'s keyword arguments (e.g. ``response_format=``) for every column;
    ``context``: the runtime context each column's run is given."""
    from deepnb.many.comparing import compare as start  # noqa: PLC0415  # lazy: see above

    return start(prompt, models, agents=agents, agent=agent, context=context, **options)


def dataset(
    source: Any,
    *,
    input: str | None = None,
    reference: str | None = None,
    id: str | None = None,
    format: str | None = None,
) -> Dataset:
    """Read ``source`` (a list of rows, a DataFrame, a Hugging Face dataset, LangSmith examples,
    or a ``.csv``/``.tsv``/``.json``/``.jsonl``/``.yaml``/``.parquet`` file, an Inspect ``.eval``
    log, a folder saved with ``save_to_disk``) into a ``Dataset`` for ``deepnb.experiment``.
    ``input`` / ``reference`` / ``id`` name the field (or dotted path) each comes from instead of
    the rules; ``format`` says how to read a file (or its layout: ``inspect``, ``promptfoo``,
    ``langsmith``). Shown, it says which field is which."""
    from deepnb.many.datasets import dataset as read  # noqa: PLC0415  # lazy: see above

    return read(source, input=input, reference=reference, id=id, format=format)


def experiment(
    dataset: Any,
    *,
    variants: Mapping[str, Any] | None = None,
    agent: str | None = None,
    scorers: Any = (),
    epochs: int = 1,
    concurrency: int | None = None,
    template: str | None = None,
    name: str | None = None,
    log: str | os.PathLike[str] | None = None,
    baseline: str | None = None,
    input: str | None = None,
    reference: str | None = None,
    **options: Any,
) -> Experiment:
    """Run ``dataset`` (a list of strings or dicts, a DataFrame, a CSV/JSONL path, LangSmith
    ``inputs``/``outputs`` records) by each of ``variants`` (label -> a model, a registered
    agent, a system prompt, ``deepnb.agent`` options, a workbench or a function making one;
    default: ``agent`` as it is) ``epochs`` times, each run scored by ``scorers``
    (``deepnb.scorers`` or any ``(output, reference, run)`` function) and written to the JSONL
    ``log``. ``concurrency``: runs at once in this kernel (default 8); a served agent's runs go to
    its server, whose job slots decide how many run at once (at most ``concurrency`` handed to it
    at once if given). Returns the ``Experiment`` at once; a ``log`` that exists is resumed.
    ``dataset`` is anything ``deepnb.dataset`` reads, or a ``Dataset``; ``input`` /
    ``reference`` name the fields as there. ``options``: ``auto_approve``."""
    from deepnb.many.experiment import experiment as start  # noqa: PLC0415  # lazy: see above

    return start(
        dataset,
        variants=variants,
        agent=agent,
        scorers=scorers,
        epochs=epochs,
        concurrency=concurrency,
        template=template,
        name=name,
        log=log,
        baseline=baseline,
        input=input,
        reference=reference,
        **options,
    )


def load_experiment(path: str | os.PathLike[str]) -> Experiment:
    """Reopen an experiment from its log: its matrix, records and scores (read-only runs)."""
    from deepnb.many.experiment import load_experiment as reopen  # noqa: PLC0415  # lazy: see above

    return reopen(path)


def experiments(folder: str | os.PathLike[str] | None = None) -> Experiments:
    """The experiment logs under ``folder`` (default ``.deepnb/experiments``), the newest first, as
    a table (a list of dicts: name, created, variants, rows, epochs, runs, done, headline
    ``scores`` per scorer and variant, and ``error`` for a log that cannot be read), with
    ``to_records()`` and ``to_pandas()``."""
    from deepnb.many.history import experiments as listing  # noqa: PLC0415  # lazy: see above

    return listing(folder)


def compare_experiments(
    a: Experiment | str | os.PathLike[str],
    b: Experiment | str | os.PathLike[str],
    *,
    variant: str | tuple[str, str] | None = None,
) -> ExperimentComparison:
    """Experiment ``a`` against experiment ``b`` (each an experiment or its log's path) over the
    rows they share (matched by id, else by their fields), with ``compare``'s statistics per
    scorer: every variant both have against itself, or ``variant="x"``, or ``variant=("x", "y")``
    (a's x against b's y); what only one has is counted and said."""
    from deepnb.many.across import compare_experiments as across  # noqa: PLC0415  # lazy: see above

    return across(a, b, variant=variant)


def connect(
    url: str,
    assistant: str,
    *,
    name: str | None = None,
    api_key: str | None = None,
    headers: Mapping[str, str] | None = None,
    thread: str | None = None,
) -> RemoteWorkbench:
    """Connect to ``assistant`` (an assistant or graph id) on the Agent Protocol server at ``url``
    (``langgraph dev``, a deployment) and register it as ``name`` (default: ``assistant``), so
    ``%%deepagent -a NAME`` and every subcommand work on it. ``api_key`` is sent as ``x-api-key``;
    a ``user:password@`` in ``url`` as basic auth, never shown. Runs go to a new thread unless
    ``thread`` names one of the server's threads."""
    from deepnb.session.remote import connect as join  # noqa: PLC0415  # lazy: it imports langgraph_sdk

    return join(url, assistant, name=name, api_key=api_key, headers=headers, thread=thread)


def get(name: str | None = None) -> GraphSession:
    """The agent registered as ``name`` (the current one by default); one that the project's
    ``deepnb.toml`` (or ``[tool.deepnb]`` in ``pyproject.toml``) defines is built on first use."""
    from deepnb.session.building import get as lookup  # noqa: PLC0415  # lazy: see above

    return lookup(name)


def deploy(path: str | os.PathLike[str], *, agents: Sequence[str] | None = None, force: bool = False) -> Any:
    """Write the project's ``deepnb.toml`` agents (all, or ``agents``) into the folder ``path`` as
    a LangGraph Agent Server app (``langgraph.json`` and its module), which ``langgraph dev``
    serves and ``langgraph build`` accepts. ``force`` replaces a deployment already there."""
    from deepnb.ship.deploy import deploy as write  # noqa: PLC0415  # lazy: see above

    return write(path, agents=agents, force=force)


def export(
    path: str | os.PathLike[str], *, thread: str | None = None, agent: str | None = None, force: bool = False
) -> Any:
    """Write ``thread`` (default: the current one) of ``agent`` (default: the current agent) to
    ``path`` (``.ipynb``) as a standalone notebook that opens without a kernel: each prompt, the
    run's view where this kernel has the run (else the replies), and the files the agent wrote.
    ``force`` replaces a notebook already there."""
    from deepnb.session.building import get as lookup  # noqa: PLC0415  # lazy: see above
    from deepnb.ship.exporting import export_thread  # noqa: PLC0415  # lazy: see above

    return export_thread(lookup(agent, build=False), path, thread=thread, force=force)


def serve(agents: Sequence[str] | None = None, *, port: int | None = None, connect: bool = True) -> Any:
    """Deploy the project's agents into ``.deepnb/served/`` and start ``langgraph dev`` on it on
    127.0.0.1 in the background; returns the server (``url``, ``graphs``, ``log``, ``stop()``).
    With ``connect``, each served agent is connected under its name (``deepnb.connect``), so
    ``%%deepagent -a NAME`` runs on the server until it stops."""
    from deepnb.ship.serve import serve as start  # noqa: PLC0415  # lazy: see above

    return start(agents, port=port, connect=connect)


def trace(
    endpoint: str | None = None,
    *,
    headers: Mapping[str, str] | None = None,
    project: str | None = None,
    enabled: bool = True,
    **options: Any,
) -> TraceStatus:
    """Send every run from now on as OpenTelemetry spans with the OpenInference conventions to
    ``endpoint``, an OTLP/HTTP traces URL (Phoenix, Langfuse, any collector): model and tool
    calls, subagents, decisions, and an experiment's runs with their row, variant, epoch and
    scores. ``headers`` go with every export (``${NAME}`` is read from the environment; they are
    never shown); ``project`` names the project a trace tool files them under. With nothing
    given: the project's ``deepnb.toml`` ``[trace]`` table, else ``OTEL_EXPORTER_OTLP_ENDPOINT``,
    else Phoenix on this machine. ``options``: ``timeout`` (seconds per export), ``queue``
    (spans that may wait; more are dropped and counted), ``delay``, ``max_value``.
    ``enabled=False`` turns tracing off. Returns the status (``.flush()`` sends what waits)."""
    from deepnb.engine.tracing.switch import trace as turn  # noqa: PLC0415  # lazy: see above

    return turn(endpoint, headers=headers, project=project, enabled=enabled, **options)


def load_ipython_extension(ipython: Any) -> None:
    """Register the magics (``%load_ext deepnb``). Imports no agent library."""
    from deepnb.magics.magic import load  # noqa: PLC0415  # lazy: see above

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """Remove the magics and run the extensions' shutdown callbacks."""
    from deepnb.magics.magic import unload  # noqa: PLC0415  # lazy: see above

    unload(ipython)
