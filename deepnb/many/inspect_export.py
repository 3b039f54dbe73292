"""``exp.to_inspect(folder)``: an experiment written as Inspect AI eval logs, one per variant,
that Inspect's own reader (``inspect_ai.log.read_eval_log``) and ``inspect view`` open.

Why one log per variant: an Inspect log is one task run by one model. Its samples are keyed by
(id, epoch), its ``results`` are one figure per scorer and its ``model_usage`` is by model, so
two variants in one log would collide on every sample and be averaged together. Each variant's
log names the experiment as its ``task`` and the variant in ``task_args`` (``{"variant": ...}``,
what ``inspect view`` shows beside the task), in ``tags`` and in ``eval.metadata["deepnb"]``
(with what the variant was, the log's ``definitions`` entry, and the dataset's SHA-256).

What each log holds (Inspect's log format, version 2, as plain JSON; see
:mod:`deepnb.many.inspect_logs` for the reading side): ``eval`` (``task``, ``created``, ``model``
as ``provider/name``, ``dataset`` with its name, location, rows, sample ids and ``sha256`` in the
metadata, ``config.epochs`` and ``config.epochs_reducer``, ``scorers`` each with the metrics
``accuracy`` and ``stderr``); one sample per ended run (``id``: the row's id, else its position
from 1; ``epoch`` from 1; ``input`` the prompt or the chat messages; ``target`` the reference;
``messages``; ``output`` a ModelOutput with the answer; ``scores`` each with ``value``,
``answer`` and ``explanation`` (the scorer's comment), a person's grade with ``metadata.human``;
``model_usage``; ``total_time`` and ``working_time`` the run's latency; an ``error`` for a run
that failed); ``plan`` (one step, the variant's agent: Inspect's header reader needs a plan);
and ``results`` and ``reductions`` computed here as Inspect computes them (Inspect's
reader does not compute them: ``recompute_metrics`` does only when asked), so its figures are
``exp.summary()``'s means. A run not ended yet is not a sample (the log's ``status`` is then
``started``); a scorer that gave no score is left out of that sample's scores (its error in the
sample's ``metadata.scorer_errors``), and a scorer with no score left once reduced (e.g. fewer
scored epochs than ``pass_at_k``'s k) is left out of the results, where ``summary()`` has no
mean for it either (Inspect's ``recompute_metrics`` would list it with NaN figures). An
``epochs_reducer`` that is a function, which Inspect cannot run, is named in the metadata only;
the results are reduced by it all the same.

Written as ``.json``, one of Inspect's two log formats (the other, ``.eval``, is a zip archive of
the same documents), with the standard library alone, so deepnb needs no Inspect package;
named ``{created}_{task}_{id}.json`` with the ISO time first, as Inspect names them: ``inspect
view`` and ``list_eval_logs`` list a ``.json`` log only under such a name. The id is derived from
the experiment and the variant, so writing again replaces the same files.
Every string is redacted of secrets as the experiment's log is (:func:`deepnb.many.log.logged`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import os
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deepnb.core.errors import DeepnbError
from deepnb.core.text.safe_regex import compile_bounded
from deepnb.many import log as logs
from deepnb.many import provenance, stats
from deepnb.many.datasets import Row, chat_messages
from deepnb.many.record import RunRecord

if TYPE_CHECKING:
    from deepnb.many.experiment import Experiment

VERSION = 2
"""Inspect's log format version."""
METRICS = ("accuracy", "stderr")
"""The metrics each scorer's results hold (Inspect's names, registered as ``inspect_ai/...``)."""
ENDED = ("done", "error", "cancelled")
ROLES = ("system", "user", "assistant", "tool")


def write(experiment: Experiment, folder: str | os.PathLike[str]) -> list[Path]:
    """Write one Inspect log per variant of ``experiment`` into ``folder`` (made if missing;
    its parent must exist) and return their paths, in the variants' order."""
    where = Path(folder)
    if where.exists() and not where.is_dir():
        raise DeepnbError(f"to_inspect({str(where)!r}): that is a file; name a folder for the Inspect logs.")
    if not where.parent.is_dir():
        raise DeepnbError(f"to_inspect({str(where)!r}): the folder {where.parent} does not exist.")
    header = _log_header(experiment.path)
    created = str(header.get("created") or dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))
    documents = logs_of(experiment, header, created)
    where.mkdir(exist_ok=True)
    written = []
    for document in documents:
        path = where / file_name(document)
        text = json.dumps(document, ensure_ascii=False, indent=1, allow_nan=False)
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise DeepnbError(f"The Inspect log {path} cannot be written: {exc.strerror or exc}.") from None
        written.append(path)
    return written


