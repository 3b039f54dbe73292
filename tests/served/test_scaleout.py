"""Scale-out for real: two replicas of a PostgreSQL + Redis Agent Server (the MIT ``langhost``
runtime, no license key) share one database, one Redis and one run queue, all on 127.0.0.1
(tests/support/scaleout.py starts and stops them).

Runs started on replica A are watched, approved and stopped through replica B; a run whose replica
is killed mid-run is swept back to the queue and finished by the survivor, with nothing lost in
the thread. Offline: the served graphs (tests/support/scaleout_app) run on deepnb's scripted model.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support import scaleout
from tests.support.scaleout_app import scaleout_script as app

pytestmark = pytest.mark.scaleout

KILL_PROMPT = "Work through the whole job."
RUN_TIMEOUT = 60.0
# A killed replica's run comes back after its heartbeat expires (about twice the heartbeat) and
# the next sweep; generous, since six engineers share this machine's two cores.
FAILOVER_TIMEOUT = 90.0


@pytest.fixture(scope="module")
def servers() -> Iterator[scaleout.Cluster]:
    problem = scaleout.missing()
    if problem:
        pytest.skip(problem)
    with scaleout.cluster(names=("A", "B"), jobs=4) as built:
        yield built


@pytest.fixture
def replicas(servers: scaleout.Cluster) -> Iterator[scaleout.Cluster]:
    """Both replicas up (a test before may have killed one); their logs shown if the test fails."""
    servers.ensure("A", "B")
    yield servers
    print(servers.logs())  # pytest shows it when the test failed


# -- helpers (langgraph-sdk, async) ------------------------------------------------------------


def client(replica: scaleout.Replica) -> Any:
    from langgraph_sdk import get_client

    return get_client(url=replica.url, api_key=None)


def prompt(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


async def wait_status(sdk: Any, thread_id: str, run_id: str, *, timeout: float = RUN_TIMEOUT) -> str:
    """Poll the run until it leaves pending/running; return its final status."""
    deadline = time.monotonic() + timeout
    while True:
        run = await sdk.runs.get(thread_id, run_id)
        if run["status"] not in {"pending", "running"}:
            return str(run["status"])
        if time.monotonic() > deadline:
            raise AssertionError(f"run {run_id} still {run['status']} after {timeout:.0f} s")
        await asyncio.sleep(0.2)


async def messages(sdk: Any, thread_id: str) -> list[dict[str, Any]]:
    state = await sdk.threads.get_state(thread_id)
    return list((state.get("values") or {}).get("messages") or [])


async def steps_done(sdk: Any, thread_id: str) -> list[str]:
    history = await messages(sdk, thread_id)
    return [m["content"] for m in history if m["type"] == "tool" and m["name"] == "step"]


async def wait_steps(sdk: Any, thread_id: str, count: int, *, timeout: float = RUN_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while len(await steps_done(sdk, thread_id)) < count:
        if time.monotonic() > deadline:
            raise AssertionError(f"thread {thread_id}: fewer than {count} steps after {timeout:.0f} s")
        await asyncio.sleep(0.1)


def assert_complete(history: list[dict[str, Any]], *, steps: int, final: str, prompt_text: str) -> None:
    """The thread holds the prompt once, every step's call and result once and in order, every
    tool call answered, and the final answer."""
    humans = [m["content"] for m in history if m["type"] == "human"]
    assert humans == [prompt_text]
    results = [m["content"] for m in history if m["type"] == "tool" and m["name"] == "step"]
    assert results == [f"step {n} done" for n in range(1, steps + 1)]
    calls = [c["id"] for m in history if m["type"] == "ai" for c in m.get("tool_calls") or []]
    answered = [m["tool_call_id"] for m in history if m["type"] == "tool"]
    assert sorted(calls) == sorted(answered) and len(set(calls)) == len(calls)
    assert history[-1]["type"] == "ai" and history[-1]["content"] == final


def run_async(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


# -- the tests -------------------------------------------------------------------------------


def test_a_run_started_on_a_is_watched_and_approved_through_b(replicas: scaleout.Cluster) -> None:
    async def scenario() -> None:
        a, b = client(replicas["A"]), client(replicas["B"])
        thread = await a.threads.create()
        text = "Do two steps, then publish the report."
        run = await a.runs.create(
            thread["thread_id"],
            "worker",
            input=prompt(text),
            stream_mode=["updates", "messages-tuple"],
            stream_resumable=True,
        )
        # Watch through B: join the run's stream from its start until the pause.
        seen: list[str] = []
        interrupted = False
        async for part in b.runs.join_stream(thread["thread_id"], run["run_id"], last_event_id="-"):
            seen.append(part.event)
            if part.event == "updates" and "__interrupt__" in (part.data or {}):
                interrupted = True
        assert interrupted, f"no interrupt seen through B; events: {sorted(set(seen))}"
        assert "messages" in seen, sorted(set(seen))  # the streamed tokens came through B too
        assert await wait_status(b, thread["thread_id"], run["run_id"]) == "success"
        state = await b.threads.get_state(thread["thread_id"])
        (pause,) = state["interrupts"]
        (request,) = pause["value"]["action_requests"]
        assert request["name"] == "publish" and request["args"] == {"title": "report"}
        assert await steps_done(b, thread["thread_id"]) == ["step 1 done", "step 2 done"]

        # Approve through B.
        resumed = await b.runs.create(
            thread["thread_id"], "worker", command={"resume": {"decisions": [{"type": "approve"}]}}
        )
        assert await wait_status(a, thread["thread_id"], resumed["run_id"]) == "success"
        history = await messages(a, thread["thread_id"])
        published = [m for m in history if m["type"] == "tool" and m["name"] == "publish"]
        assert [m["content"] for m in published] == ["published 'report'"]
        assert_complete(history, steps=2, final=app.PUBLISHED, prompt_text=text)
        assert not (await a.threads.get_state(thread["thread_id"]))["interrupts"]

    run_async(scenario())


def test_a_run_started_on_a_is_stopped_through_b(replicas: scaleout.Cluster) -> None:
    async def scenario() -> None:
        a, b = client(replicas["A"]), client(replicas["B"])
        thread = await a.threads.create()
        run = await a.runs.create(thread["thread_id"], "worker", input=prompt("Work through the job."))
        await wait_steps(b, thread["thread_id"], 1)
        await b.runs.cancel(thread["thread_id"], run["run_id"], wait=True)
        assert await wait_status(a, thread["thread_id"], run["run_id"]) == "interrupted"
        done = await steps_done(a, thread["thread_id"])
        assert 1 <= len(done) < app.STEPS
        history = await messages(a, thread["thread_id"])
        assert all(m["content"] != app.WORKER_DONE for m in history)
        # Stopped means stopped: no step is added afterwards.
        await asyncio.sleep(3 * app.WORKER_STEP_SECONDS)
        assert await steps_done(b, thread["thread_id"]) == done

    run_async(scenario())


# -- the same through deepnb ---------------------------------------------------------------------
#
# One workbench per replica (``deepnb.connect``): runs start on A's, are watched, approved and
# stopped through B's, with the magics a notebook uses. What deepnb does not show yet (which
# replica ran a run, the thread as a whole) is still checked through langgraph-sdk.


def connect_both(replicas: scaleout.Cluster) -> tuple[Any, Any]:
    import deepnb
    from tests.support.agents import unique

    on_a = deepnb.connect(replicas["A"].url, "worker", name=unique("replica-a"))
    on_b = deepnb.connect(replicas["B"].url, "worker", name=unique("replica-b"))
    return on_a, on_b


def wait_for(condition: Any, what: str, timeout: float = RUN_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def tools(run: Any) -> list[tuple[str, str]]:
    """The run view's tool cards: (tool, status), in order."""
    return [(i["name"], i["status"]) for i in run.state.to_json()["items"] if i["kind"] == "tool"]


