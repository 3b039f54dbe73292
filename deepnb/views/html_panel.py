"""HTML deepnb made, in a live output that redraws when it changes: the compare view's table and
answers where the host draws no ipywidgets boxes (marimo draws anywidgets only)."""

from __future__ import annotations

import anywidget
import traitlets as t

_ESM = """
export default {
  render({ model, el }) {
    const draw = () => { el.innerHTML = model.get("html"); };
    draw();
    model.on("change:html", draw);
    return () => model.off("change:html", draw);
  },
};
"""


class HtmlPanel(anywidget.AnyWidget):
    """Shows ``html``, which only deepnb's own renderers write (every text in it escaped, its
    styles inline), and redraws as it is set again."""

    _esm = _ESM
    html = t.Unicode("", help="deepnb's escaped, inline-styled HTML to show.").tag(sync=True)


__all__ = ["HtmlPanel"]
