"""An exported notebook holds no secret: not in a prompt, a reply, a tool call, the run's view or
a file — as it is or escaped (the sentinel key is in the environment, as in test_secrets_fuzz)."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest

import deepnb
from deepnb.ship.exporting import export_thread
from tests.support.agents import scripted, unique

SECRET = "Zq7Wm2Lp9Xk4Rt8Vn3Kd6Export"
"""Shaped like no known key: only the environment lookup can find it."""
FILE = f"key {SECRET}"


@pytest.mark.parametrize("kernel_has_the_run", [True, False])
def test_no_secret_reaches_the_exported_notebook(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, kernel_has_the_run: bool
) -> None:
    monkeypatch.setenv("DEEPNB_TEST_API_KEY", SECRET)
    model = scripted(
        {
            "main": [
                {"tool_calls": [{"name": "write_file", "args": {"file_path": "/k.md", "content": FILE}}]},
                f"The key is {SECRET} <b>{SECRET}</b>",
            ]
        }
    )
    bench = deepnb.agent(unique("secret-export"), model)
    run = bench.start(f"use {SECRET}").wait(30)
    assert run.status == "done"
    if not kernel_has_the_run:
        bench._latest.clear()  # as after a restart: the thread is read from the checkpointer
    path = tmp_path / "s.ipynb"
    exported = export_thread(bench, path)
    assert exported.snapshots == int(kernel_has_the_run)
    text = path.read_text(encoding="utf-8")
    for form in {SECRET, json.dumps(SECRET)[1:-1], html.escape(SECRET)}:
        assert form not in text, form
    assert "[redacted]" in text
