"""Every text an export writes is cleaned in every form the writer gives it: a secret set only
after the run was recorded, and bidi control characters, are in neither the notebook (Markdown
cells, fenced files, the run's view, replay cells, metadata: its JSON) nor the recording beside it
(its YAML, the ``re.escape`` of each ``match``) — and the exported replay still replays."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
import yaml

import deepnb
from deepnb.core.text.bidi import BIDI_CONTROLS
from deepnb.ship.exporting import export_thread
from tests.support.agents import scripted, unique

SECRET = "Zq7W.m2-Lp9+Xk4_Rt8 (v2)&x"
"""Shaped like no known key, with what Markdown, regular expressions, JSON and HTML escape."""
RLO = "\u202e"
MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()#+\-.!|~])")
"""What Markdown text escapes with a backslash."""
PROMPT = f"use {SECRET} {RLO}now"
FILE = f"/notes/re{RLO}port.md"
ANSWER = f"The key is {SECRET}, see {RLO}gnp.exe"


def forms(secret: str) -> set[str]:
    """``secret`` in each form the export's writers could give it."""
    pattern = re.escape(secret)
    found = {secret, pattern, pattern.replace("\\ ", " "), MARKDOWN_PUNCTUATION.sub(r"\\\1", secret)}
    found |= {json.dumps(form, ensure_ascii=ascii)[1:-1] for form in list(found) for ascii in (True, False)}
    return found | {html.escape(form, quote=quote) for form in found for quote in (True, False)}


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings(key)
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def assert_clean(where: str, text: str, data: Any) -> None:
    for shown in [text, *strings(data)]:
        for form in forms(SECRET):
            assert form not in shown, f"{where} holds the secret as {form!r}: {shown[:200]!r}"
        for char in BIDI_CONTROLS:
            assert char not in shown, f"{where} holds the bidi control U+{ord(char):04X}: {shown[:200]!r}"


@pytest.mark.parametrize("kernel_has_the_run", [True, False])
def test_an_export_cleans_every_text_in_every_form(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, kernel_has_the_run: bool
) -> None:
    monkeypatch.delenv("DEEPNB_TEST_API_KEY", raising=False)
    write = {"name": "write_file", "args": {"file_path": FILE, "content": f"key {SECRET}\n{RLO}evil"}}
    bench = deepnb.agent(unique("export-forms"), scripted({"main": [{"tool_calls": [write]}, ANSWER]}))
    run = bench.start(PROMPT).wait(30)
    assert run.status == "done", run.error
    (tmp_path / "kept").mkdir()
    run.record(tmp_path / "kept" / "run.yaml")  # before the secret is known: it is in the file
    assert re.escape(SECRET).replace("\\ ", " ") in (tmp_path / "kept" / "run.yaml").read_text(
        encoding="utf-8"
    )
    monkeypatch.setenv("DEEPNB_TEST_API_KEY", SECRET)
    if not kernel_has_the_run:
        bench._latest.clear()  # as after a restart: the thread is read from the checkpointer
    exported = export_thread(bench, tmp_path / "t.ipynb")

    text = exported.path.read_text(encoding="utf-8")
    notebook = json.loads(text)
    assert_clean("the notebook", text, notebook)
    kinds = {cell["cell_type"] for cell in notebook["cells"]}
    assert kinds == {"markdown", "code"}  # replay cells, or cells that ask the prompts again
    assert "\\u202e" in text and "[redacted]" in text  # shown, not dropped
    if not kernel_has_the_run:
        assert exported.replay is None
        (ask,) = [c for c in notebook["cells"] if "".join(c["source"]).startswith("%%deepagent")]
        assert "".join(ask["source"]).split("\n", 1)[1] == "use [redacted] \\u202enow"
        return
    assert exported.replay is not None
    script = exported.replay.read_text(encoding="utf-8")
    assert_clean("the recording", script, yaml.safe_load(script))

    # the cleaned replay still replays: its match fits the prompt as the replay cell shows it
    cell = next(
        c for c in nbformat.read(exported.path, as_version=4).cells if c.source.startswith("%%deepagent")
    )
    prompt = cell.source.split("\n", 1)[1]
    assert prompt == "use [redacted] \\u202enow"
    replayed = deepnb.agent(unique("export-forms-replayed"), f"scripted:{exported.replay}")
    again = replayed.start(prompt).wait(30)
    assert again.status == "done", again.error
    assert again.result == "The key is [redacted], see \\u202egnp.exe"


def test_a_recording_made_after_the_secret_is_set_holds_it_in_no_form(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A run from before the secret was known, recorded once it is: the secret is in no form in
    the script (its ``match`` regex included), and the script replays the prompt redacted."""
    monkeypatch.delenv("DEEPNB_TEST_API_KEY", raising=False)
    task = {"name": "task", "args": {"description": f"check {SECRET}", "subagent_type": "general-purpose"}}
    model = scripted({"main": [{"tool_calls": [task]}, "Checked."], "general-purpose": [f"ok {SECRET}"]})
    bench = deepnb.agent(unique("record-after"), model)
    run = bench.start(f"use {SECRET}").wait(30)
    assert run.status == "done", run.error
    monkeypatch.setenv("DEEPNB_TEST_API_KEY", SECRET)
    recorded = run.record(tmp_path / "run.yaml")
    script = recorded.path.read_text(encoding="utf-8")
    for shown in [script, *strings(yaml.safe_load(script))]:
        for form in forms(SECRET):
            assert form not in shown, f"the recording holds the secret as {form!r}"
    assert recorded.replays == ("use [redacted]",)
    replayed = deepnb.agent(unique("record-after-replayed"), f"scripted:{recorded.path}")
    again = replayed.start("use [redacted]").wait(30)
    assert again.status == "done", again.error
    assert again.result == "Checked."
    assert [n.result for n in again.tree.children] == ["ok [redacted]"]
