"""``%%deepagent eval DATASET``: an experiment over a kernel variable's rows or a file, the cell
body as the template, variants and scorers from variables or by name, the matrix shown when it
ends; every mistake is one line and nothing runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

import deepnb
from deepnb.many.experiment import Experiment
from tests.support.agents import scripted, unique

SCRIPT = {"main": [{"match": "Paris", "turns": [{"text": "France"}]}, {"turns": [{"text": "Elsewhere"}]}]}


def _agent() -> str:
    name = unique("evaluated")
    deepnb.agent(name=name, model=scripted(SCRIPT))
    return name


def _cell(ip: Any, source: str) -> Any:
    with capture_output() as shown:
        result = ip.run_cell(source)
    assert result.error_in_exec is None, result.error_in_exec
    return shown


def test_the_cell_runs_the_experiment_and_shows_its_matrix(ip: Any, tmp_path: Path) -> None:
    name = _agent()
    ip.user_ns["cities"] = [{"city": "Paris", "reference": "France"}, {"city": "Oslo", "reference": "Norway"}]
    ip.user_ns["variants"] = {"terse": "Answer in one word.", "other": scripted(SCRIPT)}
    ip.user_ns["mine"] = lambda output, reference: len(output or "") < 7
    log = tmp_path / "cities.jsonl"
    shown = _cell(
        ip,
        f"%%deepagent eval cities -a {name} --variants variants --scorer exact --scorer mine -e 2 -c 3 "
        f"--baseline terse --log {log} -o exp\nWhich country is {{city}} in?",
    )
    experiment = ip.user_ns["exp"]
    assert isinstance(experiment, Experiment) and experiment.done and experiment.path == log
    assert experiment.plan.epochs == 2 and experiment.plan.baseline == "terse"
    assert experiment.plan.rows[0].given == "Which country is Paris in?"
    scores = {key: {n: s.score for n, s in r.scores.items()} for key, r in experiment.records.items()}
    assert scores[(0, "terse", 1)] == {"exact": 1.0, "mine": 1.0}
    assert scores[(1, "other", 0)] == {"exact": 0.0, "mine": 0.0}
    bundle = shown.outputs[-1].data
    assert "Experiment" in bundle["text/plain"] and 'aria-label="Experiment"' in bundle["text/html"]


def test_a_file_dataset_bg_and_the_line_form(ip: Any, tmp_path: Path) -> None:
    name = _agent()
    data = tmp_path / "rows.csv"
    data.write_text("input,expected\nParis?,France\nRome?,Italy\n", encoding="utf-8")
    _cell(
        ip,
        f"%%deepagent eval {data} -a {name} --scorer contains --bg --log {tmp_path / 'a.jsonl'} -o later\n",
    )
    later = ip.user_ns["later"].wait(60)
    assert [later.records[key].result for key in sorted(later.records)] == ["France", "Elsewhere"]
    line = ip.run_line_magic("deepagent", f"eval {data} -a {name} --log {tmp_path / 'b.jsonl'}")
    assert isinstance(line, Experiment) and line.done and len(line.records) == 2


def test_a_dataset_file_in_its_own_layout_with_named_fields(ip: Any, tmp_path: Path) -> None:
    """A LangSmith export, its input and reference named with --input / --reference."""
    name = _agent()
    export = tmp_path / "export.jsonl"
    export.write_text(
        '{"id": "e1", "inputs": {"city": "Paris", "n": 1}, "outputs": {"country": "France"}}\n'
        '{"id": "e2", "inputs": {"city": "Oslo", "n": 2}, "outputs": {"country": "Norway"}}\n',
        encoding="utf-8",
    )
    _cell(
        ip,
        f"%%deepagent eval {export} -a {name} --input city --reference country --scorer exact "
        f"--log {tmp_path / 'e.jsonl'} -o named\n",
    )
    named = ip.user_ns["named"]
    assert [row.given for row in named.plan.rows] == ["Paris", "Oslo"]
    assert [named.records[(i, name, 0)].scores["exact"].score for i in (0, 1)] == [1.0, 0.0]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("eval nothing_here", "No variable named 'nothing_here'"),
        ("eval rows --variants nothing_here", "No variable named 'nothing_here': --variants"),
        ("eval rows --scorer bogus", "No scorer 'bogus'"),
        ("eval rows --scorer regex", "--scorer regex needs its settings"),
        ("eval rows -e 0", "-e takes how many times each row runs per variant"),
        ("eval rows -c none", "-c takes how many runs go at once"),
        ("eval rows --baseline zz", "baseline='zz' is not a variant"),
        ("eval rows --variants rows", "variants= is a dict"),
        ("eval rows --bogus", "Valid options:"),
        ("eval missing.jsonl", "No dataset file"),
        ("eval rows --input nothing", "No row has a field 'nothing', which input= names"),
        ("eval rows --retries -1", "--retries takes how many times a run failing with an error"),
        ("eval rows --retries twice", "a whole number of at least 0, not 'twice'"),
        ("eval rows --score-timeout 0", "--score-timeout takes the seconds each scorer has"),
        ("eval rows --score-timeout soon", "(or none for no bound), not 'soon'"),
        ("eval rows --score-timeout inf", "a positive number (or none for no bound), not 'inf'"),
        (f"eval rows --cache {__file__}", "is a file: name a folder for the model-call cache"),
    ],
)
def test_every_mistake_is_one_line_and_nothing_runs(
    ip: Any, line: str, expected: str, tmp_path: Path
) -> None:
    name = _agent()
    bench = deepnb.session.building.get(name)
    ip.user_ns["rows"] = ["Paris?"]
    ip.user_ns.pop("nothing_here", None)
    ip.user_ns.pop("failed", None)
    with capture_output():
        result = ip.run_cell(
            f"%%deepagent {line} -a {name} --log {tmp_path / 'x.jsonl'} -o failed\nAbout {{input}}"
        )
    error = result.error_in_exec
    assert isinstance(error, UsageError), error
    assert expected in str(error) and "\n" not in str(error)
    assert "failed" not in ip.user_ns and bench.threads() == []
    assert not (tmp_path / "x.jsonl").exists()


def test_retries_cache_and_score_timeout_are_the_experiments(
    ip: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = _agent()
    monkeypatch.chdir(tmp_path)
    ip.user_ns["rows"] = [{"input": "Paris?", "reference": "France"}]
    _cell(
        ip,
        f"%%deepagent eval rows -a {name} --retries 2 --cache {tmp_path / 'responses'} --score-timeout 2.5 "
        f"--scorer exact --log {tmp_path / 'a.jsonl'} -o given\n",
    )
    given = ip.user_ns["given"]
    assert given.retries is not None and given.retries.times == 2
    assert given.cache is not None and given.cache.folder == tmp_path / "responses"
    assert given.score_timeout == 2.5 and [r.scores["exact"].score for r in given.records.values()] == [1.0]
    assert (tmp_path / "responses").is_dir() and any((tmp_path / "responses").iterdir())

    _cell(
        ip,
        f"%%deepagent eval rows -a {name} --cache --score-timeout none --log {tmp_path / 'b.jsonl'} "
        "-o alone\n",
    )
    alone = ip.user_ns["alone"]
    assert alone.cache is not None and alone.cache.folder == Path(".deepnb/cache")
    assert alone.score_timeout is None and alone.retries is None
    assert (tmp_path / ".deepnb" / "cache").is_dir()

    _cell(ip, f"%%deepagent eval rows -a {name} --log {tmp_path / 'c.jsonl'} -o plain\n")
    plain = ip.user_ns["plain"]
    assert plain.cache is None and plain.retries is None and plain.score_timeout == 300
