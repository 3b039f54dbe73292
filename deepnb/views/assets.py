"""The front-end files of the views (ESM + CSS), shipped inside the wheel."""

from __future__ import annotations

from pathlib import Path

_PACKAGED = Path(__file__).resolve().parent.parent / "_widgets"
_SOURCE = Path(__file__).resolve().parent.parent.parent / "widgets"


def asset(name: str) -> Path:
    """The path of a front-end file; fails at once (at class definition) when it is missing."""
    for folder in (_PACKAGED, _SOURCE):
        path = folder / name
        if path.is_file():
            return path
    raise FileNotFoundError(
        f"deepnb's front-end file {name!r} is missing from {_PACKAGED} and {_SOURCE}: "
        "reinstall deepnb (pip install --force-reinstall deepnb)."
    )


def stylesheet(name: str) -> str:
    """A view's CSS: the shared ``theme.css`` (colours, frame), then the view's own ``name``."""
    return "\n".join(asset(n).read_text(encoding="utf-8") for n in ("theme.css", name))


def module(name: str) -> str:
    """A view's ESM: its own ``name``, then ``saved_views.js`` (which saves each view into the
    notebook file as its static snapshot, so a reopened notebook shows them all)."""
    return "\n".join(asset(n).read_text(encoding="utf-8") for n in (name, "saved_views.js"))
