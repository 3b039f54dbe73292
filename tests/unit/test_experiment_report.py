"""``exp.report(path)``: one HTML file whose summary and comparison are the experiment's figures
(checked against a computation by hand), whose samples carry every run's answer, scores with
their comments, a person's grade marked human, tokens, time and cache hits; hostile text in
every field stays text (no ``</script>`` ends the data, no tag, no bidi control, no secret
reaches the file); a 1 MB answer is clipped, saying so; the page loads nothing and runs only its
own script; a reopened experiment reports the same."""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import statistics
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from scipy import stats as scipy_stats

import deepnb
from deepnb import scorers
from deepnb.core.errors import DeepnbError
from deepnb.many import report_data
from deepnb.models.scripted import parse_script
from tests.support.agents import HeldModel, scripted, unique
from tests.support.waiting import WAIT, Gate, wait_until

ROWS = [{"q": "q0", "reference": "a0"}, {"q": "q1", "reference": "a1"}, {"q": "q2", "reference": "a2"}]
QUALITY = {"a0": 0.9, "wrong": 0.2, "a2": 0.6, "right": 0.7}
"""What the ``quality`` scorer gives each answer: a number, so that intervals are not clipped."""


def model(answers: dict[str, str]) -> Any:
    return scripted({"main": [{"match": f"^{q}", "turns": [{"text": a}]} for q, a in answers.items()]})


def quality(output: str) -> dict[str, Any]:
    return {"score": QUALITY[output], "comment": f"judged {output}"}


def run(tmp_path: Path, rows: list[dict[str, Any]] = ROWS, **options: Any) -> Any:
    name = unique("report")
    deepnb.agent(name=name, model=model({"q": "x"}))
    return deepnb.experiment(rows, agent=name, template="{q}", log=tmp_path / "l.jsonl", **options).wait(WAIT)


class Tables(HTMLParser):
    """Every table's cells' texts, by its aria-label; and the page's script elements."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._table: str | None = None
        self._cell: list[str] | None = None
        self._script: dict[str, str | None] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._table = dict(attrs).get("aria-label") or ""
            self.tables[self._table] = []
        elif tag == "tr" and self._table is not None:
            self.tables[self._table].append([])
        elif tag in ("td", "th") and self._table is not None:
            self._cell = []
        elif tag == "script":
            self._script = dict(attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._table = None
        elif tag in ("td", "th") and self._cell is not None and self._table is not None:
            self.tables[self._table][-1].append("".join(self._cell))
            self._cell = None
        elif tag == "script":
            self._script = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        if self._script is not None:
            self.scripts.append((self._script, data))


def read(path: Path) -> tuple[str, Tables, dict[str, Any]]:
    html = path.read_text(encoding="utf-8")
    page = Tables()
    page.feed(html)
    (data,) = [text for attrs, text in page.scripts if attrs.get("type") == "application/json"]
    return html, page, json.loads(data)


def by_hand(scores: list[float]) -> tuple[float, float, float]:
    """The mean over the rows and its 95 % t interval from the rows' standard error."""
    mean = statistics.fmean(scores)
    sem = statistics.stdev(scores) / math.sqrt(len(scores))
    half = scipy_stats.t.ppf(0.975, len(scores) - 1) * sem
    return mean, mean - half, mean + half


