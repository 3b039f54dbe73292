"""A test that loads extensions or registers agents starts as a fresh kernel does and leaves
nothing behind: no extension loaded (their shutdown callbacks run), no agent registered."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from deepnb import extensions
from deepnb.session import agents


@contextlib.contextmanager
def fresh_session() -> Iterator[None]:
    """Unload every extension and forget every agent, before and after the block."""
    extensions.shutdown()
    agents.forget_all()
    try:
        yield
    finally:
        agents.forget_all()
        extensions.shutdown()