def steps_seen(run: Any) -> int:
    return sum(1 for name, status in tools(run) if name == "step" and status == "done")


def test_through_deepnb_a_run_started_on_a_is_approved_and_one_stopped_through_b(
    replicas: scaleout.Cluster, ip: Any
) -> None:
    on_a, on_b = connect_both(replicas)
    text = "Do two steps, then publish the report."
    started = on_a.start(text, new_thread=True)
    thread = started.thread_id
    wait_for(lambda: steps_seen(started) >= 1, "the first step on A's workbench")

    # B's workbench joins the server run (%deepagent approvals) and shows its approval card.
    watched = ip.run_line_magic("deepagent", f"approvals -a {on_b.name} -t {thread}")
    wait_for(lambda: watched.status == "interrupted", "the approval card through B")
    assert watched is not started and watched.workbench is on_b
    (request,) = watched.pending
    assert (request.name, request.args) == ("publish", {"title": "report"})
    assert tools(watched)[-1] == ("publish", "waiting")
    started.wait(RUN_TIMEOUT)
    assert started.status == "interrupted", started.error  # A's view paused at the same card

    request.approve()
    watched.wait(RUN_TIMEOUT)
    assert watched.status == "done", watched.error
    assert watched.result == app.PUBLISHED
    assert on_a.state_values(thread)["messages"][-1].content == app.PUBLISHED  # read through A
    sdk_history = run_async(messages(client(replicas["A"]), thread))
    assert_complete(sdk_history, steps=2, final=app.PUBLISHED, prompt_text=text)

    # Stop through B: re-attach to a run A's workbench started (%deepagent resume), then Stop.
    job = on_a.start("Work through the job.", new_thread=True)
    wait_for(lambda: steps_seen(job) >= 1, "the first step of the job")
    joined = ip.run_line_magic("deepagent", f"resume -a {on_b.name} -t {job.thread_id}")
    assert joined.workbench is on_b and joined.status == "running"
    # Stop once B's view shows the run (its stream replays the steps so far), as a user would.
    wait_for(lambda: steps_seen(joined) >= 1, "the job's steps through B")
    stopped = ip.run_line_magic("deepagent", f"stop -a {on_b.name} -t {job.thread_id}")
    assert stopped.run is joined
    joined.wait(RUN_TIMEOUT)
    assert joined.status == "cancelled"
    job.wait(RUN_TIMEOUT)
    assert job.status != "running"
    server_runs = run_async(client(replicas["B"]).runs.list(job.thread_id))
    assert [r["status"] for r in server_runs] == ["interrupted"]
    done = run_async(steps_done(client(replicas["A"]), job.thread_id))
    assert 1 <= len(done) < app.STEPS


