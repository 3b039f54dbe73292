"""The ``deepnb`` command as a CI job runs it: a subprocess on an experiment file (YAML, TOML or
Python), its progress on stderr, the summary table, the exit code (0 met, 1 missed, 2 a usage
error), the log that reopens in Python, and Ctrl-C or a kill followed by a resume."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import deepnb

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 240
CAPITALS = """question,reference
Which country is Paris the capital of?,France
Which country is Lisbon the capital of?,Portugal
Which country is Canberra the capital of?,Australia
Which country is Ottawa the capital of?,Canada
Which country is Nairobi the capital of?,Kenya
Which country is Wellington the capital of?,New Zealand
"""
SUITE = """
name: capitals
dataset: capitals.csv
template: "{question}"
agent: {model: "demo:quiz-quick"}
variants:
  quick: demo:quiz-quick
  checked: demo:quiz-checked
scorers: [contains]
log: capitals.jsonl
"""


def environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "LANGSMITH_TRACING": "false", "COLUMNS": "200"}


def deepnb_command(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "deepnb.cli", *args],
        cwd=cwd,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )


def write_suite(folder: Path) -> Path:
    (folder / "capitals.csv").write_text(CAPITALS, encoding="utf-8")
    (folder / "suite.yaml").write_text(SUITE, encoding="utf-8")
    return folder / "suite.yaml"


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    return write_suite(tmp_path)


@pytest.fixture(scope="module")
def missed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """One run of the suite that misses its threshold, writing the report and the Inspect logs
    too: its folder and the command's outcome, which the tests below read each a part of."""
    folder = tmp_path_factory.mktemp("missed")
    write_suite(folder)
    (folder / "out").mkdir()
    out = deepnb_command(
        "eval",
        "suite.yaml",
        "--fail-under",
        "contains=0.8",
        "--report",
        "out/report.html",
        "--inspect",
        "logs",
        cwd=folder,
    )
    return folder, out


def logged_runs(path: Path) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [line for line in lines if line["type"] == "run"]


def test_the_console_script_is_installed_and_answers_help() -> None:
    script = shutil.which("deepnb", path=str(Path(sys.executable).parent))
    assert script is not None
    out = subprocess.run([script, "eval", "--help"], capture_output=True, text=True, timeout=TIMEOUT)
    assert out.returncode == 0, out.stderr
    assert "--fail-under" in out.stdout and "SCORER=VALUE" in out.stdout


