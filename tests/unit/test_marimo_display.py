"""marimo's display protocol: a run, a batch, a comparison, an experiment and a thread's files
show as their live views where a host displays an object by its ``_display_`` (marimo), which
IPython never calls; deepnb imports nothing of marimo to offer them."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import anywidget
import pytest

import deepnb
from deepnb.views.batch.batch_view import BatchView
from deepnb.views.experiment.experiment_live import ExperimentView
from deepnb.views.files.files_view import FilesView
from deepnb.views.html_panel import HtmlPanel
from deepnb.views.run.run_view import RunView
from tests.support.agents import scripted, unique
from tests.support.waiting import WAIT

ANSWER = {"main": [{"turns": [{"text": "Tide pools are <b>hard</b>."}]}]}
WRITES = {
    "main": [
        {
            "turns": [
                {"tool_calls": [{"name": "write_file", "args": {"file_path": "/n.md", "content": "hi\n"}}]},
                {"text": "Noted."},
            ]
        }
    ]
}


def _bench(script: dict[str, Any] = ANSWER, **options: Any) -> deepnb.Workbench:
    return deepnb.agent(name=unique("marimo"), model=scripted(script), **options)


def test_a_run_a_batch_an_experiment_and_files_display_as_their_live_widgets(tmp_path: Path) -> None:
    bench = _bench(WRITES)
    run = bench.run("Take a note.")
    assert run.status == "done"
    batch = bench.map(["one", "two"]).wait(WAIT)
    experiment = deepnb.experiment(["q"], agent=bench.name, log=tmp_path / "log.jsonl").wait(WAIT)
    shown = {
        "run": run._display_(),
        "batch": batch._display_(),
        "experiment": experiment._display_(),
        "files": run.files._display_(),
    }
    kinds = {"run": RunView, "batch": BatchView, "experiment": ExperimentView, "files": FilesView}
    # by name: another test may have imported a view's module again
    assert {name: type(view).__name__ for name, view in shown.items()} == {
        n: k.__name__ for n, k in kinds.items()
    }
    assert shown["run"].run is run
    assert shown["files"].files.thread_id == run.thread_id
    assert [entry["name"] for entry in shown["files"].root_entries] == ["n.md"]
    for view in shown.values():
        view.close()


def test_jupyter_still_shows_a_run_through_its_bundle_and_its_display_hook() -> None:
    run = _bench().run("Go")
    bundle = run._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "&lt;b&gt;hard&lt;/b&gt;" in bundle["text/html"]
    assert callable(run._ipython_display_)


def test_an_object_with_no_live_view_says_so() -> None:
    from deepnb.core.displayable import Renderer, WidgetDisplayable, register

    class Plain(WidgetDisplayable):
        pass

    register(Plain, Renderer(text=lambda _obj: "plain"))
    with pytest.raises(LookupError, match="no live view for"):
        Plain()._display_()


def _in_a_fresh_python(code: str) -> str:
    """What ``code`` prints, run in a new interpreter from the repository's root: marimo, once it
    formats anything, hooks every ipywidgets widget made after in that process."""
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=root,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def test_displaying_a_run_the_marimo_way_imports_no_marimo() -> None:
    out = _in_a_fresh_python(
        """
        import sys
        import deepnb
        from tests.support.agents import scripted
        run = deepnb.agent(name="plain", model=scripted({"main": [{"turns": [{"text": "ok"}]}]})).run("Go")
        view = run._display_()
        print(type(view).__name__, "marimo" in sys.modules)
        """
    )
    assert out.split() == ["RunView", "False"]


def test_marimo_draws_a_run_as_its_anywidget_and_a_comparison_as_its_run_views_over_its_table() -> None:
    pytest.importorskip("marimo")
    out = _in_a_fresh_python(
        f"""
        import json
        import marimo as mo
        import deepnb
        from tests.support.agents import scripted
        script = {ANSWER!r}
        bench = deepnb.agent(name="drawn", model=scripted(script))
        run = bench.run("Go")
        comparison = deepnb.compare(
            "Which?", models={{"first": scripted(script), "second": scripted(script)}}, agent="drawn"
        ).wait({WAIT})
        print(json.dumps({{"run": mo.as_html(run).text, "comparison": mo.as_html(comparison).text}}))
        """
    )
    html = json.loads(out.strip().splitlines()[-1])
    assert html["run"].count("<marimo-anywidget") == 1
    assert "Tide pools" not in html["run"]  # the live view, not the static snapshot
    # two run views, then the answers and the table (each an HtmlPanel)
    assert html["comparison"].count("<marimo-anywidget") == 4
    assert "first" in html["comparison"] and "second" in html["comparison"]


def test_an_html_panel_redraws_what_its_box_shows() -> None:
    from ipywidgets import HTML  # type: ignore[import-untyped]

    from deepnb.views.live import mirrored

    box = HTML("<i>before</i>")
    panel = mirrored(box)
    assert type(panel).__name__ == HtmlPanel.__name__ and isinstance(panel, anywidget.AnyWidget)
    assert panel.html == "<i>before</i>"
    box.value = "<i>after</i>"
    assert panel.html == "<i>after</i>"
