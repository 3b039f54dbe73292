"""The ``deepnb`` command: experiments from a terminal or a CI job, over the same Python API as
the notebook's (:func:`deepnb.experiment`).

``deepnb eval FILE`` runs the experiment a file defines, shows its progress and its summary, and
exits 0 when every ``--fail-under`` threshold is met, 1 when one is missed (or a run ended in
error), 2 on a usage error; ``deepnb view LOG`` prints a log's summary.
"""

from __future__ import annotations

from deepnb.cli.main import main

__all__ = ["main"]
