"""``%deepagent state THREAD STEP`` shows a step's state, ``%deepagent diff THREAD A B`` what
changed, and ``%deepagent fork THREAD STEP --update VAR`` an edited fork; a missing or wrong
variable, or a step given twice, is one line."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

from deepnb.engine.step_state import StateDiff, StepState


def _cell(ip, source: str):
    with capture_output():
        result = ip.run_cell(source)
    assert result.error_in_exec is None, result.error_in_exec
    return result


@pytest.fixture
def thread(ip) -> str:
    _cell(ip, "%%deepagent -m demo:quickstart --new -o ran\nWrite a brief about tide pools")
    run = ip.user_ns["ran"].wait(60)
    assert run.status == "done", run.error
    return str(run.thread_id)


def test_state_and_diff_magics(ip, thread: str) -> None:
    bench = ip.user_ns["ran"].workbench
    shown = _cell(ip, f"%deepagent state {thread} 3").result
    assert isinstance(shown, StepState) and shown.values == bench.state(thread, 3).values
    assert _cell(ip, "%deepagent state 3").result.values == shown.values  # the current thread
    assert _cell(ip, f"%deepagent state -t {thread} 3").result.step == 3
    assert _cell(ip, f"%deepagent state {thread}").result.values == bench.state_values(thread)
    diff = _cell(ip, f"%deepagent diff {thread} 2 3").result
    assert isinstance(diff, StateDiff) and diff.to_dict() == bench.diff(thread, 2, 3).to_dict()
    assert _cell(ip, f"%deepagent diff {thread} 3").result.to_dict() == diff.to_dict()  # what 3 did
    assert _cell(ip, "%deepagent diff 2 3").result.to_dict() == diff.to_dict()
    assert "Thread " in repr(diff) and "from step 2 to step 3" in repr(diff)


def test_fork_with_update_magic(ip, thread: str) -> None:
    bench = ip.user_ns["ran"].workbench
    ip.user_ns["edit"] = {"files": {"/notes/stresses.md": "Edited."}}
    forked = _cell(ip, f"new = %deepagent fork {thread} 3 --update edit").result
    assert forked is None
    new = ip.user_ns["new"]
    assert repr(new).startswith(f"New thread {new} from thread {thread} at step 3.")
    assert repr(new).endswith("Its state was updated with files from edit.")
    assert bench.state(new).files == {"/notes/stresses.md": "Edited."}
    assert bench.state(thread).files["/notes/stresses.md"] != "Edited."
    again = _cell(ip, f"again = %deepagent fork -t {thread} --at 2").result
    assert again is None and ip.user_ns["again"] in {t.thread_id for t in bench.threads()}


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("fork {t} 3 --update nothing_here", "No variable named 'nothing_here': --update takes a variable"),
        ("fork {t} 3 --update text", "text holds a str: --update takes a dict of state keys"),
        ("fork {t} 3 --update bad_key", "has no state key 'nope': its keys are files, "),
        ("fork {t} 3 --at 2", "%deepagent fork: give the step once, as STEP or --at 2, not both."),
        ("fork {t}", "%deepagent fork needs a step: %deepagent fork THREAD STEP"),
        ("diff -t {t} 1 2 3", "-t {t} names the thread, so give at most 2 step(s)."),
        ("state {t} 99", "has no step 99: its steps run from 1 to 6 "),
        ("state ghost 1", "has no thread 'ghost': %deepagent threads lists its threads."),
    ],
)
def test_a_wrong_state_magic_is_one_line(ip, thread: str, line: str, said: str) -> None:
    ip.user_ns.update(text="not a dict", bad_key={"nope": 1})
    before = {t.thread_id for t in ip.user_ns["ran"].workbench.threads()}
    with pytest.raises(UsageError) as error:
        ip.run_line_magic("deepagent", line.format(t=thread))
    assert said.format(t=thread) in str(error.value) and "\n" not in str(error.value)
    assert {t.thread_id for t in ip.user_ns["ran"].workbench.threads()} == before  # nothing forked
