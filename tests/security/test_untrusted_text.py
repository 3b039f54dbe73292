"""One rule for untrusted text: every pattern deepnb applies to a model's output, a tool's result
or a file's content runs in linear time, and every reader of such text stays within the bound
its hostile input (``tests/data/hostile/``) carries, measured as work (characters regular
expressions read, Python calls made) and memory, never as time. And schemas are data: a
``json_schema`` scorer reaches nothing outside its schema and is refused, when it is made, for
a schema that could."""

from __future__ import annotations

import ast
import json
import re
import sys
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from deepnb import scorers
from deepnb.core import events as ev
from deepnb.core.addresses import shown_urls
from deepnb.core.errors import DeepnbError
from deepnb.core.text import secrets
from deepnb.core.text.safe_regex import scanned
from deepnb.core.text.streamed import StreamRedactor
from deepnb.engine.interpreter import parse_eval
from deepnb.engine.state import RunState
from deepnb.many.record import RunRecord
from deepnb.models.scripted import parse_script
from deepnb.ship.exporting import fenced, markdown_text

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "data" / "hostile"
PACKAGE = ROOT / "deepnb"

# -- every pattern on untrusted text is linear --------------------------------------------------

UNTRUSTED = {
    "deepnb/many/scorers.py": "scores model answers",
    "deepnb/many/schemas.py": "checks model answers against a schema",
    "deepnb/many/judging.py": "neutralises delimiter-like tags in the answer a judge grades",
    "deepnb/engine/interpreter.py": "parses the interpreter's results (the model's code wrote them)",
    "deepnb/engine/state.py": "folds a run's text and tool results",
    "deepnb/core/events.py": "reads the stream's messages",
    "deepnb/core/call_args.py": "reads a model's tool-call arguments",
    "deepnb/core/text/secrets.py": "redacts every text shown",
    "deepnb/core/text/streamed.py": "redacts streamed text",
    "deepnb/core/text/markup.py": "renders model text as HTML",
    "deepnb/core/text/word_diff.py": "compares two answers",
    "deepnb/core/addresses.py": "finds addresses in errors and server text",
    "deepnb/core/explain.py": "cuts failures (which quote tool results) to a sentence",
    "deepnb/core/file_paths.py": "checks paths a model's tools name",
    "deepnb/models/scripted.py": "matches a cloned project's replay patterns against prompts",
    "deepnb/ship/exporting.py": "writes a thread's messages as Markdown",
    "deepnb/engine/card_text.py": "words a model's arguments",
    "deepnb/engine/approvals.py": "previews a model's edits",
    "deepnb/engine/recording.py": "escapes prompts into a replay's patterns",
    "deepnb/engine/tracing/pipeline.py": "reads span names (tool and node names) a trace exports",
}
"""Modules whose patterns meet untrusted text: each uses ``safe_regex.compile_bounded`` (RE2), or
a Python pattern with no unbounded repeat (linear: each start reads a bounded stretch)."""
TRUSTED = {
    "deepnb/views/inline_styles.py": "deepnb's own stylesheets",
    "deepnb/core/text/code_style.py": "Pygments' stylesheet",
    "deepnb/core/schema_ts.py": "deepnb's own docstrings, at build time",
    "deepnb/core/graphs/inputs.py": "the repr of a Python type",
    "deepnb/core/graphs/stamps.py": "run ids an Agent Server gives, anchored and short",
    "deepnb/engine/anatomy.py": "middleware field names",
    "deepnb/engine/mcp.py": "deepnb.toml's server names and URLs (trust-gated project config)",
    "deepnb/extensions/api.py": "names trusted extension code registers",
    "deepnb/extensions/rules.py": "routes trusted extension code registers",
    "deepnb/engine/tracing/settings.py": "${VAR} in a trusted project's [trace] headers",
    "deepnb/extensions/bundles.py": "plugin folders the user loads (trusted as the code beside them)",
    "deepnb/extensions/bundle_loading.py": "a loaded plugin's SKILL.md head, 4,000 characters at most",
    "deepnb/extensions/discovery.py": "the plugin id the user names",
    "deepnb/magics/interpolate.py": "the user's own cell",
    "deepnb/magics/magic.py": "the user's own cell",
    "deepnb/many/log.py": "an experiment's name, given in code",
    "deepnb/many/provenance.py": "the reprs of a variant's options, given in code",
    "deepnb/many/stats.py": "an epoch reducer's name, given in code",
    "deepnb/ship/deploy.py": "agent names given in code",
}
"""Modules whose patterns read only what the user or deepnb wrote."""
LINEAR_BY_READING = {
    (
        "deepnb/ship/exporting.py",
        r"(<pre[\s>][\s\S]*?</pre>)",
    ): "deepnb's own HTML, model text escaped in it, "
    "so each '<pre' it finds is deepnb's and its lazy repeat ends at deepnb's '</pre>'",
    ("deepnb/ship/exporting.py", r"\n[ \t]*(?=\n)"): "deepnb's own HTML: a start is a line break, and the "
    "repeat reads the blanks that follow it only, each once more at most",
}
"""Python patterns with an unbounded repeat on text holding untrusted parts, linear as read."""
MATCHING = {"compile", "search", "match", "fullmatch", "findall", "finditer", "sub", "subn", "split"}


