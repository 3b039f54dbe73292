"""The views' front-end code and styles, sent once per kernel.

Each view (run view, file browser) is an anywidget whose ``_esm`` is a small loader
(``loader.js``). The view's real bundle and stylesheet travel in *code part* models: plain Jupyter
widget models holding one piece of text each, opened the first time a view of that kind is shown
in this kernel and shared by every later view. A view's ``_code`` trait names its parts; the
loader fetches them from the widget manager, imports the bundle once per browser page and adds the
stylesheet once. So no view's opening message carries the 70 KB of code, no message of the parts
is over :data:`PART_BUDGET`, and a saved widget state holds the code once.

A kernel restart starts with no parts: the first view opens them again.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
from typing import Any, TypedDict

import ipywidgets  # type: ignore[import-untyped]  # no type information; anywidget builds on it
import traitlets as t

from deepnb.views.assets import asset, stylesheet
from deepnb.views.bounds import size

PART_BUDGET = 48 * 1024
"""Bytes of text (as JSON) one code part carries: its opening message stays well under 64 KB."""

LOADER = asset("loader.js").read_text(encoding="utf-8")
"""Every view's ``_esm``: fetches the view's code parts and renders with the real bundle."""

VIEWS = {
    "run_view": ("run_view.js", "run_view.css"),
    "files_view": ("files_view.js", "files_view.css"),
    "batch_view": ("batch_view.js", "batch_view.css"),
    "experiment_view": ("experiment_view.js", "experiment_view.css"),
    "history_view": ("history_view.js", "run_view.css"),  # its step state panel is the run view's
}
"""Each kind of view: its bundle and its stylesheet in ``deepnb/_widgets/``."""


class CodeRefs(TypedDict):
    """What a view's ``_code`` trait holds: which parts make its bundle and its stylesheet."""

    key: str
    esm: list[str]
    css: list[str]


class CodePart(ipywidgets.Widget):  # type: ignore[misc]  # an untyped base
    """One piece of a view's bundle or stylesheet, as a model with no view of its own."""

    text = t.Unicode("", help="A piece of the code or CSS; the parts joined in order make the file.").tag(
        sync=True
    )


def split_text(text: str, budget: int = PART_BUDGET) -> list[str]:
    """``text`` cut into pieces whose JSON form is at most ``budget`` bytes each."""
    pieces: list[str] = []
    start = 0
    while start < len(text):
        end = min(len(text), start + budget)
        while size(text[start:end]) > budget:
            end = start + (end - start) // 2
        pieces.append(text[start:end])
        start = end
    return pieces


_lock = threading.Lock()
_parts: dict[str, tuple[CodeRefs, list[CodePart]]] = {}


def _ref(part: CodePart) -> str:
    return f"anywidget:{part.model_id}"


def code_refs(view: str) -> CodeRefs:
    """The ``_code`` value for a view of kind ``view`` (``run_view`` or ``files_view``): opens its
    code parts the first time in this kernel (or again after they were closed)."""
    with _lock:
        known = _parts.get(view)
        if known and all(part.comm is not None for part in known[1]):
            return known[0]
        script, styles = VIEWS[view]
        esm = asset(script).read_text(encoding="utf-8")
        css = stylesheet(styles)
        key = hashlib.sha256((esm + "\0" + css).encode()).hexdigest()[:16]
        esm_parts = [CodePart(text=piece) for piece in split_text(esm)]
        css_parts = [CodePart(text=piece) for piece in split_text(css)]
        refs: CodeRefs = {
            "key": f"{view}-{key}",
            "esm": [_ref(p) for p in esm_parts],
            "css": [_ref(p) for p in css_parts],
        }
        _parts[view] = (refs, esm_parts + css_parts)
        return refs


def forget_parts() -> None:
    """Close every code part (tests use it to watch a kernel's first view); a part whose comm
    is gone already (its comm manager closed it) is only forgotten."""
    with _lock:
        for _refs, parts in _parts.values():
            for part in parts:
                with contextlib.suppress(KeyError):
                    part.close()
        _parts.clear()


def code_trait() -> Any:
    """The synced trait every view declares for its code parts."""
    return t.Dict(help="The code parts of this view's bundle and stylesheet: {key, esm, css}.").tag(sync=True)
