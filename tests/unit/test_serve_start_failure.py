"""A ``langgraph dev`` that exits before it serves: the error says so with the end of its log
(which goes with its temporary folder), secrets redacted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from deepnb.core.errors import DeepnbError
from deepnb.ship import serve

SECRET = "q7Wm2Lp9Zx4Rt8Vn3Kd6Hs"


def test_a_server_that_exits_before_serving_shows_the_end_of_its_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACME_API_KEY", SECRET)
    log = tmp_path / "langgraph-dev.log"
    lines = [f"line {n}" for n in range(50)] + [f"key {SECRET} refused", "Address already in use"]
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    process = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    process.wait()
    server = serve.Server(url="http://127.0.0.1:9", graphs=("a",), folder=tmp_path, log=log, process=process)
    with pytest.raises(DeepnbError) as raised:
        serve._wait(server, timeout=60)
    message = str(raised.value)
    assert "exited (code 3) before serving" in message and message.endswith("Address already in use")
    assert SECRET not in message and "key [redacted] refused" in message
    told = message.splitlines()[1:]
    assert told == [redacted.replace(SECRET, "[redacted]") for redacted in lines[-serve.LOG_LINES :]]


def test_a_server_whose_log_is_gone_says_so(tmp_path: Path) -> None:
    process = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    process.wait()
    server = serve.Server(
        url="http://127.0.0.1:9", graphs=("a",), folder=tmp_path, log=tmp_path / "gone.log", process=process
    )
    with pytest.raises(DeepnbError, match=r"\(it cannot be read: No such file or directory\)"):
        serve._wait(server, timeout=60)
