"""Sessions: the protocol every kind of agent speaks (:mod:`deepnb.session.protocol`), the local
and remote workbenches, runs, the agent registry, building and ``deepnb.toml``. What runs many
sessions (batches, comparisons, experiments) is :mod:`deepnb.many`; deploy, serve and export are
:mod:`deepnb.ship`.

``from deepnb.session import Session`` (the protocol's names, as before the package was a folder)
imports the protocol on first use, so importing a module of this package stays light.
"""

from __future__ import annotations

import importlib
from typing import Any

_PROTOCOL_NAMES = ("Checkpoint", "History", "Session", "Step", "ThreadInfo")


def __getattr__(name: str) -> Any:
    if name in _PROTOCOL_NAMES:
        return getattr(importlib.import_module("deepnb.session.protocol"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
