"""Fixtures shared across deepnb's test folders."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from IPython import get_ipython
from IPython.core.interactiveshell import InteractiveShell
from IPython.testing.globalipapp import start_ipython

from deepnb.core.text import secrets
from deepnb.models import resolve
from deepnb.session import agents


@pytest.fixture(autouse=True)
def secrets_given_stay_in_their_test() -> Iterator[None]:
    """A secret a test hands deepnb in code (a trace header, a connect key) is forgotten when the
    test ends, as a kernel forgets it when it restarts: a later test sees only its own."""
    given = set(secrets._given)
    yield
    if secrets._given != given:
        secrets._given.clear()
        secrets._given.update(given)
        secrets._environ = {}  # the forms are computed again


@pytest.fixture(autouse=True)
def unpaced_demos(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """In this process, the shipped demos (``demo:NAME``) stream without their pause between
    tokens, which is there for people watching (as ``DEEPNB_DEMO_PACE=0`` has them); a test that
    needs a run still going while it acts (stops it, starts a second one) is marked ``paced`` and
    keeps the demo's own pace. Kernels, notebooks and browsers started by tests are other
    processes: their pace is their environment's."""
    if not request.node.get_closest_marker("paced"):
        monkeypatch.setattr(resolve, "demo_pace", lambda: 0.0)


@pytest.fixture
def ip() -> Iterator[InteractiveShell]:
    """IPython's testing shell with ``%load_ext deepnb`` done and no agent registered. At the end,
    every run still going is stopped and the agents are forgotten. The shell is the session's one
    (IPython's global test app): its ``user_ns`` outlives a test."""
    start_ipython()
    shell = get_ipython()
    shell.run_line_magic("load_ext", "deepnb")
    agents.forget_all()
    yield shell
    for bench in agents.registered().values():
        for run in list(bench._active.values()):
            run.stop()
            run.wait(10)
    agents.forget_all()


@pytest.fixture(scope="session")
def postgres_uri() -> Iterator[str]:
    """A throwaway PostgreSQL server for the session (pgserver's bundled binaries, no system
    install), as a connection URI. Its folder is its own, not under pytest's numbered temporary
    folders, which another pytest process on the machine may prune while this one runs."""
    pgserver = pytest.importorskip("pgserver", reason="the test extra installs pgserver")
    with tempfile.TemporaryDirectory(prefix="deepnb-pg-") as folder:
        server = pgserver.get_server(Path(folder), cleanup_mode="stop")
        yield server.get_uri()
        server.cleanup()
