"""How a domain object shows in a notebook without importing the code that draws it.

A run, a thread's files, the subagent tree, the interpreter's globals and the extensions' listing
inherit :class:`Displayable` (in the manner of rich's ``JupyterMixin``): ``repr(obj)``,
``_repr_html_`` and ``_repr_mimebundle_`` look up the renderer that :mod:`deepnb.views.renderers`
registers for the object's type. The display package loads on the first display, so the engine
never imports a view, and ``import deepnb`` stays light.

Where a host displays an object by what its ``_display_`` returns (marimo's display protocol;
IPython never calls it), a :class:`WidgetDisplayable` gives its renderer's ``live`` view: the
anywidget itself, which marimo draws as ``mo.ui.anywidget`` would, so a cell whose last line is a
run shows the run's live view there as in JupyterLab, with nothing of marimo imported here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from deepnb.core.text.safe_display import safe_display


@dataclass(frozen=True)
class Renderer:
    """How one type shows: ``text`` is its ``repr`` (``None``: the class writes its own), ``html``
    its static HTML, ``bundle`` a whole mime bundle (a live view with its static snapshot), ``show``
    what displays a :class:`LiveDisplayable`."""

    text: Callable[[Any], str] | None = None
    html: Callable[[Any], str] | None = None
    bundle: Callable[[Any], dict[str, Any]] | None = None
    show: Callable[[Any], object] | None = None
    """For what changes after it is shown: display it with an output that its view updates."""
    live: Callable[[Any], object] | None = None
    """The live view itself (an anywidget, or a layout of them), for a host that shows what an
    object's ``_display_`` returns (marimo)."""


_RENDERERS: dict[type, Renderer] = {}
_installed = False
"""Whether the display package registered its renderers yet."""


def register(cls: type, renderer: Renderer) -> None:
    """Show instances of ``cls`` (and its subclasses) with ``renderer``."""
    _RENDERERS[cls] = renderer


def renderer_for(cls: type) -> Renderer:
    """The renderer registered for ``cls`` or its nearest base class."""
    global _installed
    if not _installed:
        # lazy: the display package imports the engine, never the reverse; it loads on first display
        from deepnb.views import renderers  # noqa: PLC0415

        renderers.install()
        _installed = True
    for klass in cls.__mro__:
        if klass in _RENDERERS:
            return _RENDERERS[klass]
    raise LookupError(f"deepnb has no renderer for {cls.__qualname__}: add one to deepnb.views.renderers.")


@safe_display
class Displayable:
    """Mixin: the object shows through the renderer registered for its type, made safe (secrets
    redacted, bidi controls made visible) like every display method of deepnb."""

    __slots__ = ()

    def __repr__(self) -> str:
        text = renderer_for(type(self)).text
        return object.__repr__(self) if text is None else text(self)

    def _repr_html_(self) -> str | None:
        html = renderer_for(type(self)).html
        return None if html is None else html(self)

    def _repr_mimebundle_(
        self, include: Any = None, exclude: Any = None, **kwargs: Any
    ) -> dict[str, Any] | None:
        """IPython's first choice: a renderer's whole bundle, or ``None`` (then IPython asks
        ``__repr__`` and ``_repr_html_``)."""
        bundle = renderer_for(type(self)).bundle
        return None if bundle is None else bundle(self)


class WidgetDisplayable(Displayable):
    """Mixin: where a host shows an object by ``_display_`` (marimo), it shows as its live view."""

    __slots__ = ()

    def _display_(self) -> object:
        """marimo's display protocol: the live view the renderer makes for this object."""
        live = renderer_for(type(self)).live
        if live is None:
            raise LookupError(f"deepnb has no live view for {type(self).__qualname__}.")
        return live(self)


@safe_display
class LiveDisplayable(WidgetDisplayable):
    """Mixin for what goes on after it is shown (a run, a batch, a comparison): displayed, as a
    cell's result or by ``display()``, it goes through its renderer's ``show``, whose output is
    updated as it ends. So a notebook saved later keeps the end, not the moment it was shown,
    where widgets don't run (a reopened notebook, GitHub, nbconvert)."""

    __slots__ = ()

    def _ipython_display_(self) -> None:
        show = renderer_for(type(self)).show
        if show is None:
            raise LookupError(f"deepnb has no live display for {type(self).__qualname__}.")
        show(self)
