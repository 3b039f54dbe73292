"""``exp.report(path)``: an experiment as one self-contained HTML file to send, opened from disk
in any browser with no server, no network and no kernel.

The page has the summary (the figures of ``exp.summary()``: each score's mean with its interval
clustered by row and the n it rests on), the comparison of each variant with the baseline (the
figures of ``exp.compare(a, b)``, and per scorer the rows where the two differ most), the matrix
(rows × variants, each cell coloured by score with the score written beside it, an epoch strip
per cell) with its filters (failures only, scorer, variant, status, text search) and every
sample's view (its row, variant and epoch; input, reference and answer as Markdown; every score
with its comment, a person's grade marked human; tokens, cost, time, cache hits; the transcript).

Where it lives: a report is one of the many-run package's products, beside the statistics it
prints (DESIGN.md: "grading and reports belong to the many-run package"), so it is here, in
``many/``, and ``Experiment.report`` calls it directly. It draws its HTML with the foundation's
own renderer (:mod:`deepnb.core.text.markup`: ``escape``, and Markdown with raw HTML off), never
with ``views/``, which is a layer above this one (``views`` may import ``many``, not the other
way round), so the report's tables are its own, a page rather than a notebook output.

How it stays safe and small: the summary and comparison are static HTML, every text escaped;
the samples are one JSON document (:mod:`deepnb.many.report_data`: strings redacted and bidi
controls made visible, Markdown rendered safe) in a ``<script type="application/json">``, escaped
for that element, from which the page's script (``report_assets/report.js``, inlined with its
stylesheet) draws the matrix a page at a time and a sample view on demand, so 2,000 runs stay a
few megabytes. The page's Content-Security-Policy lets only that script run (by its hash) and
loads nothing: no URL is fetched, no inline handler runs, an image only from ``data:``.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import os
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from deepnb.core.errors import DeepnbError
from deepnb.core.text.figures import number, rests_on, sentence
from deepnb.core.text.markup import code_css, escape
from deepnb.core.text.secrets import redact
from deepnb.core.tokens import token_pair
from deepnb.many import stats
from deepnb.many.report_data import sample_data, script_json

if TYPE_CHECKING:
    from deepnb.many.experiment import Experiment, Summary, VariantComparison

SCOPE = ".dnb-report"


def _asset(name: str) -> str:
    return (resources.files("deepnb.many") / "report_assets" / name).read_text(encoding="utf-8")


def text(value: object) -> str:
    """Any value as escaped HTML text, its secrets redacted and bidi controls made visible."""
    return escape(redact(str(value)))


def _money(value: float | None, complete: bool = True) -> str:
    if value is None:
        return "unknown"
    return f"{'≥ ' if not complete else ''}${value:.4f}"


def _table(label: str, columns: Iterable[str], rows: Iterable[Iterable[str]]) -> str:
    """A table of texts (each escaped here)."""
    head = "".join(f'<th scope="col">{text(c)}</th>' for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{text(c)}</td>" for c in row) + "</tr>" for row in rows)
    return (
        f'<div class="dnb-scroll"><table class="dnb-figures" aria-label="{text(label)}">'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
    )


def summary_section(summary: Summary) -> str:
    """The summary: per variant its runs and errors, per scorer the mean with its 95 % interval
    clustered by row, the n it rests on, pass rate and pass@k; then tokens, cost and latency."""
    scorers = [s.scorer for s in summary.variants[0].scores] if summary.variants else []
    columns = ["variant", "runs", "done", "errors"]
    for name in scorers:
        columns += [f"{name} mean [95% CI]", f"{name} n", f"{name} pass", f"{name} pass@{summary.epochs}"]
    columns += ["tokens in / out", "cost", "judge cost", "latency p50 / p95 (s)"]
    rows = []
    for v in summary.variants:
        row = [v.variant, str(v.runs), str(v.done), str(v.errors)]
        for s in v.scores:
            interval = f" [{number(s.low)}, {number(s.high)}]" if s.low is not None else ""
            row += [
                f"{number(s.mean)}{interval}",
                rests_on(s.rows, s.n, summary.epochs),
                number(s.pass_rate),
                number(s.pass_at_k),
            ]
        row += [
            token_pair(v.tokens),
            _money(v.cost, complete=not v.cost_unknown),
            _money(summary.scoring_costs.get(v.variant)),
            f"{number(v.latency_p50)} / {number(v.latency_p95)}",
        ]
        rows.append(row)
    each = "each row's score" if summary.epochs == 1 else f"each row's {summary.reducer} over its epochs"
    return (
        '<section aria-labelledby="dnb-summary"><h2 id="dnb-summary">Summary</h2>'
        + _table("Summary", columns, rows)
        + f'<p class="dnb-note">Means over the rows of {text(each)}; 95 % intervals clustered by row '
        f"(n: the rows and epochs each figure rests on). A score passes at {stats.THRESHOLD:g} or above."
        "</p></section>"
    )


def _open(row: int, variant: str, label: str) -> str:
    """A button that opens the sample view of ``variant``'s first epoch of ``row``."""
    return (
        f'<button type="button" class="dnb-link" data-open-row="{row}" data-open-variant="{text(variant)}">'
        f"{text(label)}</button>"
    )