def test_through_deepnb_b_replays_the_steps_a_ran_before_it_joined(
    replicas: scaleout.Cluster, ip: Any
) -> None:
    on_a, on_b = connect_both(replicas)
    replicas["B"].pause()  # so that replica A runs the job and only A's process buffered its events
    try:
        job = on_a.start(KILL_PROMPT, new_thread=True)
        wait_for(lambda: steps_seen(job) >= 2, "two steps on replica A")
    finally:
        replicas["B"].resume()
    joined = ip.run_line_magic("deepagent", f"resume -a {on_b.name} -t {job.thread_id}")
    joined.wait(RUN_TIMEOUT)
    assert joined.status == "done", joined.error
    items = joined.state.to_json()["items"]
    steps = [i["args"] for i in items if i["kind"] == "tool" and i["name"] == "step"]
    assert steps == [f"n={n}" for n in range(1, app.STEPS + 1)]


def test_through_deepnb_a_run_whose_replica_is_killed_finishes_through_b(
    replicas: scaleout.Cluster, ip: Any
) -> None:
    a_replica, b_replica = replicas["A"], replicas["B"]
    on_a, on_b = connect_both(replicas)
    b_replica.pause()  # so that replica A, not B, takes the run from the shared queue
    try:
        job = on_a.start(KILL_PROMPT, new_thread=True)
        wait_for(lambda: steps_seen(job) >= 1, "the first step on replica A")
    finally:
        b_replica.resume()
    (run_id,) = [r["run_id"] for r in run_async(client(a_replica).runs.list(job.thread_id))]
    assert "Starting background run" in a_replica.run_events(run_id)

    joined = ip.run_line_magic("deepagent", f"resume -a {on_b.name} -t {job.thread_id}")
    assert joined.workbench is on_b
    wait_for(lambda: steps_seen(joined) >= 2, "the second step through B")
    a_replica.kill()

    joined.wait(FAILOVER_TIMEOUT)
    if joined.status != "done":  # the join ended with replica A: re-attach through B
        joined = ip.run_line_magic("deepagent", f"resume -a {on_b.name} -t {job.thread_id}")
        joined.wait(FAILOVER_TIMEOUT)
    assert joined.status == "done", joined.error
    assert joined.result == app.WORKER_DONE
    job.wait(RUN_TIMEOUT)
    # A's workbench lost its server: its run ends (no hang) saying how to re-attach.
    assert job.status == "error"
    assert "stopped answering mid-run" in str(job.error), job.error
    assert f"%deepagent resume -t {job.thread_id} re-attaches" in str(job.error), job.error
    history = run_async(messages(client(b_replica), job.thread_id))
    assert_complete(history, steps=app.STEPS, final=app.WORKER_DONE, prompt_text=KILL_PROMPT)
    assert "Background run succeeded" in b_replica.run_events(run_id)