def logs_of(experiment: Experiment, header: Mapping[str, Any], created: str) -> list[dict[str, Any]]:
    """Each variant's Inspect log as a JSON document, redacted of secrets."""
    plan = experiment.plan
    rows = list(plan.rows)
    ids = sample_ids(rows)
    by_variant: dict[str, list[RunRecord]] = {label: [] for label in plan.variants}
    for record in experiment.records.values():
        if record.variant in by_variant and record.status in ENDED:
            by_variant[record.variant].append(record)
    definitions = header.get("definitions")
    definitions = definitions if isinstance(definitions, Mapping) else {}
    found = header.get("dataset")
    dataset: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    sha256 = provenance.dataset_hash(rows)
    scorers = experiment.scorer_names()
    documents = []
    for label in plan.variants:
        definition = definitions.get(label)
        definition = definition if isinstance(definition, Mapping) else {}
        model = model_name(definition.get("model"), label)
        records = sorted(by_variant[label], key=lambda r: (r.row, r.epoch))
        samples = [sample(r, plan.rows[r.row], ids[r.row], model) for r in records if r.row < len(rows)]
        planned = len(rows) * plan.epochs
        spec = {
            "eval_id": _short_id(created, plan.name, label, "eval"),
            "run_id": _short_id(created, plan.name, "run"),
            "created": created,
            "task": plan.name,
            "task_id": _short_id(created, plan.name, "task"),
            "task_version": 0,
            "task_args": {"variant": label},
            "tags": [label],
            "dataset": {
                "name": plan.name,
                "location": dataset.get("source"),
                "samples": len(rows),
                "sample_ids": [ids[row.index] for row in rows],
                "shuffled": False,
            },
            "model": model,
            "config": {"epochs": plan.epochs, **_reducer_config(plan.epochs_reducer)},
            "packages": _packages(header),
            "scorers": [scorer_spec(name) for name in scorers],
            "metadata": {
                "deepnb": {
                    "variant": label,
                    "definition": dict(definition),
                    "dataset_sha256": sha256,
                    "epochs_reducer": plan.epochs_reducer.name,
                    "template": plan.template,
                    "baseline": plan.baseline,
                }
            },
        }
        results, reductions = results_of(samples, scorers, plan.epochs_reducer, len(samples))
        document = {
            "version": VERSION,
            "status": "success" if len(records) >= planned else "started",
            "eval": spec,
            "plan": {
                "name": "plan",
                "steps": [
                    {"solver": "deepnb/agent", "params": {"variant": label, "agent": definition.get("agent")}}
                ],
                "config": {},
            },
            "results": results,
            "stats": {"started_at": created, "completed_at": "", "model_usage": _total_usage(samples)},
            "samples": samples,
            "reductions": reductions,
        }
        documents.append(logs.logged(document))
    return documents


def sample_ids(rows: Sequence[Row]) -> dict[int, int | str]:
    """Each row's sample id: its own id where every row has one and they differ (a number or
    text), else its position counted from 1 (as Inspect numbers a dataset's samples)."""
    given = [row.id for row in rows]
    usable = all(isinstance(i, int | str) and not isinstance(i, bool) for i in given)
    if usable and len({str(i) for i in given}) == len(given):
        return {row.index: row.id for row in rows}
    return {row.index: row.index + 1 for row in rows}


def model_name(label: Any, variant: str) -> str:
    """A variant's model as Inspect names one, ``provider/name`` (deepnb's ``provider:name``);
    a variant with no model label is ``deepnb/<variant>``."""
    if isinstance(label, str) and label.strip():
        provider, _, name = label.strip().partition(":")
        return f"{provider}/{name}" if name else f"deepnb/{provider}"
    return f"deepnb/{variant}"


