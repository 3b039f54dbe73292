"""One writer per log: an experiment that adds to a log claims it first, through the claims
runs take on threads (:mod:`deepnb.session.claims`), the log standing for a SQLite database and
``experiment log`` for its thread. In this kernel the registry keeps a second experiment off a
log one is still running on; across kernels, an exclusive ``flock`` on a file in
``<log>-claims/`` beside the log (:mod:`deepnb.core.threads.locks`) does, naming the process that
holds it. The lock dies with its process, so a log left by a kernel that was killed is taken
over by the next experiment. A second writer is refused, never joined."""

from __future__ import annotations

import threading
from pathlib import Path

from deepnb.core.errors import DeepnbError
from deepnb.core.threads import locks
from deepnb.session import claims

THREAD = "experiment log"
"""The thread id a log's claim holds (one per log)."""


class LogClaim:
    """An experiment's hold on its log (a :class:`~deepnb.core.handles.RunHandle` to the claims
    registry); :meth:`release` lets it go (once; later calls do nothing)."""

    def __init__(self, path: Path, name: str) -> None:
        self.path = path
        self.name = name
        self.id = f"experiment {name!r}"
        self.thread_id = THREAD
        self._released = threading.Event()

    @property
    def status(self) -> str:
        return "done" if self._released.is_set() else "running"

    @property
    def done(self) -> bool:
        return self._released.is_set()

    @property
    def database(self) -> tuple[str, str]:
        return ("sqlite", str(self.path.resolve()))

    def release(self) -> None:
        if not self._released.is_set():
            self._released.set()
            claims.release(self.database, self)


def claim(path: Path, name: str) -> LogClaim:
    """Claim the log at ``path`` for experiment ``name``: refused in one line naming the
    experiment of this kernel or the process that holds it."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DeepnbError(f"Cannot write the experiment's log {str(path)!r}: {exc.strerror}.") from None
    mine = LogClaim(path, name)
    try:
        holder = claims.claim(mine.database, mine)
    except locks.HeldElsewhere as exc:
        raise DeepnbError(
            f"The experiment log {str(path)!r} is in use by an experiment in another kernel "
            f"({exc.holder.describe()}): let it end (or stop it) there, or give another log=."
        ) from None
    if holder is not mine:
        raise DeepnbError(
            f"The experiment log {str(path)!r} is in use by {holder.id}, still running in this "
            "kernel: wait for it (.wait()) or stop it (.stop()) first, or give another log=."
        )
    return mine
