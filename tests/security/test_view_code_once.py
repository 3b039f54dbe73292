"""The views' code travels once per kernel: every kind of deepnb view opens with a small loader,
its bundle and stylesheet come in code part models opened by the kernel's first view of that kind
and shared by every later one, and no message of any of them is over 64 KB."""

from __future__ import annotations

import importlib
import pkgutil
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anywidget
import comm
import pytest

import deepnb
import deepnb.views
from deepnb.views.assets import asset, stylesheet
from deepnb.views.shared_code import VIEWS
from tests.support.view_messages import message_size

LIMIT = 64 * 1024
OPENING_LIMIT = 40 * 1024  # a view's own opening: its data, no bundle (the bundle alone is 45 KB)


def _view_classes() -> set[type]:
    for module in pkgutil.walk_packages(deepnb.views.__path__, "deepnb.views."):
        importlib.import_module(module.name)
    found: set[type] = set()
    todo = list(anywidget.AnyWidget.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls.__module__.startswith("deepnb."):
            found.add(cls)
    return found


def _run_view(run: Any) -> Any:
    from deepnb.views.run.run_view import RunView

    return RunView(run)


def _files_view(run: Any) -> Any:
    from deepnb.views.files.files_view import FilesView

    return FilesView(run.files)


_batches: dict[str, Any] = {}


def _batch_view(run: Any) -> Any:
    from deepnb.views.batch.batch_view import BatchView

    if run.id not in _batches:  # one batch of the run's agent, finished, for every view of it
        _batches[run.id] = run.workbench.map(["Research how deep agents plan."] * 3).wait(60)
    return BatchView(_batches[run.id])


_experiments: dict[str, Any] = {}


def _experiment_view(run: Any) -> Any:
    from deepnb.views.experiment.experiment_live import ExperimentView

    if run.id not in _experiments:  # one experiment of the run's agent, finished, for every view of it
        rows = ["Research how deep agents plan.", "Research how deep agents use subagents."]
        log = Path(tempfile.mkdtemp()) / "code-once.jsonl"
        _experiments[run.id] = deepnb.experiment(rows, agent=run.workbench.name, epochs=2, log=log).wait(120)
    return ExperimentView(_experiments[run.id])


def _history_view(run: Any) -> Any:
    from deepnb.views.history_live import HistoryView

    return HistoryView(run.workbench.history(run.thread_id))


FACTORIES: dict[str, tuple[Callable[[Any], Any], str]] = {
    "RunView": (_run_view, "run_view"),
    "FilesView": (_files_view, "files_view"),
    "BatchView": (_batch_view, "batch_view"),
    "ExperimentView": (_experiment_view, "experiment_view"),
    "HistoryView": (_history_view, "history_view"),
}


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, dict[str, Any]]]]:
    """Every comm message published, in a kernel whose views have not opened their code yet."""
    from deepnb.views.shared_code import forget_parts

    forget_parts()
    messages: list[tuple[str, dict[str, Any]]] = []

    def publish(self: Any, msg_type: str, data: Any = None, *args: Any, **keys: Any) -> None:
        messages.append((msg_type, data or {}))

    monkeypatch.setattr(comm.DummyComm, "publish_msg", publish)
    yield messages
    forget_parts()


@pytest.fixture(scope="module")
def run() -> Any:
    wb = deepnb.agent(f"code-once-{uuid.uuid4().hex[:6]}", "demo:research")
    done = wb.run("Research how deep agents plan.")
    assert done.status == "done"
    return done


PANELS = {"HtmlPanel": "a comparison's answers and table, in marimo: a few lines of code of its own"}
"""Views without a bundle (their code is a few lines, sent with each), each measured below."""


def test_every_view_kind_is_measured() -> None:
    """A new kind of view must join this file's FACTORIES (or PANELS), so its messages are measured too."""
    assert {cls.__name__ for cls in _view_classes()} == set(FACTORIES) | set(PANELS)
    assert {name for _, name in FACTORIES.values()} == set(VIEWS)