def _clip(value: object, limit: int = 160) -> str:
    words = " ".join(("" if value is None else str(value)).split())
    return words if len(words) <= limit else words[: limit - 1] + "…"


def comparison_section(comparisons: list[VariantComparison]) -> str:
    """Each comparison: per scorer the pairs, wins, losses, ties, mean difference and the paired
    Wilcoxon p; then per scorer the rows where the two differ most on it, each opening its run."""
    if not comparisons:
        return ""
    parts = ['<section aria-labelledby="dnb-compare"><h2 id="dnb-compare">Comparison</h2>']
    for c in comparisons:
        columns, rows = c.table()
        parts.append(
            f"<h3>{text(c.a)} against {text(c.b)}</h3>"
            + _table(f"{c.a} against {c.b}", columns, rows)
            + f'<p class="dnb-note">{text(sentence(c.paired))}</p>'
        )
        if c.differences:
            body = "".join(
                f"<tr><td>{_open(d.row, c.a, f'row {d.row}')}</td><td>{text(d.scorer)}</td>"
                f"<td>{d.difference:+.2f}</td>"
                f"<td>{_open(d.row, c.a, _clip(d.a) or '(no answer)')}</td>"
                f"<td>{_open(d.row, c.b, _clip(d.b) or '(no answer)')}</td></tr>"
                for d in c.differences
            )
            parts.append(
                f'<h4>Rows where they differ most, per scorer</h4><div class="dnb-scroll">'
                f'<table aria-label="Rows where {text(c.a)} and {text(c.b)} differ most">'
                f'<thead><tr><th scope="col">row</th><th scope="col">scorer</th>'
                f'<th scope="col">{text(c.a)} − {text(c.b)}</th><th scope="col">{text(c.a)}</th>'
                f'<th scope="col">{text(c.b)}</th></tr></thead><tbody>{body}</tbody></table></div>'
            )
    parts.append("</section>")
    return "".join(parts)


def _head_line(experiment: Experiment) -> str:
    records = experiment.records.values()
    done = sum(1 for r in records if r.status == "done")
    total = len(experiment.plan.all_keys())
    return (
        f"{_count(len(experiment.plan.rows), 'row')} × {_count(len(experiment.variants), 'variant')} × "
        f"{_count(experiment.plan.epochs, 'epoch')}: {done} of {total} runs done. "
        f"Log: {experiment.path.name}. Written {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC."
    )


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'s' * (n != 1)}"


def page(experiment: Experiment, *, threshold: float = stats.THRESHOLD) -> str:
    """The report of ``experiment`` as one HTML document (see the module's docstring)."""
    summary = experiment.summary(threshold=threshold)
    comparisons = [experiment.compare(a, b) for a, b in experiment.comparison_pairs()]
    data = script_json(sample_data(experiment, threshold=threshold))
    script = _asset("report.js")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    policy = (
        f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    style = _asset("report.css") + "\n" + code_css(SCOPE)
    body = redact(
        f"<header><h1>Experiment {text(experiment.name)}</h1>"
        f'<p class="dnb-note">{text(_head_line(experiment))}</p></header>'
        f"{summary_section(summary)}{comparison_section(comparisons)}"
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer">'
        f"<title>{text(experiment.name)} · deepnb report</title><style>{style}</style></head>"
        f'<body class="{SCOPE[1:]}">{body}'
        '<section aria-labelledby="dnb-matrix"><h2 id="dnb-matrix">Samples</h2>'
        '<div id="dnb-app"><noscript>The matrix and the samples need JavaScript.</noscript></div></section>'
        f'<script type="application/json" id="dnb-data">{data}</script>'
        f"<script>{script}</script></body></html>\n"
    )


def write(experiment: Experiment, path: str | os.PathLike[str]) -> Path:
    """Write ``experiment``'s report to ``path`` (an ``.html`` file, replaced whole if it exists)
    and return its path; a folder that does not exist is one line, and nothing is written."""
    target = Path(path)
    if target.is_dir():
        raise DeepnbError(f"Cannot write the report to {str(target)!r}: it is a folder; name a file.html.")
    if not target.parent.is_dir():
        raise DeepnbError(f"Cannot write the report to {str(target)!r}: its folder does not exist.")
    html = page(experiment)
    partial = target.with_name(f".{target.name}.partial")
    try:
        partial.write_text(html, encoding="utf-8")
        os.replace(partial, target)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise DeepnbError(f"Cannot write the report to {str(target)!r}: {exc.strerror or exc}.") from None
    return target
