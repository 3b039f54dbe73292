"""The demo notebooks as saved: each view is its static snapshot, so opening one (Binder, `make lab`)
shows every run before anything is re-run, never "model not found"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_saved_demo_outputs_are_static_snapshots(path: Path) -> None:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    outputs = [o for cell in cells for o in cell.get("outputs", []) if "data" in o]
    assert outputs, f"{path.name} holds no outputs"
    views = [o for o in outputs if WIDGET_VIEW in o["data"]]
    assert not views, f"{path.name}: {len(views)} outputs need a live widget model to show"
    assert not json.loads(path.read_text(encoding="utf-8"))["metadata"].get("widgets")


def test_every_demo_is_checked() -> None:
    assert len(NOTEBOOKS) >= 7