def test_the_reports_figures_are_the_experiments_computed_by_hand(tmp_path: Path) -> None:
    answers = {"q0": "a0", "q1": "wrong", "q2": "a2", "q3": "a0", "q4": "a2", "q5": "a2"}
    experiment = run(
        tmp_path,
        rows=[{"q": f"q{n}", "reference": f"a{n}"} for n in range(6)],
        variants={"a": model(answers), "b": model({**answers, "q1": "right"})},
        scorers=[quality],
        epochs=2,
        baseline="a",
    )
    experiment.grade(1, "b", 1, 0.1, comment="not right after all", scorer="quality")
    path = experiment.report(tmp_path / "report.html")
    assert path == tmp_path / "report.html"
    _, page, data = read(path)

    # by hand: a's rows (both epochs alike); b's row 1 is 0.7 then graded 0.1: 0.4
    rows = {"a": [0.9, 0.2, 0.6, 0.9, 0.6, 0.6], "b": [0.9, 0.4, 0.6, 0.9, 0.6, 0.6]}
    passing = {"a": 10 / 12, "b": 11 / 12}  # runs scored 0.5 or above
    summary = page.tables["Summary"]
    header, *lines = summary
    assert header[:4] == ["variant", "runs", "done", "errors"]
    assert [line[0] for line in lines] == ["a", "b"]
    for line in lines:
        mean, low, high = by_hand(rows[line[0]])
        assert 0 < low < high < 1  # not clipped: the interval itself is checked
        said = dict(zip(header, line, strict=True))
        assert said["quality mean [95% CI]"] == f"{mean:.2f} [{low:.2f}, {high:.2f}]"
        assert said["quality n"] == "n = 6 rows × 2 epochs"
        assert said["runs"] == "12" and said["done"] == "12" and said["errors"] == "0"
        assert said["quality pass"] == f"{passing[line[0]]:.2f}"
    # and the same as summary() says
    (a, b) = experiment.summary().variants
    assert summary[1][4] == f"{a.scores[0].mean:.2f} [{a.scores[0].low:.2f}, {a.scores[0].high:.2f}]"
    assert summary[2][4] == f"{b.scores[0].mean:.2f} [{b.scores[0].low:.2f}, {b.scores[0].high:.2f}]"

    # the comparison: b against the baseline a, paired by row; b wins row 1 (0.4 > 0.2), ties five
    header, line = page.tables["b against a"]
    said = dict(zip(header, line, strict=True))
    assert (said["pairs (rows)"], said["b wins"], said["losses"], said["ties"]) == ("6", "1", "0", "5")
    assert said["mean difference"] == f"{(0.4 - 0.2) / 6:.2f}"
    compared = experiment.compare("b", "a").scorers[0]
    assert said["p (Wilcoxon)"] == f"{compared.p_value:.3f}"

    # every planned run is a sample, with its scores, comments, the grade marked human, measures
    assert len(data["runs"]) == 6 * 2 * 2 and data["variants"] == ["a", "b"] and data["epochs"] == 2
    graded = next(r for r in data["runs"] if (r["r"], r["v"], r["e"]) == (1, 1, 1))
    assert graded["sc"] == [[0, 0.1, "not right after all", None, 1]]
    kept = next(r for r in data["runs"] if (r["r"], r["v"], r["e"]) == (1, 0, 0))
    assert kept["sc"] == [[0, 0.2, "judged wrong", None, 0]] and kept["s"] == "done"
    assert "<p>wrong</p>" in kept["a"] and kept["tk"] not in ("", "unknown")
    assert kept["t"] >= 0 and kept["ch"] == 0
    assert [row["t"] for row in data["rows"]] == [f"q{n}" for n in range(6)]
    assert "<p>a1</p>" in data["rows"][1]["ref"]

    # reopened from its log, the report says the same
    reopened = deepnb.load_experiment(experiment.path).report(tmp_path / "again.html")
    _, again, again_data = read(reopened)
    assert again.tables["Summary"] == page.tables["Summary"]
    assert again.tables["b against a"] == page.tables["b against a"]
    assert again_data["runs"] == data["runs"]


HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)>"
KEY = "sk-" + "A1b2C3d4E5f6G7h8J9k0"
BIDI = "\u202eevil\u202c"


def test_hostile_text_in_every_field_stays_text_and_no_secret_reaches_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REPORT_TEST_API_KEY", "hunter2-hunter2")
    answer = f"**bold** </script><!-- {HOSTILE} {KEY} {BIDI} hunter2-hunter2 \u2028 & <b>x</b>"

    def hostile(output: str) -> dict[str, Any]:
        return {"score": 0.0, "comment": f"{HOSTILE} {KEY} </script> {BIDI}"}

    rows = [{"q": f"q0 {HOSTILE} {BIDI} {KEY}", "reference": f"{HOSTILE} </script> {KEY}"}]
    experiment = run(
        tmp_path,
        rows=rows,
        variants={f"v{HOSTILE}": model({"q0": answer})},
        scorers={f"s{HOSTILE}": hostile},
        name=f"name {HOSTILE} {KEY}",
    )
    experiment.grade(0, f"v{HOSTILE}", 0, 1, comment=f"grade {HOSTILE} {KEY} </script>", scorer="human")
    html, page, data = read(experiment.report(tmp_path / "report.html"))

    # the page has its two script elements only, and nothing else closes one
    assert html.count("<script") == 2 and html.count("</script>") == 2
    assert "<img" not in html and "<script>alert" not in html
    assert "<!--" not in html
    assert KEY not in html and "hunter2-hunter2" not in html
    assert "\u202e" not in html and "\u2028" not in html
    # the data reads back whole: the hostile text is there as text, escaped where it is HTML
    run_data = data["runs"][0]
    assert "&lt;/script&gt;&lt;!--" in run_data["a"] and "<strong>bold</strong>" in run_data["a"]
    assert "\\u202eevil" in run_data["a"] and "[redacted]" in run_data["a"]
    assert data["variants"] == [f"v{HOSTILE}"] and data["scorers"] == [f"s{HOSTILE}", "human"]
    assert data["name"] == f"name {HOSTILE} [redacted]"
    comments = [score[2] for score in run_data["sc"]]
    assert comments == [
        f"{HOSTILE} [redacted] </script> \\u202eevil\\u202c",
        f"grade {HOSTILE} [redacted] </script>",
    ]
    assert "&lt;script&gt;" in data["rows"][0]["in"] and "&lt;script&gt;" in data["rows"][0]["ref"]
    # the static tables hold the names as text
    assert page.tables["Summary"][1][0] == f"v{HOSTILE}"


