"""Fixtures for the notebook checks."""

from __future__ import annotations

import pytest

from tests.support.binder_env import BinderRun, build_and_execute


@pytest.fixture(scope="session")
def binder_run(tmp_path_factory: pytest.TempPathFactory) -> BinderRun:
    """The Binder environment, built once, with every demo notebook executed in it."""
    return build_and_execute(tmp_path_factory.mktemp("binder"))
