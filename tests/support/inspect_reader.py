"""Read Inspect eval logs with the real ``inspect_ai`` (run by the Python of ``.venv-inspect``,
where ``make`` installs it, as the package would clash with the tests' own) and print, as JSON,
what the tests compare: the logs ``list_eval_logs`` finds in a folder, and for each log given its
header, its samples and epochs, its metrics as written and as Inspect recomputes them.

    .venv-inspect/bin/python tests/support/inspect_reader.py FOLDER LOG...
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from inspect_ai.log import list_eval_logs, read_eval_log, recompute_metrics


def _metrics(log: Any) -> dict[str, dict[str, float]]:
    return {s.name: {k: m.value for k, m in s.metrics.items()} for s in log.results.scores}


def main(folder: str, logs: list[str]) -> None:
    listed = sorted(Path(info.name.removeprefix("file://")).name for info in list_eval_logs(folder))
    read = {}
    for path in logs:
        header = read_eval_log(path, header_only=True)
        log = read_eval_log(path)
        written = _metrics(log)
        recompute_metrics(log)
        read[path] = {
            "header_has_samples": header.samples is not None,
            "task": log.eval.task,
            "samples": len(log.samples or []),
            "epochs": log.eval.config.epochs,
            "variant": (log.eval.task_args or {}).get("variant"),
            "written": written,
            "recomputed": _metrics(log),
        }
    print(json.dumps({"listed": listed, "logs": read}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
