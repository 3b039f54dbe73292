"""Fixtures shared across deepnb's test modules."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def postgres_uri(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A throwaway PostgreSQL server for the session (pgserver's bundled binaries, no system
    install), as a connection URI."""
    pgserver = pytest.importorskip("pgserver", reason="the test extra installs pgserver")
    server = pgserver.get_server(tmp_path_factory.mktemp("postgres"), cleanup_mode="stop")
    yield server.get_uri()
    server.cleanup()


@pytest.fixture(scope="session")
def binder_run(tmp_path_factory: pytest.TempPathFactory):
    """The Binder environment, built once, with every demo notebook executed in it."""
    from tests.support.binder_env import build_and_execute

    return build_and_execute(tmp_path_factory.mktemp("binder"))
