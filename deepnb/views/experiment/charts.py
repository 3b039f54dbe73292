"""The summary as a bar chart per scorer: a bar per variant for its mean score, a whisker for the
95 % interval, each value written beside it. One description serves the live view (which draws
it with elements) and the static snapshot (HTML and CSS here, no script, no SVG library), and a
text form draws the bars with block characters. A scorer with no number to draw (every score an
error, or a scorer that gave none) says so instead of drawing nothing.

Positions are percentages of the chart's width over its scale: 0 to 1 when every value lies
there (pass/fail, a judge's score), else from the lowest value (or 0) to the highest (or 0)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from deepnb.core.text.figures import number, rests_on
from deepnb.core.text.markup import escape
from deepnb.many.experiment import Summary
from deepnb.many.stats import ScoreSummary

MAX_CHARTS = 8
"""Scorers charted at most (the summary's first)."""
MAX_BARS = 12
"""Variants a chart draws at most."""
TEXT_BAR = 20
"""Characters of a full-width bar in the text form."""

CHART_CSS = (
    ".deepnb-experiment .dnb-charts{margin:8px 0}"
    ".deepnb-experiment .dnb-chart{display:inline-block;vertical-align:top;width:400px;max-width:100%;"
    "margin:0 24px 8px 0}"
    ".deepnb-experiment .dnb-chart-title{font-weight:600;font-size:12px;margin-bottom:2px}"
    ".deepnb-experiment .dnb-chart-note{font-size:12px;color:var(--jp-ui-font-color2,#666)}"
    ".deepnb-experiment .dnb-chart-bar{display:flex;align-items:center;gap:6px;font-size:11.5px;margin:2px 0}"
    ".deepnb-experiment .dnb-chart-label{flex:0 0 90px;min-width:90px;overflow:hidden;text-overflow:ellipsis;"
    "white-space:nowrap}"
    ".deepnb-experiment .dnb-chart-track{position:relative;flex:1 1 auto;width:100%;height:14px;"
    "background:var(--jp-layout-color2,#f0f0f0);border-radius:2px}"
    ".deepnb-experiment .dnb-chart-fill{position:absolute;top:2px;bottom:2px;"
    "background:var(--jp-brand-color1,#1976d2);opacity:.75;border-radius:2px}"
    ".deepnb-experiment .dnb-chart-whisker{position:absolute;top:6px;height:2px;"
    "background:var(--jp-ui-font-color1,#222)}"
    ".deepnb-experiment .dnb-chart-whisker::before,.deepnb-experiment .dnb-chart-whisker::after"
    "{content:'';position:absolute;top:-4px;height:10px;width:2px;background:var(--jp-ui-font-color1,#222)}"
    ".deepnb-experiment .dnb-chart-whisker::before{left:-1px}"
    ".deepnb-experiment .dnb-chart-whisker::after{right:-1px}"
    ".deepnb-experiment .dnb-chart-value{flex:0 0 auto;min-width:160px;"
    "font-family:var(--jp-code-font-family,monospace);font-variant-numeric:tabular-nums;white-space:nowrap}"
)
"""The static chart's styles (the live view's are in widgets/src/experiment_view.css): JupyterLab's
theme colours, so a chart reads in light and dark themes alike. The charts sit side by side as
inline blocks that wrap (not a wrapping flex box, which JupyterLab's sanitizer cannot keep inline:
it drops flex-wrap), so they do so in an untrusted notebook too."""


def _scale(scores: Sequence[ScoreSummary]) -> tuple[float, float]:
    values = [v for s in scores for v in (s.mean, s.low, s.high) if v is not None]
    if values and all(0.0 <= v <= 1.0 for v in values):
        return 0.0, 1.0
    low, high = min([0.0, *values]), max([0.0, *values])
    return (low, high) if high > low else (low, low + 1.0)


def _span(start: float, end: float, scale: tuple[float, float]) -> list[float]:
    """``[left, width]`` in percent of the track for the values ``start`` to ``end``."""
    low, high = scale
    at = [round((min(max(v, low), high) - low) / (high - low) * 100, 1) for v in (start, end)]
    return [min(at), round(abs(at[1] - at[0]), 1)]


def _bar(variant: str, s: ScoreSummary | None, scale: tuple[float, float], epochs: int) -> dict[str, Any]:
    if s is None or s.mean is None:
        why = "no score yet" if s is None or not s.errors else f"{s.errors} error{'s' * (s.errors != 1)}"
        return {"v": variant, "value": why, "bar": None, "whisker": None}
    interval = f" [{number(s.low)}, {number(s.high)}]" if s.low is not None and s.high is not None else ""
    errors = f", {s.errors} error{'s' * (s.errors != 1)}" if s.errors else ""
    return {
        "v": variant,
        "value": f"{number(s.mean)}{interval} {rests_on(s.rows, s.n, epochs)}{errors}",
        "bar": _span(0.0, s.mean, scale),
        "whisker": _span(s.low, s.high, scale) if s.low is not None and s.high is not None else None,
    }


def score_charts(summary: Summary) -> list[dict[str, Any]]:
    """A chart per scorer: ``{scorer, title, note, bars: [{v, value, bar, whisker}]}``;
    ``bar`` and ``whisker`` are ``[left, width]`` in percent (``None``: nothing to draw), ``value``
    the text beside it, ``note`` what the chart says when it has no bar at all (else ``""``)."""
    variants = summary.variants[:MAX_BARS]
    names = [s.scorer for s in variants[0].scores][:MAX_CHARTS] if variants else []
    charts = []
    for name in names:
        found = {v.variant: next((s for s in v.scores if s.scorer == name), None) for v in variants}
        scores = [s for s in found.values() if s is not None]
        scale = _scale(scores)
        bars = [_bar(variant, found[variant], scale, summary.epochs) for variant in found]
        title = f"{name}: mean and 95 % interval, scale {number(scale[0])} to {number(scale[1])}"
        done = sum(v.done for v in variants)
        charts.append({"scorer": name, "title": title, "note": _note(scores, done), "bars": bars})
    return charts


def _note(scores: Sequence[ScoreSummary], done: int) -> str:
    """What a chart says when it has no number to draw (``done``: the runs that were scored)."""
    if any(s.mean is not None for s in scores):
        return ""
    errors = sum(s.errors for s in scores)
    if errors:
        return f"Every score is an error ({errors}): nothing to chart. The runs' records say why."
    return "This scorer gave no numbers: nothing to chart." if done else "No scores yet."


def charts_html(charts: Sequence[dict[str, Any]]) -> str:
    """The charts as escaped static HTML (bars positioned with inline percentages)."""
    if not charts:
        return ""
    blocks = []
    for chart in charts:
        title = chart["title"]
        body = (
            f'<div class="dnb-chart-note">{escape(chart["note"])}</div>'
            if chart["note"]
            else "".join(_bar_html(bar) for bar in chart["bars"])
        )
        blocks.append(
            f'<div class="dnb-chart" role="figure" aria-label="{escape(chart["scorer"])} by variant">'
            f'<div class="dnb-chart-title">{escape(title)}</div>{body}</div>'
        )
    return f'<div class="dnb-charts">{"".join(blocks)}</div>'


def _bar_html(bar: dict[str, Any]) -> str:
    shapes = ""
    if bar["bar"] is not None:
        left, width = bar["bar"]
        shapes += f'<div class="dnb-chart-fill" style="left:{left}%;width:{width}%"></div>'
    if bar["whisker"] is not None:
        left, width = bar["whisker"]
        shapes += f'<div class="dnb-chart-whisker" style="left:{left}%;width:{width}%"></div>'
    return (
        f'<div class="dnb-chart-bar"><span class="dnb-chart-label">{escape(bar["v"])}</span>'
        f'<div class="dnb-chart-track">{shapes}</div>'
        f'<span class="dnb-chart-value">{escape(bar["value"])}</span></div>'
    )


def charts_text(charts: Sequence[dict[str, Any]]) -> str:
    """The charts in text: per scorer a line per variant, its bar in block characters."""
    lines: list[str] = []
    for chart in charts:
        lines.append(f"{chart['title']}:")
        if chart["note"]:
            lines.append(f"  {chart['note']}")
            continue
        width = max((len(bar["v"]) for bar in chart["bars"]), default=0)
        for bar in chart["bars"]:
            cells = round(bar["bar"][1] * TEXT_BAR / 100) if bar["bar"] is not None else 0
            drawn = ("█" * cells).ljust(TEXT_BAR, "·")
            lines.append(f"  {bar['v'].ljust(width)}  {drawn}  {bar['value']}")
    return "\n".join(lines)