def sample(record: RunRecord, row: Row, sample_id: int | str, model: str) -> dict[str, Any]:
    """One run as an Inspect sample (see the module's docstring)."""
    answer = record.result or ""
    usage = _usage(record)
    data: dict[str, Any] = {
        "id": sample_id,
        "epoch": record.epoch + 1,
        "input": sample_input(row),
        "target": target(row.reference),
        "messages": [m for m in (message(item) for item in record.messages) if m is not None],
        "output": {
            "model": model,
            "choices": [
                {
                    "message": {"role": "assistant", "content": answer, "source": "generate"},
                    "stop_reason": "stop" if record.status == "done" else "unknown",
                }
            ],
            "completion": answer,
            **({"usage": usage} if usage else {}),
            **({"error": record.error} if record.error else {}),
        },
        "scores": {},
        "metadata": {
            **dict(row.metadata),
            "deepnb": {
                "row": record.row,
                "status": record.status,
                "cost": record.cost,
                # Inspect's usage has no word for a call that reported none: deepnb's count says it.
                "tokens_unreported": record.tokens_unreported,
                "attempts": record.attempts,
                "cached": record.cached,
                "thread_id": record.thread_id,
            },
        },
        "model_usage": {model: usage} if usage else {},
        "total_time": record.latency,
        "working_time": record.latency,
    }
    errors = {}
    for name, score in record.scores.items():
        if score.score is None or not math.isfinite(score.score):
            errors[name] = score.error or "no score"
            continue
        data["scores"][name] = {
            "value": score.score,
            "answer": answer,
            "explanation": score.comment,
            "metadata": {"human": True} if score.human else {},
        }
    if errors:
        data["metadata"]["scorer_errors"] = errors
    if record.status != "done":
        message_text = record.error or record.status
        data["error"] = {"message": message_text, "traceback": "", "traceback_ansi": ""}
    return data


def sample_input(row: Row) -> str | list[dict[str, Any]]:
    """What the run was given: its prompt, or a chat input's messages as Inspect's."""
    if not isinstance(row.given, str):
        found = chat_messages(row.given.get("messages"))
        if found:
            return [
                {"role": m["role"] if m["role"] in ROLES[:3] else "user", "content": m["content"]}
                for m in found
            ]
    return row.prompt


def target(reference: Any) -> str | list[str]:
    """A reference as Inspect's target: text, a list of texts, ``""`` for none, else JSON."""
    if reference is None:
        return ""
    if isinstance(reference, str):
        return reference
    if isinstance(reference, list) and all(isinstance(item, str) for item in reference):
        return list(reference)
    return json.dumps(logs.jsonable(reference), ensure_ascii=False, sort_keys=True)


def message(item: Mapping[str, Any]) -> dict[str, Any] | None:
    """An OpenAI-style message dict (the log's) as an Inspect chat message (``None``: not one)."""
    role = item.get("role")
    if role not in ROLES:
        role = "system" if role == "developer" else None
    if role is None:
        return None
    out: dict[str, Any] = {"role": role, "content": _text(item.get("content"))}
    if role == "assistant":
        calls = [_tool_call(call) for call in item.get("tool_calls") or () if isinstance(call, Mapping)]
        if calls:
            out["tool_calls"] = calls
    if role == "tool":
        out["tool_call_id"] = item.get("tool_call_id")
        out["function"] = item.get("name")
    return out


def scorer_spec(name: str) -> dict[str, Any]:
    """A scorer as the log's ``eval.scorers`` names it, with its metrics."""
    return {
        "name": name,
        "options": {},
        "metrics": [{"name": f"inspect_ai/{metric}", "options": {}} for metric in METRICS],
        "metadata": {},
    }


