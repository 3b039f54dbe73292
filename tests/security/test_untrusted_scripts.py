"""A replay script from a cloned project cannot wedge the kernel: its ``match`` regexes are matched
in linear time (a catastrophic pattern ends at once, Stop and interrupts stay meaningful), and its
YAML is read within bounds (an alias bomb, a deep nest or a huge file is refused in one line,
before anything is built from it). Scripts that use anchors sensibly still load."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import deepnb
from deepnb.core.text.documents import MAX_BYTES, MAX_NODES
from deepnb.models.scripted import ScriptError, load_script
from tests.support.agents import unique

HANG = 30.0
"""Seconds after which a call counts as wedged (each here takes milliseconds when bounded)."""

BOMB = """
a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]
agents:
  main:
    - tool_calls: [{name: write_todos, args: {todos: *h}}]
    - text: done
"""


def _within(seconds: float, call: Callable[[], Any]) -> Any:
    """``call()``'s result or exception, failing the test if it is still going after ``seconds``
    (the thread is left behind: a wedged regex cannot be interrupted)."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # handed to the test
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still going after {seconds} s: the kernel would be wedged"
    if "error" in box:
        raise box["error"]
    return box.get("value")


def test_a_catastrophic_match_ends_and_the_run_finishes(tmp_path: Path) -> None:
    script = tmp_path / "evil.yaml"
    script.write_text(
        "agents:\n  main:\n"
        '    - match: "^(a+)+$"\n      turns: ["matched"]\n'
        '    - turns: ["Fell through to the fallback."]\n'
    )
    bench = deepnb.agent(unique("evil-regex"), f"scripted:{script}")
    run = _within(HANG, lambda: bench.run("a" * 64 + "!", new_thread=True))
    assert run.status == "done" and run.result == "Fell through to the fallback."


@pytest.mark.parametrize(
    ("pattern", "why"),
    [(r"(a)\1", "backreferences"), (r"(?=a)a", "lookaround"), ("x" * 300_000, "characters long")],
    ids=["backreference", "lookahead", "huge"],
)
def test_a_match_re2_cannot_take_is_one_line(tmp_path: Path, pattern: str, why: str) -> None:
    script = tmp_path / "odd.yaml"
    script.write_text(f"agents:\n  main:\n    - match: '{pattern}'\n      turns: [hi]\n")
    with pytest.raises(ScriptError, match=r"'match' is not a valid regex") as raised:
        load_script(script)
    assert why in str(raised.value) and "\n" not in str(raised.value)


def test_an_alias_bomb_is_refused_before_it_is_built(tmp_path: Path) -> None:
    script = tmp_path / "bomb.yaml"
    script.write_text(BOMB)
    assert script.stat().st_size < 800  # 9**9 values in well under a kilobyte
    started = time.monotonic()
    with pytest.raises(
        ScriptError, match=f"bomb.yaml: not read: its aliases expand to more than {MAX_NODES:,} values"
    ):
        _within(HANG, lambda: load_script(script))
    assert time.monotonic() - started < HANG


def test_a_self_referring_alias_is_refused(tmp_path: Path) -> None:
    script = tmp_path / "loop.yaml"
    script.write_text("agents:\n  main: &m\n    - tool_calls: [{name: ls, args: {again: *m}}]\n")
    with pytest.raises(ScriptError, match=r"loop\.yaml: not read: an alias refers to a value that holds it"):
        _within(HANG, lambda: load_script(script))


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_a_deep_nest_is_refused(tmp_path: Path, suffix: str) -> None:
    script = tmp_path / f"deep{suffix}"
    script.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ScriptError, match=r"deep\.(yaml|json): not read: it nests deeper than"):
        _within(HANG, lambda: load_script(script))


def test_a_huge_file_is_refused_unread(tmp_path: Path) -> None:
    script = tmp_path / "huge.yaml"
    with script.open("wb") as handle:
        handle.truncate(MAX_BYTES + 1)  # sparse: nothing to read, if it were read
    with pytest.raises(ScriptError, match=f"at most {MAX_BYTES:,} are read"):
        load_script(script)


def test_anchors_used_sensibly_still_load(tmp_path: Path) -> None:
    script = tmp_path / "anchors.yaml"
    script.write_text(
        "plan: &plan {name: write_todos, args: {todos: [{content: Read, status: in_progress}]}}\n"
        "agents:\n  main:\n    - tool_calls: [*plan]\n    - text: done\n"
        "  critic:\n    - tool_calls: [*plan]\n    - text: fine\n"
    )
    loaded = load_script(script)
    assert loaded.agents["critic"][0].turns[0].tool_calls[0]["name"] == "write_todos"