def _pattern_calls(path: Path) -> Iterator[ast.Call]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "re"
            and node.func.attr in MATCHING
        ):
            yield node


def _unbounded(pattern: str) -> bool:
    """Whether a Python pattern repeats anything without bound (``*``, ``+``, ``{n,}``)."""
    parsed = re._parser.parse(pattern)  # type: ignore[attr-defined]
    stack = [parsed]
    while stack:
        items = stack.pop()
        for op, argument in items:
            name = str(op)
            if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
                _low, high, inner = argument
                if high == re._constants.MAXREPEAT:  # type: ignore[attr-defined]
                    return True
                stack.append(inner)
            elif name == "SUBPATTERN":
                stack.append(argument[-1])
            elif name == "BRANCH":
                stack.extend(argument[1])
            elif name in ("ASSERT", "ASSERT_NOT"):
                stack.append(argument[1])
            elif name == "GROUPREF_EXISTS":
                stack.extend(part for part in argument[1:] if part is not None)
    return False


def test_every_pattern_on_untrusted_text_runs_in_linear_time() -> None:
    unknown, unsafe = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = str(path.relative_to(ROOT))
        calls = list(_pattern_calls(path))
        if not calls:
            continue
        if name not in UNTRUSTED and name not in TRUSTED:
            unknown.append(name)
            continue
        if name in TRUSTED:
            continue
        for call in calls:
            first = call.args[0] if call.args else None
            if not isinstance(first, ast.Constant) or not isinstance(first.value, str):
                unsafe.append(f"{name}:{call.lineno}: a pattern that is not written out")
            elif _unbounded(first.value) and (name, first.value) not in LINEAR_BY_READING:
                unsafe.append(f"{name}:{call.lineno}: {first.value!r}")
    assert not unknown, f"say whether these read untrusted text (UNTRUSTED or TRUSTED): {unknown}"
    assert not unsafe, f"use deepnb.core.text.safe_regex.compile_bounded (RE2) for: {unsafe}"
    listed = [name for name in (*UNTRUSTED, *TRUSTED) if not (ROOT / name).exists()]
    assert not listed, f"listed but gone: {listed}"


def test_the_check_knows_a_backtracking_pattern_from_a_linear_one() -> None:
    assert _unbounded(r"(a+)+$") and _unbounded(r"x{2,}") and _unbounded(r"(?=\s+)")
    assert (
        not _unbounded(r"(https?:)?//") and not _unbounded(r"[.!?:;](?=\s)|\n") and not _unbounded(r"a{2,5}")
    )


# -- every reader stays within its bound on the hostile outputs ---------------------------------

OUTPUTS = json.loads((HOSTILE / "outputs.json").read_text(encoding="utf-8"))["cases"]
SCHEMAS = json.loads((HOSTILE / "schemas.json").read_text(encoding="utf-8"))["cases"]
SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "string", "pattern": "^(a+)+$"}, "list": {"uniqueItems": True}},
    "patternProperties": {"^(x|x)+$": {"type": "integer"}},
    "additionalProperties": False,
}
ALLOWANCE = {"scanned": 1 << 16, "calls": 20_000, "bytes": 4 << 20}
"""Work and memory any reader may spend whatever its input (setting up, a first compile)."""
PIECE = 256
"""Characters of each streamed piece."""


def _record(text: str) -> RunRecord:
    return RunRecord(row=0, variant="v", epoch=1, inputs={}, reference=None, status="done", result=text)


def _streamed(text: str) -> None:
    redactor = StreamRedactor()
    for start in range(0, len(text), PIECE):
        redactor.feed(ev.TextDelta("main", text[start : start + PIECE]))
    redactor.release()


def _folded(text: str) -> None:
    state = RunState(agent="a", thread_id="t")
    for event in (
        ev.TextDelta("main", text),
        ev.ModelTurn("main", text),
        ev.ToolCallStarted("main", "c1", "eval", {"code": text}),
        ev.ToolCallFinished("main", "c1", "eval", text),
        ev.ToolCallStarted("main", "c2", "execute", {"command": "x"}),
        ev.ToolCallFinished("main", "c2", "execute", text),
    ):
        state.apply(event)


REPLAY = parse_script({"agents": {"main": [{"match": r"^(a+)+$", "turns": ["a"]}, {"turns": ["b"]}]}})

READERS: dict[str, Callable[[str], Any]] = {
    "scorers.regex": lambda text: scorers.regex(r"^(a+)+$|```json\s*\n(.*?)```")(text),
    "scorers.json_schema": lambda text: scorers.json_schema(SCHEMA)(text, None, _record(text)),
    "interpreter results": parse_eval,
    "replay match": lambda text: REPLAY.conversation_for("main", text),
    "secrets.redact": secrets.redact,
    "secrets.open_tail": secrets.open_tail,
    "streamed redaction": _streamed,
    "addresses": shown_urls,
    "export": lambda text: (markdown_text(text), fenced(text)),
    "run state": _folded,
}
"""Every reader of untrusted text, as a run, a scorer or an export calls it."""


