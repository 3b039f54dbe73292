"""A finished experiment's log written as deepnb writes one, without running it: as many rows as a
test needs (10,000 in a second), for the views and the report to read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)> \u202egnp.exe\u202c"
"""What the log's answers and the judge's comments carry: markup and bidi controls, to be escaped."""


def finished_log(
    folder: Path, rows: int, *, epochs: int = 1, answer: Any = None, name: str = "review"
) -> Path:
    """A finished experiment's log: ``rows`` rows × variants a and b × ``epochs``; b fails every
    seventh row (its score 0, with the judge's reasoning), a passes every row."""
    lines: list[dict[str, Any]] = [
        {"type": "experiment", "format": 1, "name": name, "variants": {"a": "", "b": ""}}
        | {"scorers": ["judge"], "epochs": epochs, "baseline": "a", "rows": rows}
    ]
    for row in range(rows):
        lines.append(
            {
                "type": "row",
                "row": row,
                "inputs": {"q": f"q{row}"},
                "reference": f"r{row}",
                "given": f"q{row}",
            }
        )
        for variant in ("a", "b"):
            for epoch in range(epochs):
                failed = variant == "b" and row % 7 == 3 and epoch == epochs - 1
                said = {
                    "score": 0.0 if failed else 1.0,
                    "comment": f"because {HOSTILE}" if failed else "right",
                }
                lines.append(
                    {"type": "run", "row": row, "variant": variant, "epoch": epoch, "status": "done"}
                    | {"result": answer if answer is not None else f"**{variant}{row}** {HOSTILE}"}
                    | {"scores": {"judge": said}, "latency": 0.5, "cached": 1 if row == 0 else 0}
                    | ({"messages": transcript(answer)} if answer is not None else {})
                )
    path = folder / f"{name}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def transcript(answer: str) -> list[dict[str, Any]]:
    """A long conversation: the question, then 60 messages of the answer's text."""
    chunks = [{"role": "assistant", "content": answer[n * 3_000 : (n + 1) * 3_000]} for n in range(60)]
    return [{"role": "user", "content": "q"}, *chunks]