def test_a_missed_threshold_exits_1_and_names_the_variant_and_its_score(
    missed: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    folder, out = missed
    assert out.returncode == 1, out.stderr
    # the quick demo gets Canberra and Ottawa wrong: 4 of 6, counted here from the log itself
    runs = logged_runs(folder / "capitals.jsonl")
    quick = [r["scores"]["contains"]["score"] for r in runs if r["variant"] == "quick"]
    assert len(runs) == 12 and sum(quick) / len(quick) == pytest.approx(4 / 6)
    assert "FAILED quick: contains 0.667 < 0.8" in out.stderr
    assert "FAILED checked" not in out.stderr
    assert "capitals: 12/12 runs ended" in out.stderr  # progress, one line per tenth off a terminal
    assert "quick" in out.stdout and "checked" in out.stdout and "contains mean" in out.stdout
    # the log is the notebook's: it reopens there with the same figures
    reopened = deepnb.load_experiment(folder / "capitals.jsonl")
    means = {v.variant: v.scores[0].mean for v in reopened.summary().variants}
    assert means == {"quick": pytest.approx(4 / 6), "checked": 1.0}


def test_thresholds_met_exit_0_and_a_logged_experiment_is_viewed_and_gated(suite: Path) -> None:
    out = deepnb_command(
        "eval", suite.name, "--variants", "checked", "--fail-under", "contains=1", cwd=suite.parent
    )
    assert out.returncode == 0, out.stderr
    assert "Every threshold is met." in out.stderr
    assert {r["variant"] for r in logged_runs(suite.parent / "capitals.jsonl")} == {"checked"}
    viewed = deepnb_command("view", "capitals.jsonl", "--fail-under", "contains=1", cwd=suite.parent)
    assert viewed.returncode == 0 and "checked" in viewed.stdout
    missed = deepnb_command("view", "capitals.jsonl", "--fail-under", "contains=1.5", cwd=suite.parent)
    assert missed.returncode == 1 and "FAILED checked: contains 1.000 < 1.5" in missed.stderr


def report_tables(path: Path) -> tuple[str, dict[str, Any]]:
    """A report's summary table (its HTML) and its samples' data."""
    html = path.read_text(encoding="utf-8")
    summary = html.split('aria-label="Summary">', 1)[1].split("</table>", 1)[0]
    data = html.split('<script type="application/json" id="dnb-data">', 1)[1].split("</script>", 1)[0]
    return summary, json.loads(data)


def test_the_report_is_written_when_a_threshold_is_missed_and_for_a_logged_experiment(
    missed: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    folder, out = missed
    assert out.returncode == 1, out.stderr
    assert "report: out/report.html" in out.stderr
    summary, data = report_tables(folder / "out" / "report.html")
    # the quick demo: 4 of 6 (Canberra and Ottawa wrong), as the log itself says
    quick = [r["scores"]["contains"]["score"] for r in logged_runs(folder / "capitals.jsonl")]
    assert "<td>quick</td>" in summary and "<td>checked</td>" in summary
    assert len(data["runs"]) == len(quick) == 12 and data["variants"] == ["quick", "checked"]
    failed = [r for r in data["runs"] if r["sc"][0][1] == 0.0]
    assert sorted((r["r"], data["variants"][r["v"]]) for r in failed) == [(2, "quick"), (3, "quick")]

    viewed = deepnb_command("view", "capitals.jsonl", "--report", "viewed.html", cwd=folder)
    assert viewed.returncode == 0, viewed.stderr
    assert report_tables(folder / "viewed.html") == (summary, data)


def test_inspect_logs_are_written_when_a_threshold_is_missed_and_for_a_logged_experiment(
    missed: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    folder, out = missed
    assert out.returncode == 1, out.stderr
    written = sorted((folder / "logs").glob("*_capitals_*.json"))
    assert len(written) == 2 and all(f"inspect: logs/{p.name}" in out.stderr for p in written)
    logs = {log["eval"]["task_args"]["variant"]: log for log in map(read_json, written)}
    # the quick demo: 4 of 6 (Canberra and Ottawa wrong), as the log itself says
    accuracy = {v: log["results"]["scores"][0]["metrics"]["accuracy"]["value"] for v, log in logs.items()}
    assert accuracy == {"quick": 4 / 6, "checked": 1.0}
    assert [s["target"] for s in logs["quick"]["samples"]][:2] == ["France", "Portugal"]
    assert deepnb.dataset(written[0]).format == "json (inspect)"

    viewed = deepnb_command("view", "capitals.jsonl", "--inspect", "viewed", cwd=folder)
    assert viewed.returncode == 0, viewed.stderr
    again = sorted((folder / "viewed").glob("*.json"))
    assert [p.name for p in again] == [p.name for p in written]
    assert [read_json(p) for p in again] == [read_json(p) for p in written]


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--fail-under", "exactly=0.5"], "--fail-under names no scorer of this experiment: 'exactly'"),
        (["--fail-under", "contains"], "--fail-under takes SCORER=VALUE"),
        (["--variants", "slow"], "--variants names no variant of the file: slow"),
        (["--report", "gone/r.html"], "--report gone/r.html: the folder gone does not exist"),
        (["--inspect", "capitals.csv"], "--inspect capitals.csv is a file: name the folder"),
        (["--inspect", "gone/logs"], "--inspect gone/logs: the folder gone does not exist"),
    ],
)
def test_a_usage_mistake_exits_2_in_one_line_before_any_run(suite: Path, args: list[str], says: str) -> None:
    out = deepnb_command("eval", suite.name, *args, cwd=suite.parent)
    assert out.returncode == 2
    assert says in out.stderr and "Traceback" not in out.stderr
    assert not (suite.parent / "capitals.jsonl").exists()


def test_a_python_file_that_raises_is_one_line_naming_the_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("import deepnb\n\n\ndef experiment():\n    return 1 / 0\n")
    out = deepnb_command("eval", "broken.py", cwd=tmp_path)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "broken.py failed: line 5: ZeroDivisionError" in out.stderr
    (tmp_path / "typo.toml").write_text('dataset = ["hi"]\nepoch = 2\n')
    out = deepnb_command("eval", "typo.toml", cwd=tmp_path)
    assert out.returncode == 2 and "'epoch', which deepnb.experiment does not take" in out.stderr


def test_a_python_file_defines_the_experiment_with_its_own_scorer(tmp_path: Path) -> None:
    (tmp_path / "suite.py").write_text(
        "import deepnb\n"
        "from deepnb import scorers\n\n\n"
        "def brief(output, reference, run):\n"
        "    return len((output or '').split()) <= 1\n\n\n"
        "def experiment():\n"
        "    deepnb.agent('quiz', model='demo:quiz-quick')\n"
        "    rows = [{'q': 'Which country is Paris the capital of?', 'reference': 'France'},\n"
        "            {'q': 'Which country is Ottawa the capital of?', 'reference': 'Canada'}]\n"
        "    return dict(dataset=rows, agent='quiz', template='{q}', scorers=[scorers.contains, brief],\n"
        "                log='py.jsonl', name='from-python')\n"
    )
    out = deepnb_command("eval", "suite.py", "--fail-under", "brief=1", cwd=tmp_path)
    # "The United States." is three words: brief misses on Ottawa
    assert out.returncode == 1 and "FAILED quiz: brief 0.500 < 1" in out.stderr
    assert len(logged_runs(tmp_path / "py.jsonl")) == 2


GATED = """
import pathlib
import time

import deepnb

HERE = pathlib.Path(__file__).parent


def held(output, reference, run):
    # rows after the first two are scored once the test says go (a file), so the command is
    # still busy when it is interrupted
    while run.row >= 2 and not (HERE / "go").exists():
        time.sleep(0.02)
    return output == reference


def experiment():
    deepnb.agent("echo", model="demo:quiz-quick")
    rows = [{"q": f"Which country is Paris the capital of? ({i})", "reference": "France."} for i in range(8)]
    return dict(dataset=rows, agent="echo", template="{q}", scorers=[held], concurrency=1,
                log="gated.jsonl", name="gated")
"""


@pytest.mark.parametrize("how", ["interrupt", "kill"])
def test_an_interrupted_or_killed_run_resumes_with_the_same_log(tmp_path: Path, how: str) -> None:
    (tmp_path / "gated.py").write_text(GATED)
    command = subprocess.Popen(
        [sys.executable, "-m", "deepnb.cli", "eval", "gated.py"],
        cwd=tmp_path,
        env=environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert command.stderr is not None
        for line in command.stderr:  # wait for the event: two runs ended and logged
            if "gated: 2/8 runs ended" in line:
                break
        else:
            pytest.fail("the command ended before it logged two runs")
        if how == "interrupt":
            command.send_signal(signal.SIGINT)
            (tmp_path / "go").touch()  # the held scorer lets go, so the stopped runs are recorded
            _, rest = command.communicate(timeout=TIMEOUT)
            assert command.returncode == 130
            assert "Run the same command with --log" in rest and "gated.jsonl" in rest
        else:
            command.kill()
            command.wait(TIMEOUT)
            (tmp_path / "go").touch()
    finally:
        if command.poll() is None:
            command.kill()
    before = {(r["row"], r["epoch"]) for r in logged_runs(tmp_path / "gated.jsonl") if r["status"] == "done"}
    assert {(0, 0), (1, 0)} <= before
    resumed = deepnb_command("eval", "gated.py", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    done = [r for r in logged_runs(tmp_path / "gated.jsonl") if r["status"] == "done"]
    # every row done once, and no row done before was run again
    assert sorted((r["row"], r["epoch"]) for r in done) == [(i, 0) for i in range(8)]
