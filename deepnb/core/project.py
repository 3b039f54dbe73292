"""The project the kernel works in, and deepnb's folder for the user.

The project is the nearest folder, from the working directory up, that holds ``deepnb.toml``,
``pyproject.toml`` or ``.git``; without one, the working directory. The walk never goes past
your home folder and never enters a folder you don't own, so a ``deepnb.toml`` in a shared
parent (``/tmp``, a team share) governs nobody below it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

HOME_ENV = "DEEPNB_HOME"
MARKERS = ("deepnb.toml", "pyproject.toml", ".git")

__all__ = ["HOME_ENV", "MARKERS", "deepnb_home", "inside", "owned", "project_root"]


def deepnb_home() -> Path:
    """deepnb's folder for the user: ``$DEEPNB_HOME``, else ``~/.deepnb``."""
    return Path(os.environ.get(HOME_ENV) or "~/.deepnb").expanduser()


def owned(folder: Path) -> bool:
    """Whether the user running the kernel owns ``folder`` (always, where there are no uids)."""
    getuid: Callable[[], int] | None = getattr(os, "getuid", None)  # POSIX only
    if getuid is None:
        return True
    try:
        return folder.stat().st_uid == getuid()
    except OSError:
        return False


def project_root(start: Path | None = None) -> Path:
    """The project the kernel works in (see the module's docstring)."""
    start = (start or Path.cwd()).resolve()
    home = Path.home().resolve()
    for folder in (start, *start.parents):
        if folder != start and (folder == home or not owned(folder)):
            break  # home itself is a project only when you work in it; a folder not yours never is
        if any((folder / marker).exists() for marker in MARKERS):
            return folder
    return start


def inside(path: Path, root: Path) -> bool:
    """Whether ``path`` (symlinks followed) is ``root`` or lies under it."""
    return path.resolve().is_relative_to(root.resolve())
