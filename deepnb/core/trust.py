"""Which projects you trust (``%deepagent trust``), kept in ``~/.deepnb/trusted.json``.

A trusted project's ``.deepnb/extensions/`` and ``.deepagents/extensions/`` run, and its
``deepnb.toml`` (or ``[tool.deepnb]``) may import code (``module:attr``) and reach outside its
folder. An untrusted one gets neither:
its declarative agents still work when they need neither.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.core.project import deepnb_home

__all__ = ["is_trusted", "revoke", "trust", "trust_file"]


def trust_file() -> Path:
    return deepnb_home() / "trusted.json"


def _trusted() -> dict[str, Any]:
    try:
        data = json.loads(trust_file().read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise DeepnbError(f"Cannot read {trust_file()} ({exc}): fix or delete it.") from None
    projects = data.get("projects") if isinstance(data, dict) else None
    return projects if isinstance(projects, dict) else {}


def is_trusted(root: Path) -> bool:
    """Whether you ran ``%deepagent trust`` for the project at ``root``."""
    return str(root.resolve()) in _trusted()


def trust(root: Path) -> Path:
    """Record ``root`` (an existing folder) as a trusted project; its resolved path."""
    folder = root.expanduser()
    if not folder.is_dir():
        raise DeepnbError(
            f"No folder {str(root)!r} to trust: name a project folder that exists, "
            "or leave the path out to trust the current project."
        )
    folder = folder.resolve()
    _write({**_trusted(), str(folder): {"trusted_at": datetime.now(UTC).isoformat()}})
    return folder


def revoke(root: Path) -> bool:
    """Forget ``root``'s trust; whether it was trusted."""
    projects = _trusted()
    if projects.pop(str(root.resolve()), None) is None:
        return False
    _write(projects)
    return True


def _write(projects: dict[str, Any]) -> None:
    path = trust_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(f".{os.getpid()}.tmp")
    temporary.write_text(json.dumps({"projects": projects}, indent=2) + "\n", encoding="utf-8")
    temporary.replace(path)
