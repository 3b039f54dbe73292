"""What the command prints: progress while an experiment runs (a bar on a terminal, a line at
each tenth elsewhere, so a CI log stays short) and the summary table at the end, on rich."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from deepnb.many.experiment import Experiment, Summary


class Progressing:
    """Follows an experiment's ended runs until :meth:`close`; safe to call from any thread."""

    def __init__(self, experiment: Experiment, console: Console) -> None:
        self._experiment = experiment
        self._console = console
        self._total = len(experiment.runs)
        self._lock = threading.Lock()
        self._tenth = -1
        self._bar: Progress | None = None
        self._task: Any = None
        if console.is_terminal:
            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=console,
                transient=True,
            )
            self._task = self._bar.add_task(f"{experiment.name}: runs ended", total=self._total)
            self._bar.start()
        self._unsubscribe: Callable[[], None] = experiment.subscribe(self.update)
        self.update()

    def update(self) -> None:
        ended = len(self._experiment.records)
        with self._lock:
            if self._bar is not None:
                self._bar.update(self._task, completed=ended)
                return
            tenth = ended * 10 // max(self._total, 1)
            if tenth > self._tenth:
                self._tenth = tenth
                self._console.print(
                    f"{self._experiment.name}: {ended}/{self._total} runs ended", highlight=False
                )

    def close(self) -> None:
        self._unsubscribe()
        with self._lock:
            if self._bar is not None:
                self._bar.stop()
                self._bar = None


def summary_table(summary: Summary, title: str) -> Table:
    """Per variant: runs, errors, and each scorer's mean with its 95 % interval, the runs it rests
    on, and its pass rate."""
    table = Table(title=Text(title), title_justify="left")
    table.add_column("variant")
    table.add_column("runs", justify="right")
    table.add_column("errors", justify="right")
    scorers = list(dict.fromkeys(s.scorer for v in summary.variants for s in v.scores))
    for name in scorers:
        table.add_column(Text(f"{name} mean [95% CI] (n)"), justify="right")
        table.add_column(Text(f"{name} pass"), justify="right")
    for variant in summary.variants:
        cells = [variant.variant, str(variant.runs), str(variant.errors)]
        by_name = {s.scorer: s for s in variant.scores}
        for name in scorers:
            score = by_name.get(name)
            if score is None or score.mean is None:
                cells += ["-", "-"]
                continue
            interval = (
                "" if score.low is None or score.high is None else f" [{score.low:.2f}, {score.high:.2f}]"
            )
            cells.append(f"{score.mean:.2f}{interval} ({score.n})")
            cells.append("-" if score.pass_rate is None else f"{score.pass_rate:.0%}")
        table.add_row(*(Text(cell) for cell in cells))  # model and user text: never markup
    return table
