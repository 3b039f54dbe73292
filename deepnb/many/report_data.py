"""What a report's page carries of each sample, as data: every row (its input and reference) and
every run (row, variant, epoch, status, the answer, each score with its comment, tokens, cost,
time, cache hits, the transcript), for the page's script to draw the matrix and a sample view
from on demand (:mod:`deepnb.many.report`).

Every string in it is shown as deepnb shows text (secrets redacted, bidi controls made visible);
the input, the reference and the answer are Markdown rendered here by the foundation's renderer
(:func:`deepnb.core.text.markup.markdown`: raw HTML off, no remote image), the only HTML the
script inserts as HTML; everything else it sets as text. Long texts are clipped, saying how much,
so that one 1 MB answer cannot make the page unwieldy: the log keeps them whole.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from deepnb.core.text.markup import highlight, markdown
from deepnb.core.text.safe_display import shown
from deepnb.many.record import RunRecord

if TYPE_CHECKING:
    from deepnb.many.experiment import Experiment

MAX_TEXT = 100_000
"""Characters of an input, a reference or an answer the page renders."""
MAX_COMMENT = 20_000
"""Characters of a score's comment, an error or a structured output."""
MAX_MESSAGES = 60
"""The last messages of a run's transcript the page carries."""
MESSAGE_CHARS = 2_000
"""Characters of each transcript message."""
TITLE_CHARS = 120
"""Characters of a row's input the matrix shows beside the row's number."""


def clipped(text: str, limit: int) -> str:
    """``text``, at most ``limit`` characters, a line saying how many more there were."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n\n… {len(text) - limit:,} more characters (the log has the whole text)"


def as_text(value: Any) -> str:
    """A field's value as text: a string as it is, anything else as indented JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)


def rendered(value: Any) -> str:
    """A field as safe HTML: text as Markdown, anything else as a JSON code block."""
    if value is None:
        return ""
    if isinstance(value, str):
        return markdown(clipped(value, MAX_TEXT))
    return highlight(clipped(as_text(value), MAX_TEXT), "json")


def _line(text: str) -> str:
    words = " ".join(text.split())
    return words if len(words) <= TITLE_CHARS else words[: TITLE_CHARS - 1] + "…"


def _score(index: int, given: Any) -> list[Any]:
    """A score as ``[scorer index, score, comment, error, human]``."""
    return [
        index,
        given.score,
        clipped(given.comment, MAX_COMMENT) if given.comment else None,
        clipped(given.error, MAX_COMMENT) if given.error else None,
        1 if given.human else 0,
    ]


def _messages(record: RunRecord) -> list[list[str]]:
    """The transcript's last messages as ``[role, text]``, a tool call as ``→ name(args)``; the
    message that is the answer says so rather than carrying it again."""
    lines = []
    for message in record.messages[-MAX_MESSAGES:]:
        if not isinstance(message, Mapping):
            continue
        content = message.get("content")
        text = content if isinstance(content, str) else as_text(content)
        if text and text == record.result and not message.get("tool_calls"):
            text = "(the answer, shown above)"  # carried once, not twice
        for call in message.get("tool_calls") or ():
            if isinstance(call, Mapping):
                function = call.get("function")
                function = function if isinstance(function, Mapping) else call
                args = function.get("arguments", function.get("args"))
                text += f"\n→ {function.get('name')}({as_text(args) if args is not None else ''})"
        lines.append([str(message.get("role") or "?"), clipped(text.strip(), MESSAGE_CHARS)])
    return lines


def _run(experiment: Experiment, key: tuple[int, str, int], scorers: list[str]) -> dict[str, Any]:
    row, variant, epoch = key
    record = experiment.record_for(key)
    run: dict[str, Any] = {
        "r": row,
        "v": experiment.variants.index(variant),
        "e": epoch,
        "s": experiment.status_of(key),
    }
    if record is None:
        return run
    tokens = record.tokens
    run.update(
        a=rendered(record.result) if record.result else "",
        o=clipped(as_text(record.output), MAX_COMMENT) if record.output is not None else None,
        x=clipped(record.error, MAX_COMMENT) if record.error else None,
        sc=[_score(scorers.index(name), given) for name, given in record.scores.items() if name in scorers],
        ti=tokens.tokens_in,
        to=tokens.tokens_out,
        tu=tokens.unreported,
        c=record.cost,
        sj=record.scoring_cost,
        t=round(record.latency, 3),
        ch=record.cached,
        at=record.attempts,
        m=_messages(record),
    )
    return run


def sample_data(experiment: Experiment, *, threshold: float) -> dict[str, Any]:
    """The page's data: the experiment's ``name``, the axes (``variants``, ``scorers``,
    ``epochs``, ``threshold``), ``rows`` (``i`` its index, ``t`` its input in one line, ``in`` /
    ``ref`` rendered) and ``runs`` (one per planned run, in the experiment's order: ``r`` row,
    ``v`` variant index, ``e`` epoch, ``s`` status; an ended one also ``a`` its answer rendered,
    ``o`` its structured output, ``x`` its error, ``sc`` its scores, tokens ``ti`` / ``to`` /
    ``tu``, cost ``c``, the judge's cost ``sj``, seconds ``t``, cache hits ``ch``, attempts
    ``at``, transcript ``m``). Every string is shown as deepnb shows text."""
    scorers = experiment.scorer_names()
    rows = [
        {"i": row.index, "t": _line(row.prompt), "in": rendered(row.prompt), "ref": rendered(row.reference)}
        for row in experiment.plan.rows
    ]
    runs = [_run(experiment, key, scorers) for key in experiment.plan.all_keys()]
    data = {
        "name": experiment.name,
        "variants": experiment.variants,
        "scorers": scorers,
        "epochs": experiment.plan.epochs,
        "threshold": threshold,
        "rows": rows,
        "runs": runs,
    }
    shown_data: dict[str, Any] = shown(data)
    return shown_data


def script_json(data: Any) -> str:
    """``data`` as JSON safe inside ``<script type="application/json">``: no ``<``, ``>`` or ``&``
    (so no ``</script>`` nor ``<!--`` can end or bend the element), nor U+2028 / U+2029; each is
    its ``\\u`` escape, which JSON reads back as the same character."""
    try:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=str)
    except ValueError:  # a NaN or an infinity somewhere: JSON has none, so it is no number
        return script_json(_finite(data))
    return (
        text.replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _finite(value: Any) -> Any:
    """``value`` with every float that is not finite made ``None``."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value
