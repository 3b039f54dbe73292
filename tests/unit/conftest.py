"""Fixtures for deepnb's offline unit tests."""

from __future__ import annotations

import pytest

from deepnb.models.resolve import online_environment

# The helpers once defined here live in tests/support/agents.py; these names keep older imports working.
from tests.support.agents import scripted as scripted
from tests.support.agents import stream_chunks as stream_chunks
from tests.support.agents import unique as unique


@pytest.fixture(autouse=True)
def _offline_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No model choice, key or tracing switch from the environment reaches a test."""
    for name in online_environment():
        monkeypatch.delenv(name, raising=False)