def results_of(
    samples: Sequence[Mapping[str, Any]], scorers: Sequence[str], reducer: stats.Reducer, total: int
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The log's ``results`` and ``reductions`` as Inspect computes them: each sample id's epoch
    values reduced to one, then ``accuracy`` (their mean) and ``stderr`` (their standard
    deviation over the square root of their count; 0 for one)."""
    name = reducer.name if reducer.kind != "function" else "function"
    scores, reductions = [], []
    for scorer in scorers:
        by_id: dict[str, tuple[Any, list[tuple[int, float]]]] = {}
        for item in samples:
            given = item["scores"].get(scorer)
            if given is not None:
                by_id.setdefault(str(item["id"]), (item["id"], []))[1].append((item["epoch"], given["value"]))
        reduced = []
        for sample_id, epochs in by_id.values():
            value = reducer([v for _e, v in sorted(epochs, key=lambda pair: pair[0])])
            if value is not None:
                reduced.append({"value": value, "sample_id": sample_id})
        if not reduced:
            continue
        values = [entry["value"] for entry in reduced]
        error = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
        metrics = {"accuracy": statistics.fmean(values), "stderr": error}
        scores.append(
            {
                "name": scorer,
                "scorer": scorer,
                "reducer": name,
                "scored_samples": len(reduced),
                "unscored_samples": 0,
                "params": {},
                "metrics": {
                    key: {"name": key, "value": value, "params": {}} for key, value in metrics.items()
                },
            }
        )
        reductions.append({"scorer": scorer, "reducer": name, "samples": reduced})
    completed = sum(1 for item in samples if "error" not in item)
    return {"total_samples": total, "completed_samples": completed, "scores": scores}, reductions


_FRACTION = compile_bounded(r"\.\d+")
_STAMP = compile_bounded(r"^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}")
_NOT_IN_NAME = compile_bounded(r"[^A-Za-z0-9-]+")


def file_name(document: Mapping[str, Any]) -> str:
    """``{created}_{task}_{id}.json``, the time first as Inspect writes it (``:`` as ``-``)."""
    spec = document["eval"]
    # The time and the name come from the experiment's log, which may be anyone's: RE2 reads them.
    when = _FRACTION.sub("", str(spec["created"]).replace(":", "-"))
    if not _STAMP.search(when):
        when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H-%M-%S+00-00")
    task = _NOT_IN_NAME.sub("-", str(spec["task"])[:200]).strip("-")[:60] or "experiment"
    return f"{when}_{task}_{spec['eval_id']}.json"


def _reducer_config(reducer: stats.Reducer) -> dict[str, Any]:
    """``epochs_reducer`` as Inspect's config names it (none for a function Inspect cannot run)."""
    return {} if reducer.kind == "function" else {"epochs_reducer": [reducer.name]}


def _short_id(*parts: str) -> str:
    """A 22-character id (Inspect's length) derived from ``parts``: the same each time."""
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:22]


def _usage(record: RunRecord) -> dict[str, Any] | None:
    """A run's tokens as Inspect's ModelUsage (``None``: no model call reported any)."""
    if record.tokens_in is None and record.tokens_out is None:
        return None
    tokens_in, tokens_out = record.tokens_in or 0, record.tokens_out or 0
    usage: dict[str, Any] = {
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        "total_tokens": tokens_in + tokens_out,
    }
    if record.cost is not None:
        usage["total_cost"] = record.cost
    return usage


def _total_usage(samples: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The samples' usage summed by model (the log's ``stats.model_usage``)."""
    total: dict[str, dict[str, Any]] = {}
    for item in samples:
        for model, usage in item["model_usage"].items():
            into = total.setdefault(model, {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0})
            for key, value in usage.items():
                into[key] = into.get(key, 0) + value
    return total


def _packages(header: Mapping[str, Any]) -> dict[str, str]:
    versions = header.get("versions")
    if not isinstance(versions, Mapping):
        return {}
    return {str(k): str(v) for k, v in versions.items() if v is not None and k != "python"}


def _text(content: Any) -> str:
    """A message's content as text (the text of its parts where it has parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "\n".join(parts)
    return "" if content is None else json.dumps(logs.jsonable(content), ensure_ascii=False)


def _tool_call(call: Mapping[str, Any]) -> dict[str, Any]:
    """An OpenAI-style tool call as Inspect's ToolCall (its arguments a dict)."""
    function = call.get("function")
    function = function if isinstance(function, Mapping) else {}
    arguments: Any = function.get("arguments", call.get("args"))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            arguments = {"arguments": arguments}
    if not isinstance(arguments, Mapping):
        arguments = {"arguments": arguments}
    return {
        "id": str(call.get("id") or ""),
        "function": str(function.get("name", call.get("name")) or ""),
        "arguments": logs.jsonable(dict(arguments)),
        "type": "function",
    }


def _log_header(path: Path) -> dict[str, Any]:
    """The experiment log's first line (its ``experiment`` header), ``{}`` where it has none."""
    try:
        with path.open("rb") as handle:
            line = handle.readline(logs.MAX_LINE_BYTES)
        data = json.loads(line.decode("utf-8", errors="replace"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) and data.get("type") == "experiment" else {}
