"""What opening deepnb's views costs on the wire, per kind of view, before and after the views'
code was made to travel once per kernel (deepnb.views.shared_code).

    python bench/opening.py

For each kind of view (the run view, the file browser) it opens two views of a finished demo run,
in a fresh kernel state, and prints every comm message's size (JSON, UTF-8), against the goal
that no front-end message is over 64 KB:

- before: each view's opening carried the whole bundle and stylesheet as its ``_esm`` and
  ``_css``. Measured here by putting them back into the real opening message, which is exactly
  what deepnb sent until then.
- after: the view's opening carries the small loader, and the bundle and stylesheet come in code
  part models opened by the first view of that kind only (each part under 48 KB).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GOAL = 64 * 1024


def _size(data: Any) -> int:
    return len(json.dumps(data, ensure_ascii=False).encode())


def main() -> int:
    import comm

    import deepnb
    from deepnb.views.assets import asset, stylesheet
    from deepnb.views.files.files_view import FilesView
    from deepnb.views.run.run_view import RunView
    from deepnb.views.shared_code import forget_parts

    sent: list[tuple[str, dict[str, Any]]] = []

    def publish(self: Any, msg_type: str, data: Any = None, *args: Any, **keys: Any) -> None:
        sent.append((msg_type, data or {}))

    comm.DummyComm.publish_msg = publish  # record instead of sending (no front end here)
    run = deepnb.agent("bench-opening", "demo:research").run("Research how deep agents plan.")
    kinds = {
        "run view": (lambda: RunView(run), "run_view.js", "run_view.css"),
        "file browser": (lambda: FilesView(run.files), "files_view.js", "files_view.css"),
    }
    print(f"{'view':<14}{'message':<34}{'before':>12}{'after':>12}   goal ≤ {GOAL // 1024} KB")
    worst_before = worst_after = 0
    for kind, (make, script, styles) in kinds.items():
        forget_parts()
        sent.clear()
        views = [make(), make()]
        bundle = {"_esm": asset(script).read_text(encoding="utf-8"), "_css": stylesheet(styles)}
        opened = 0
        for msg_type, data in sent:
            state = data.get("state", {})
            model = state.get("_model_name")
            if msg_type == "comm_open" and model == "AnyModel":
                opened += 1
                before = _size({**data, "state": {**state, **bundle}})
                after = _size(data)
                label = f"view {opened} opening"
            elif msg_type == "comm_open" and model == "WidgetModel":
                before, after = 0, _size(data)
                label = "code part opening (once)"
            else:
                continue
            worst_before, worst_after = max(worst_before, before), max(worst_after, after)
            b = f"{before / 1024:,.1f} KB" if before else "—"
            print(f"{kind:<14}{label:<34}{b:>12}{after / 1024:>9,.1f} KB")
        for view in views:
            view.close()
    forget_parts()
    print(
        f"\nlargest message: before {worst_before / 1024:,.1f} KB, after {worst_after / 1024:,.1f} KB "
        f"({'within' if worst_after <= GOAL else 'OVER'} the 64 KB goal)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
