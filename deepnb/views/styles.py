"""The one stylesheet of deepnb's static HTML: run snapshots, subagent trees, listings and file
previews, as a saved notebook, GitHub, nbviewer and nbconvert show them where widgets don't run.
(The live views bring their own, ``widgets/*.css``.)"""

from __future__ import annotations

from functools import lru_cache

from deepnb.core.text.markup import code_css
from deepnb.views.inline_styles import InlineSheet, winning

STATIC_CSS = """
.deepnb-snapshot{font-family:var(--jp-ui-font-family,system-ui,sans-serif);font-size:13px;
 border:1px solid var(--jp-border-color2,#ddd);border-radius:6px;padding:8px 12px;max-width:960px}
.deepnb-snapshot .dnb-head{color:var(--jp-ui-font-color2,#666);margin-bottom:6px}
.deepnb-snapshot .dnb-prompt{font-weight:600;margin:4px 0}
.deepnb-snapshot .dnb-tool{border-left:3px solid var(--jp-border-color1,#bbb);padding:2px 8px;
 margin:4px 0;font-family:var(--jp-code-font-family,monospace);font-size:12px}
.deepnb-snapshot .dnb-tool[data-status=error]{border-color:var(--jp-error-color1,#d32f2f)}
.deepnb-snapshot .dnb-muted{color:var(--jp-ui-font-color2,#666)}
.deepnb-snapshot .dnb-error{color:var(--jp-error-color1,#d32f2f);font-weight:600}
.deepnb-snapshot ul.dnb-todos{list-style:none;padding-left:4px;margin:4px 0}
.deepnb-snapshot li[data-status=completed]{color:var(--jp-ui-font-color2,#666)}
.deepnb-snapshot .dnb-done{text-decoration:line-through}
.deepnb-snapshot .dnb-summary{border-left:3px solid var(--jp-brand-color1,#1976d2);padding:2px 8px;
 margin:4px 0}
.deepnb-snapshot .dnb-question{border-left:3px solid var(--jp-warn-color1,#f57c00);padding:2px 8px;
 margin:4px 0}
.deepnb-snapshot .dnb-question-text{white-space:pre-wrap}
.deepnb-snapshot .dnb-question-fields dd{margin:0 0 4px 12px;white-space:pre-wrap}
.deepnb-tree ul{list-style:none;padding-left:16px;margin:2px 0}
.deepnb-tree>ul{padding-left:4px}
.deepnb-tree summary{cursor:pointer}
.deepnb-tree [data-status=error]>details>summary .dnb-state{color:var(--jp-error-color1,#d32f2f)}
.deepnb-tree .dnb-node-body{padding-left:14px}
.deepnb-snapshot .dnb-badge{font-size:11px;color:var(--jp-warn-color1,#f57c00)}
.deepnb-snapshot pre.dnb-diff{margin:2px 0 4px;font-size:11.5px;white-space:pre-wrap}
.deepnb-snapshot .dnb-diff .dnb-add{color:var(--jp-success-color1,#388e3c)}
.deepnb-snapshot .dnb-diff .dnb-del{color:var(--jp-error-color1,#d32f2f)}
.deepnb-snapshot .dnb-final-answer{margin-top:8px;padding:4px 10px;
 border-top:1px solid var(--jp-border-color2,#ddd);border-left:3px solid var(--jp-success-color1,#388e3c)}
.deepnb-snapshot .dnb-final-label{font-size:11px;font-weight:600;color:var(--jp-success-color1,#388e3c)}
.deepnb-snapshot .dnb-output{margin-top:8px;padding:4px 10px;
 border-left:3px solid var(--jp-success-color1,#388e3c)}
.deepnb-snapshot .dnb-output-table th{text-align:left;padding-right:12px;font-weight:600;vertical-align:top}
.deepnb-table th,.deepnb-table td{text-align:left;vertical-align:top}
.deepnb-snapshot table{margin-left:0;margin-right:auto}
"""
"""Rules for the classes the static renderers use (``deepnb-snapshot``, ``dnb-*``, ``deepnb-tree``)."""


def snapshot_style() -> str:
    """The ``<style>`` a run's snapshot carries: :data:`STATIC_CSS` and highlighted code."""
    return f"<style>{winning(STATIC_CSS)}{code_css('.deepnb-snapshot')}</style>"


@lru_cache(maxsize=16)
def _sheet(css: str, cells: bool) -> InlineSheet:
    return InlineSheet(STATIC_CSS + css, cells=cells)


def inline(html: str, css: str = "", *, cells: bool = False) -> str:
    """``html`` with the rules of :data:`STATIC_CSS` (and ``css``, a view's own) written onto its
    elements, so that it reads where its ``<style>`` is dropped (an untrusted notebook);
    ``cells``: the rules for every cell of a table too (for small tables)."""
    return _sheet(css, cells).apply(html)


def styled(html: str, css: str, *, cells: bool = False) -> str:
    """A view's static HTML as it is shown: the ``<style>`` of its own ``css`` (theme colours
    winning where it is kept), then ``html`` with those rules and :data:`STATIC_CSS`'s inline
    (:func:`inline`; the stylesheet of :data:`STATIC_CSS` comes with each run's snapshot)."""
    return f"<style>{winning(css)}</style>{inline(html, css, cells=cells)}"


def file_style() -> str:
    """The ``<style>`` a file preview carries: highlighted code."""
    return f"<style>{code_css('.deepnb-file')}</style>"