def test_a_comparisons_panels_stay_under_64_kb_however_long_the_answers(
    sent: list[tuple[str, dict[str, Any]]],
) -> None:
    """Two answers of 60,000 characters each, differing throughout: the answers side by side and
    their difference, shown in one panel (marimo's; Jupyter's HTML box holds the same), stay
    under the limit, and say where the rest is."""
    from deepnb.views.compare_view import answers_html, comparison_table_html
    from deepnb.views.html_panel import HtmlPanel
    from tests.support.agents import scripted

    def long(word: str) -> str:
        return " ".join(f"{word}{i} **point** {i}." for i in range(6_000))[:60_000]

    agents = {}
    for key, word in (("a", "alpha"), ("b", "beta")):
        name = f"long-{key}-{uuid.uuid4().hex[:6]}"
        deepnb.agent(name, scripted({"main": [long(word)]}))
        agents[key] = name
    comparison = deepnb.compare("Say a lot", agents=list(agents.values())).wait(60)
    table = comparison_table_html(comparison.table())
    panels = [HtmlPanel(html=answers_html(comparison)), HtmlPanel(html=table)]
    try:
        assert "more characters not shown here; comparison.runs[" in panels[0].html
        largest = max(message_size(data) for _, data in sent)
        assert largest <= LIMIT, f"largest message of a comparison's panels: {largest:,} bytes"
        assert len(sent) >= 2
    finally:
        for panel in panels:
            panel.close()


def _parts(messages: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    return [d for k, d in messages if k == "comm_open" and d["state"].get("_model_name") == "WidgetModel"]


@pytest.mark.parametrize("kind", sorted(FACTORIES))
def test_a_views_code_comes_once_and_no_message_is_over_64_kb(
    kind: str, run: Any, sent: list[tuple[str, dict[str, Any]]]
) -> None:
    make, name = FACTORIES[kind]
    script, styles = VIEWS[name]
    first = make(run)
    opened_first = len(sent)
    second = make(run)
    try:
        first_parts, later_parts = _parts(sent[:opened_first]), _parts(sent[opened_first:])
        assert first_parts and not later_parts, "the second view opened the code again"
        code = first._code
        assert code == second._code
        by_ref = {f"anywidget:{p.model_id}": p.text for p in _shared_parts(kind)}
        assert "".join(by_ref[r] for r in code["esm"]) == asset(script).read_text(encoding="utf-8")
        assert "".join(by_ref[r] for r in code["css"]) == stylesheet(styles)
        assert sorted(d["state"]["text"] for d in first_parts) == sorted(by_ref.values())
        openings = [d for k, d in sent if k == "comm_open" and d["state"].get("_model_name") == "AnyModel"]
        assert len(openings) == 2
        for opening in openings:
            assert message_size(opening) <= OPENING_LIMIT, message_size(opening)
            assert len(opening["state"]["_esm"]) < 4096
        largest = max(message_size(data) for _, data in sent)
        assert largest <= LIMIT, f"largest message of a {kind}: {largest:,} bytes"
    finally:
        first.close()
        second.close()


def _shared_parts(kind: str) -> list[Any]:
    from deepnb.views import shared_code

    return shared_code._parts[FACTORIES[kind][1]][1]


def test_code_parts_are_opened_again_after_they_were_closed(
    run: Any, sent: list[tuple[str, dict[str, Any]]]
) -> None:
    """After ``Widget.close_all()`` (or anything that closes the parts) the next view brings them back."""
    from deepnb.views.shared_code import code_refs

    view = _run_view(run)
    for part in _shared_parts("RunView"):
        part.close()
    again = _run_view(run)
    try:
        assert again._code != view._code
        assert all(p.comm is not None for p in _shared_parts("RunView"))
        assert code_refs("run_view") == again._code
    finally:
        view.close()
        again.close()
