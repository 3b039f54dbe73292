"""The front-end files of the views (ESM + CSS), shipped inside the package.

``deepnb/_widgets/`` holds what ``widgets/`` builds (``npm run build`` there: esbuild bundles each
view's TypeScript into one ES module, the stylesheets beside them). The built files are committed,
so a plain ``pip install`` and Binder need no Node.js; a test checks that they match their sources.
"""

from __future__ import annotations

from pathlib import Path

_BUILT = Path(__file__).resolve().parents[1] / "_widgets"


def asset(name: str) -> Path:
    """The path of a front-end file; fails at once (at class definition) when it is missing."""
    path = _BUILT / name
    if not path.is_file():
        raise FileNotFoundError(
            f"deepnb's front-end file {name!r} is missing from {_BUILT}: "
            "reinstall deepnb (pip install --force-reinstall deepnb)."
        )
    return path


def stylesheet(name: str) -> str:
    """A view's CSS: the shared ``theme.css`` (colours, frame), then the view's own ``name``."""
    return "\n".join(asset(n).read_text(encoding="utf-8") for n in ("theme.css", name))
