"""One sample of an experiment as the live matrix's sample view gets it (the ``sample`` trait):
its row, variant and epoch; the input, the reference and the answer as Markdown rendered by the
foundation's renderer (:func:`deepnb.core.text.markup.markdown`: raw HTML escaped, secrets
redacted, bidi controls made visible; the only HTML the view sets as HTML); every score with its
comment (the judge's reasoning) and whether a person set it; tokens, cost, time and cache hits;
and its place among the row's other epochs and variants, so the view links to them.

It stays within :data:`SAMPLE_BUDGET` bytes however long the texts are: each is clipped, saying
how much was left out (the log keeps it whole), and clipped again more tightly while the whole
does not fit."""

from __future__ import annotations

from typing import Any

from deepnb.core.text.figures import number
from deepnb.core.text.markup import markdown
from deepnb.core.text.safe_display import shown
from deepnb.core.tokens import token_pair
from deepnb.many import stats
from deepnb.many.experiment import Experiment
from deepnb.many.record import Key, RunRecord
from deepnb.many.report_data import as_text
from deepnb.views.bounds import clip_text, size
from deepnb.views.experiment.experiment_view import MAX_VARIANTS

SAMPLE_BUDGET = 24 * 1024
"""Bytes the whole sample takes in a message at most."""
TEXT_CHARS = 8_000
"""Characters of the answer rendered at first (the input and reference get half, a comment a
quarter); halved while the sample does not fit :data:`SAMPLE_BUDGET`."""
WHERE = "the experiment's log keeps the whole text"


def _rendered(value: Any, limit: int) -> str:
    if value is None or value == "":
        return ""
    return markdown(clip_text(as_text(value), limit, where=WHERE))


def _scores(
    record: RunRecord | None, scorers: list[str], limit: int, threshold: float
) -> list[dict[str, Any]]:
    """Every scorer's score (in ``scorers``' order, then any only this run has): ``{scorer,
    score, text, verdict, comment, error, human}``; ``verdict`` is ``pass``, ``fail`` or
    ``error`` (``""`` when there is no score)."""
    given = record.scores if record is not None else {}
    names = [*scorers, *(name for name in given if name not in scorers)]
    listed = []
    for name in names:
        score = given.get(name)
        value = score.score if score is not None else None
        verdict = (
            ("pass" if value >= threshold else "fail")
            if value is not None
            else ("error" if score is not None and score.error else "")
        )
        listed.append(
            {
                "scorer": name,
                "score": value,
                "text": number(value) if value is not None else ("error" if verdict == "error" else "–"),
                "verdict": verdict,
                "comment": clip_text(score.comment, limit, where=WHERE) if score and score.comment else "",
                "error": clip_text(score.error, limit, where=WHERE) if score and score.error else "",
                "human": bool(score and score.human),
            }
        )
    return listed


def _tokens(record: RunRecord) -> str:
    """The run's tokens in / out, lower bounds where some model calls reported none (said)."""
    tokens = record.tokens
    calls = tokens.unreported
    if not (tokens.known and calls):
        return token_pair(tokens)
    return f"{token_pair(tokens)} ({calls:,} model call{'' if calls == 1 else 's'} unreported)"


def sample_state(
    experiment: Experiment, key: Key, *, threshold: float = stats.THRESHOLD, budget: int = SAMPLE_BUDGET
) -> dict[str, Any]:
    """The sample ``key`` (``(row, variant, epoch)``) as the sample view draws it (see the
    module's docstring), at most ``budget`` bytes as JSON."""
    row = key[0]
    given = next(r for r in experiment.plan.rows if r.index == row)
    record = experiment.record_for(key)
    epochs = experiment.plan.epochs
    limit = TEXT_CHARS
    while True:
        sample = _sample(experiment, key, given, record, epochs, limit, threshold)
        if size(sample) <= budget or limit < 64:
            return sample
        limit //= 2


def _sample(
    experiment: Experiment,
    key: Key,
    given: Any,
    record: RunRecord | None,
    epochs: int,
    limit: int,
    threshold: float,
) -> dict[str, Any]:
    row, variant, epoch = key
    shown_variants = experiment.variants[:MAX_VARIANTS]
    sample: dict[str, Any] = {
        "row": row,
        "variant": variant,
        "epoch": epoch,
        "epochs": epochs,
        "title": f"Row {row} · {variant} · epoch {epoch}",
        "status": experiment.status_of(key),
        "input": _rendered(given.prompt, limit // 2),
        "reference": _rendered(given.reference, limit // 2),
        "answer": _rendered(record.result, limit) if record is not None and record.result else "",
        "output": clip_text(as_text(record.output), limit // 4, where=WHERE)
        if record is not None and record.output is not None
        else "",
        "error": clip_text(record.error, limit // 4, where=WHERE) if record and record.error else "",
        "scores": _scores(record, experiment.scorer_names(), limit // 4, threshold),
        "tokens": _tokens(record) if record is not None else "–",
        "cost": f"${record.cost:.4f}" if record is not None and record.cost is not None else "unknown",
        "time": f"{number(record.latency)} s" if record is not None else "–",
        "cached": record.cached if record is not None else 0,
        "gradable": record is not None and record.status == "done",
        "others": {
            "epochs": [experiment.status_of((row, variant, e)) for e in range(epochs)],
            "variants": [[v, experiment.status_of((row, v, epoch))] for v in shown_variants],
        },
    }
    shown_sample: dict[str, Any] = shown(sample)
    # the keys stay as they are, to send back (the view shows them with their bidi controls escaped)
    shown_sample["variant"] = variant
    shown_sample["others"]["variants"] = sample["others"]["variants"]
    return shown_sample