def test_a_one_megabyte_answer_is_clipped_saying_so(tmp_path: Path) -> None:
    answer = ("word " * 40 + "\n\n") * 5_000  # about 1 MB of Markdown
    assert len(answer) > 1_000_000
    experiment = run(tmp_path, rows=ROWS[:1], variants={"big": model({"q": "short"})})
    lines = [json.loads(line) for line in experiment.path.read_text(encoding="utf-8").splitlines()]
    for line in lines:  # the log as a run with a 1 MB answer would have left it
        if line["type"] == "run":
            line["result"] = answer
    experiment.path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    html, _, data = read(deepnb.load_experiment(experiment.path).report(tmp_path / "report.html"))
    assert len(html.encode()) < 300_000
    assert f"{len(answer) - report_data.MAX_TEXT:,} more characters" in data["runs"][0]["a"]
    assert data["runs"][0]["a"].startswith("<p>word word")


def test_the_page_loads_nothing_and_runs_only_its_own_script(tmp_path: Path) -> None:
    experiment = run(tmp_path, variants={"a": model({"q": "a0"})})
    html, page, _ = read(experiment.report(tmp_path / "report.html"))
    (policy,) = re.findall(r'http-equiv="Content-Security-Policy" content="([^"]*)"', html)
    (code,) = [text for attrs, text in page.scripts if not attrs]
    digest = base64.b64encode(hashlib.sha256(code.encode()).digest()).decode()
    assert policy.startswith("default-src 'none'; ") and f"script-src 'sha256-{digest}';" in policy
    assert "unsafe-inline'" not in policy.split("style-src")[0]  # no inline script but its own
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html) and "@import" not in html
    assert "url(" not in html.split("<script")[0]


def test_a_report_to_a_missing_folder_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    experiment = run(tmp_path, variants={"a": model({"q": "a0"})})
    with pytest.raises(DeepnbError, match="its folder does not exist"):
        experiment.report(tmp_path / "nowhere" / "report.html")
    with pytest.raises(DeepnbError, match="it is a folder"):
        experiment.report(tmp_path)
    assert not [p for p in tmp_path.rglob("*") if "report" in p.name]


def test_script_json_escapes_what_could_end_or_bend_its_element() -> None:
    hostile = {"a": "</script><!-- <script> & \u2028\u2029 >", "n": float("nan")}
    text = report_data.script_json(hostile)
    assert not set("<>&\u2028\u2029") & set(text)
    assert json.loads(text) == {"a": hostile["a"], "n": None}


def test_a_report_of_a_running_experiment_and_of_a_stopped_one_says_what_ended(tmp_path: Path) -> None:
    gate = Gate()
    script = parse_script({"agents": {"main": [{"turns": [{"text": "a0"}]}]}})
    name = unique("report")
    deepnb.agent(name=name, model=HeldModel(script=script, gate=gate, holds="hold"))
    rows = [{"q": "q0", "reference": "a0"}, {"q": "hold q1", "reference": "a0"}]
    experiment = deepnb.experiment(
        rows, agent=name, template="{q}", scorers=[scorers.exact], log=tmp_path / "l.jsonl"
    )
    try:
        gate.wait_reached()
        wait_until(lambda: experiment.record_for((0, name, 0)) is not None, "row 0 logged")

        html, page, data = read(experiment.report(tmp_path / "running.html"))
        assert "2 rows × 1 variant × 1 epoch: 1 of 2 runs done." in html
        assert [(r["r"], r["s"]) for r in data["runs"]] == [(0, "done"), (1, "running")]
        assert "a" in data["runs"][0] and "a" not in data["runs"][1]  # no answer yet, none made up
        header, line = page.tables["Summary"]
        said = dict(zip(header, line, strict=True))
        assert (said["runs"], said["done"]) == ("1", "1")  # the runs that ended, as summary() counts
        assert said["exact n"] == "n = 1 row × 1 epoch"  # what the figure rests on: the ended run

        experiment.stop()  # as Ctrl-C does
        wait_until(lambda: experiment.done, "the experiment stopped")
        html, _, data = read(experiment.report(tmp_path / "stopped.html"))
        assert "1 of 2 runs done." in html
        assert data["runs"][0]["s"] == "done" and data["runs"][1]["s"] in ("cancelled", "interrupted")
    finally:
        gate.open()
