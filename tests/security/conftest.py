"""Fixtures for the security suite: each test is offline and has a deepnb home of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepnb.models.resolve import online_environment


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No key or model choice from the environment, and a fresh ``DEEPNB_HOME`` (trust records)."""
    for name in online_environment():
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DEEPNB_HOME", str(tmp_path / "deepnb-home"))
