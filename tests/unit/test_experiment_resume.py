"""A log that says what was compared (each variant's model, system prompt and options with their
values, the versions, the template, the scorers, a hash of the rows), a resume that refuses what
changed and scores kept runs with a scorer added since, and a reader that skips only a cut last
line: any other bad line is one error naming the file, the line and what is wrong."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
from pathlib import Path
from typing import Any

import pytest

import deepnb
from deepnb import scorers
from deepnb.core.errors import DeepnbError
from deepnb.many.record import Score
from tests.support.agents import scripted, unique
from tests.support.timed_model import Meter, timed
from tests.support.waiting import WAIT

SECRET = "zq81-Xr55-context-secret"
ROWS = [{"q": "q0", "reference": "a0"}, {"q": "q1", "reference": "a1"}]


def script() -> dict[str, Any]:
    return {"main": [{"match": f"^q{i}$", "turns": [{"text": f"a{i}"}]} for i in range(4)]}


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def write(path: Path, found: list[dict[str, Any]], tail: str = "") -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in found) + tail, "utf-8")


class Clock:
    """A value JSON cannot hold."""


def test_the_header_says_what_each_variant_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACME_TOKEN", SECRET)
    name = unique("header")
    deepnb.agent(name=name, model=scripted(script()))
    log = tmp_path / "l.jsonl"
    replay = tmp_path / "replay.json"
    replay.write_text(json.dumps({"agents": script()}), "utf-8")
    deepnb.experiment(
        ROWS,
        agent=name,
        template="{q}",
        scorers=[scorers.exact],
        variants={
            "short": {"system_prompt": "Answer in one word."},
            "long": {
                "system_prompt": "Answer at length.",
                "context": {"api_key": "k-1", "clock": Clock(), "n": 3},
            },
            "model": f"scripted:{replay}",
        },
        log=log,
    ).wait(WAIT)
    header = lines(log)[0]
    short, long, model = (header["definitions"][label] for label in ("short", "long", "model"))
    assert short["system_prompt"] == "Answer in one word." and long["system_prompt"] == "Answer at length."
    assert short["kind"] == "options" and short["agent"] == name and short["model"] == "ScriptedChatModel"
    assert long["options"]["context"] == {
        "api_key": "[redacted]",
        "clock": f"<{__name__}.Clock object>",
        "n": 3,
    }
    assert model["kind"] == "model" and model["model"] == f"scripted:{replay}" and model["served_by"] is None
    assert header["variants"] == {
        "short": "options system_prompt",
        "long": "options context, system_prompt",
        "model": f"model scripted:{replay}",
    }
    assert header["versions"]["deepnb"] == importlib.metadata.version("deepnb")
    assert header["versions"]["deepagents"] == importlib.metadata.version("deepagents")
    assert header["scorers"] == ["exact"] and header["template"] == "{q}" and header["epochs"] == 1
    rows = [line for line in lines(log) if line["type"] == "row"]
    text = json.dumps(
        [[row["inputs"], row["reference"]] for row in rows],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    assert header["dataset"]["rows"] == 2
    assert header["dataset"]["sha256"] == hashlib.sha256(text.encode()).hexdigest()
    assert header["dataset"]["input"] == "q"  # how the rows were read, beside their hash
    assert SECRET not in log.read_text("utf-8") and "k-1" not in log.read_text("utf-8")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"template": "{q}?"}, r"the template is '\{q\}' there, '\{q\}\?' here"),
        ({"epochs": 2}, "epochs are 1 there, 2 here"),
        ({"variants": {"v": {"system_prompt": "Be terse!"}}}, "variant 'v' differs in its system prompt"),
        ({"variants": {"v": {"system_prompt": "Be terse.", "debug": True}}}, r"its options \(debug\)"),
        (
            {"variants": {"w": {"system_prompt": "Be terse."}}},
            r"the variants differ \('w' added, 'v' missing\)",
        ),
        (
            {"rows": [{"q": "q0", "reference": "a0"}, {"q": "q1", "reference": "b1"}]},
            "row 1's reference differs",
        ),
        ({"rows": [{"q": "q1", "reference": "a0"}]}, "row 0's fields differ"),
    ],
)
def test_resuming_with_other_settings_is_refused_saying_what_changed(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    name = unique("refused")
    deepnb.agent(name=name, model=scripted(script()))
    log = tmp_path / "l.jsonl"
    settings: dict[str, Any] = {
        "agent": name,
        "template": "{q}",
        "epochs": 1,
        "variants": {"v": {"system_prompt": "Be terse."}},
        "scorers": [scorers.exact],
        "log": log,
    }
    deepnb.experiment(ROWS, **settings).wait(WAIT)
    before = log.read_bytes()
    rows = change.pop("rows", ROWS)
    with pytest.raises(DeepnbError, match=message) as raised:
        deepnb.experiment(rows, **{**settings, **change})
    assert "\n" not in str(raised.value) and "another log= path" in str(raised.value)
    assert log.read_bytes() == before  # nothing written, nothing run
    deepnb.experiment(ROWS, **settings).wait(WAIT)  # the same settings resume
    assert log.read_bytes() == before


def test_a_scorer_added_on_resume_scores_the_kept_runs_and_only_new_rows_are_appended(tmp_path: Path) -> None:
    meter = Meter()
    name = unique("added")
    deepnb.agent(name=name, model=timed(script(), turn_seconds=0.0, meter=meter))
    log = tmp_path / "l.jsonl"
    options: dict[str, Any] = {"agent": name, "template": "{q}", "log": log}
    deepnb.experiment(ROWS, scorers=[scorers.exact], **options).wait(WAIT)
    # As an interruption can leave it: row 1 logged, its run not.
    write(log, [line for line in lines(log) if not (line["type"] == "run" and line["row"] == 1)])
    assert meter.turns == 2

    resumed = deepnb.experiment(ROWS, scorers=[scorers.exact, scorers.contains], **options).wait(WAIT)
    assert meter.turns == 3  # only row 1 ran again
    for record in resumed.records.values():
        assert record.scores == {"exact": Score(1.0), "contains": Score(1.0)}
    assert deepnb.load_experiment(log).records == resumed.records
    assert [line["row"] for line in lines(log) if line["type"] == "row"] == [0, 1]

    more = [*ROWS, {"q": "q2", "reference": "a2"}]
    again = deepnb.experiment(more, scorers=[scorers.exact, scorers.contains], **options).wait(WAIT)
    assert meter.turns == 4 and len(again.records) == 3
    assert [line["row"] for line in lines(log) if line["type"] == "row"] == [0, 1, 2]
    assert sum(1 for line in lines(log) if line["type"] == "scores") == 1  # row 0's contains, once


def logged_experiment(tmp_path: Path) -> Path:
    name = unique("read")
    deepnb.agent(name=name, model=scripted(script()))
    log = tmp_path / "l.jsonl"
    deepnb.experiment(ROWS, agent=name, template="{q}", scorers=[scorers.exact], log=log).wait(WAIT)
    return log


def test_only_a_cut_last_line_is_skipped_and_resuming_drops_it(tmp_path: Path) -> None:
    log = logged_experiment(tmp_path)
    whole = log.read_text("utf-8")
    log.write_text(whole + '{"type": "run", "row": 0, "var', "utf-8")
    assert len(deepnb.load_experiment(log).records) == 2
    reopened = deepnb.load_experiment(log)
    reopened.grade(0, reopened.variants[0], 0, 1.0)  # writing to it drops the cut line first
    assert len(lines(log)) == len(whole.splitlines()) + 1 and lines(log)[-1]["type"] == "grade"


@pytest.mark.parametrize(
    ("tail", "kept"),
    [
        ('{"type": "note", "text": "' + "x" * 200_000, False),  # cut, longer than a block read
        ('{"type": "note", "text": "whole"}', True),  # whole, only its newline missing
    ],
)
def test_writing_after_a_last_line_without_its_newline_keeps_it_only_if_whole(
    tmp_path: Path, tail: str, kept: bool
) -> None:
    log = logged_experiment(tmp_path)
    whole = log.read_text("utf-8")
    log.write_text(whole + tail, "utf-8")
    reopened = deepnb.load_experiment(log)
    reopened.grade(1, reopened.variants[0], 0, 0.0)
    assert [line["type"] for line in lines(log)[-2:]] == (["note", "grade"] if kept else ["run", "grade"])
    assert log.read_text("utf-8").startswith(whole)


@pytest.mark.parametrize(
    ("mangle", "problem"),
    [
        (lambda found, text: [*text[:1], "{not json at all", *text[1:]], r"line 2: it is not JSON"),
        (lambda found, text: [*text[:2], "[1, 2]", *text[2:]], "line 3: it is a JSON list, not an object"),
        (lambda found, text: [*text[:2], "[" * 100_000, *text[2:]], "line 3: it is nested too deeply"),
        (
            lambda found, text: [*text[:2], '{"type": "run", "score": NaN}', *text[2:]],
            "line 3: it is not JSON",
        ),
        (lambda found, text: [*text[:3], json.dumps({**found[3], "row": None})], "line 4: its 'row' is None"),
        (
            lambda found, text: [*text[:3], json.dumps({k: v for k, v in found[3].items() if k != "row"})],
            "line 4: it has no 'row'",
        ),
        (
            lambda found, text: [*text[:3], json.dumps({**found[3], "variant": 3})],
            "line 4: its 'variant' is a int",
        ),
        (
            lambda found, text: [*text[:3], json.dumps({**found[3], "scores": {"exact": {"score": "hi"}}})],
            "'score' is a str",
        ),
        (
            lambda found, text: [*text[:3], json.dumps({**found[3], "messages": "hi"})],
            "'messages' is not a list",
        ),
        (
            lambda found, text: [
                *text,
                json.dumps(
                    {"type": "grade", "row": 7, "variant": "x", "epoch": 0, "scorer": "h", "score": 1}
                ),
            ],
            "no earlier line logs",
        ),
        (
            lambda found, text: [json.dumps({**found[0], "format": 99}), *text[1:]],
            "format 99 experiment log, newer",
        ),
    ],
)
def test_a_bad_line_is_one_error_naming_the_file_the_line_and_the_problem(
    tmp_path: Path, mangle: Any, problem: str
) -> None:
    log = logged_experiment(tmp_path)
    text = log.read_text("utf-8").splitlines()
    log.write_text("\n".join(mangle(lines(log), text)) + "\n\n", "utf-8")  # a bad line last too: not cut
    with pytest.raises(DeepnbError, match=problem) as raised:
        deepnb.load_experiment(log)
    assert str(log) in str(raised.value) and "\n" not in str(raised.value)
    listed = deepnb.experiments(tmp_path)
    assert len(listed) == 1 and listed[0]["error"] == str(raised.value)


def test_a_format_1_log_reads_as_it_was_meant(tmp_path: Path) -> None:
    log = logged_experiment(tmp_path)
    found = lines(log)
    run = next(line for line in found if line["type"] == "run")
    rescored = {"type": "scores", "row": run["row"], "variant": run["variant"], "epoch": run["epoch"]}
    rescored["scores"] = {"contains": {"score": 0.0, "comment": None, "error": None}}
    write(log, [{**found[0], "format": 1}, *found[1:], rescored])
    record = deepnb.load_experiment(log).records[(run["row"], run["variant"], run["epoch"])]
    assert record.scores == {"contains": Score(0.0)}  # format 1: a rescoring replaced the scores
    deepnb.load_experiment(log).rescore([scorers.exact])  # what it adds, it adds as format 1 reads it
    record = deepnb.load_experiment(log).records[(run["row"], run["variant"], run["epoch"])]
    assert record.scores == {"contains": Score(0.0), "exact": Score(1.0)}
    assert lines(log)[0]["format"] == 1
    write(log, [*found, rescored])  # format 2: it adds to them
    record = deepnb.load_experiment(log).records[(run["row"], run["variant"], run["epoch"])]
    assert record.scores == {"exact": Score(1.0), "contains": Score(0.0)}