def test_a_run_whose_replica_is_killed_finishes_on_the_other(replicas: scaleout.Cluster) -> None:
    a_replica, b_replica = replicas["A"], replicas["B"]

    async def start_on_a() -> tuple[str, str]:
        a = client(a_replica)
        thread = await a.threads.create()
        run = await a.runs.create(thread["thread_id"], "worker", input=prompt(KILL_PROMPT))
        await wait_steps(a, thread["thread_id"], 1)
        return thread["thread_id"], run["run_id"]

    # B takes nothing from the shared queue while it is paused, so replica A runs this one.
    b_replica.pause()
    try:
        thread_id, run_id = run_async(start_on_a())
    finally:
        b_replica.resume()
    assert "Starting background run" in a_replica.run_events(run_id)

    async def fail_over() -> None:
        b = client(b_replica)
        await wait_steps(b, thread_id, 2)
        a_replica.kill()
        assert not a_replica.alive()
        assert await wait_status(b, thread_id, run_id, timeout=FAILOVER_TIMEOUT) == "success"
        history = await messages(b, thread_id)
        assert_complete(history, steps=app.STEPS, final=app.WORKER_DONE, prompt_text=KILL_PROMPT)

    run_async(fail_over())
    assert "Background run succeeded" in b_replica.run_events(run_id), b_replica.run_events(run_id)
    assert "Background run succeeded" not in a_replica.run_events(run_id)


def test_an_experiment_connected_to_one_replica_runs_on_both(
    replicas: scaleout.Cluster, tmp_path: Any
) -> None:
    """An experiment hands a connected agent all its runs at once: more than replica A's job
    slots, so the shared queue gives replica B some, and every run is scored as it ends."""
    import deepnb
    from deepnb import scorers
    from tests.support.agents import unique

    name = unique("experiment-a")
    deepnb.connect(replicas["A"].url, "quick", name=name)
    rows = [{"job": f"job {n}", "reference": app.QUICK_DONE} for n in range(4 * replicas.jobs)]
    experiment = deepnb.experiment(
        rows, agent=name, scorers=[scorers.exact], template="{job}", log=tmp_path / "log.jsonl"
    ).wait(FAILOVER_TIMEOUT)
    records = list(experiment.records.values())
    assert len(records) == len(rows)
    assert [(r.status, r.scores["exact"].score) for r in records] == [("done", 1.0)] * len(rows)

    async def server_runs() -> list[str]:
        sdk = client(replicas["A"])
        return [run["run_id"] for r in records for run in await sdk.runs.list(r.thread_id)]

    run_ids = run_async(server_runs())
    assert len(run_ids) == len(rows)
    started_on = {
        replica: sum("Starting background run" in replicas[replica].run_events(run_id) for run_id in run_ids)
        for replica in ("A", "B")
    }
    assert started_on["A"] + started_on["B"] == len(rows), started_on
    assert started_on["A"] > 0 and started_on["B"] > 0, started_on