def _measured(reader: Callable[[str], Any], text: str) -> dict[str, int]:
    """The work (characters RE2 read, Python calls) and peak memory of ``reader(text)``."""
    calls = [0]

    def count(frame: Any, event: str, arg: Any) -> None:
        if event in ("call", "c_call"):
            calls[0] += 1

    tracemalloc.start()
    try:
        with scanned() as read:
            sys.setprofile(count)
            try:
                reader(text)
            finally:
                sys.setprofile(None)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return {"scanned": read[0], "calls": calls[0], "bytes": peak}


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("case", OUTPUTS, ids=[c["name"] for c in OUTPUTS])
def test_every_reader_stays_within_the_bound_of_each_hostile_output(
    reader: str, case: dict[str, Any]
) -> None:
    text = "".join(part * times for part, times in case["parts"])
    spent = _measured(READERS[reader], text)
    limits = {k: per_char * len(text) + ALLOWANCE[k] for k, per_char in case["bound"].items()}
    over = {k: f"{spent[k]:,} > {limits[k]:,}" for k in limits if spent[k] > limits[k]}
    assert not over, f"{reader} on {case['name']} ({len(text):,} characters): {over}"


# -- schemas are data ---------------------------------------------------------------------------


def _schema(case: dict[str, Any]) -> Any:
    if "deep" in case:
        schema: Any = {"type": "integer"}
        for _ in range(case["deep"]):
            schema = {"items": schema}
        return schema
    if "wide" in case:
        return {"enum": list(range(case["wide"]))}
    return case["schema"]


@pytest.mark.parametrize("case", [c for c in SCHEMAS if "refused" in c], ids=lambda c: c["name"])
def test_a_schema_that_reaches_outside_or_loops_is_refused_when_the_scorer_is_made(
    case: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[Any] = []
    monkeypatch.setattr("urllib.request.urlopen", lambda *a, **k: opened.append(a))
    monkeypatch.setattr("builtins.open", lambda *a, **k: opened.append(a))
    with pytest.raises(DeepnbError, match=re.escape(case["refused"])) as refused:
        scorers.json_schema(_schema(case))
    monkeypatch.undo()
    assert not opened
    assert str(refused.value).count("\n") == 0 and len(str(refused.value)) < 400


@pytest.mark.parametrize("case", [c for c in SCHEMAS if "answer" in c], ids=lambda c: c["name"])
def test_a_schema_checks_an_answer_within_the_bound(case: dict[str, Any]) -> None:
    score = scorers.json_schema(case["schema"])
    found = score(case["answer"], None, _record(case["answer"]))
    assert found["score"] is False and case["comment"] in found["comment"]
    spent = _measured(lambda text: score(text, None, _record(text)), case["answer"])
    assert spent["scanned"] <= 64 * len(case["answer"]) + ALLOWANCE["scanned"]


def test_a_check_never_fetches_what_a_schema_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """Belt and braces: a reference the making let through (none should) is refused, not fetched."""
    from deepnb.many import schemas  # the module under test, imported as the scorer does

    fetched: list[str] = []
    monkeypatch.setattr("urllib.request.urlopen", lambda *a, **k: fetched.append(str(a)))
    monkeypatch.setattr(schemas, "_checked_refs", lambda schema: None)
    check = schemas.schema_checker({"$ref": "http://127.0.0.1:9/s.json"})
    with pytest.raises(ValueError, match="nothing was fetched"):
        check(1)
    assert not fetched


def test_an_answer_nested_too_deep_is_a_failed_check_with_a_reason() -> None:
    score = scorers.json_schema({"type": "array"})
    deep = "[" * 100_000 + "]" * 100_000
    assert score(deep, None, _record(deep)) == {
        "score": False,
        "comment": "the answer's JSON nests too deep to read",
    }
    nested = "[" * 900 + "]" * 900  # JSON reads it; the check nests past its bound
    found = scorers.json_schema({"items": {"$ref": "#"}})(nested, None, _record(nested))
    assert found["score"] is False and "nests too deep" in found["comment"]


def test_a_regex_scorer_refuses_what_re2_cannot_run_when_it_is_made() -> None:
    with pytest.raises(DeepnbError, match="RE2"):
        scorers.regex(r"(\w)\1")
    with pytest.raises(DeepnbError, match="RE2"):
        scorers.regex(r"foo(?!bar)")
    with pytest.raises(DeepnbError, match="VERBOSE"):
        scorers.regex("a", flags=re.VERBOSE)
    assert scorers.regex("HELLO", flags=re.IGNORECASE)("well, hello")
    assert scorers.regex(r"^b", flags=re.MULTILINE)("a\nb") and not scorers.regex(r"^b")("a\nb")
