"""A connected agent (``deepnb.connect``) against a hostile or broken Agent Protocol server: a
small server on 127.0.0.1 (tests/support/stub_agent_server.py) that answers what the test says.

- Credentials in the URL go as basic auth, its query with every request, and neither is ever
  shown: every place deepnb shows a server's URL is enumerated below.
- ``connect`` starts a new thread: the server's most recent thread may be someone else's.
- Every field deepnb reads from the server, with a wrong type; a redirect to another server; an
  HTML page or garbage where JSON or an event stream belongs: one line each, the run ends.
"""

from __future__ import annotations

import base64
import gc
import logging
from argparse import Namespace
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.engine.async_tasks import RemoteAgent, _failure
from deepnb.magics.commands import agents as agent_commands
from deepnb.session import agents
from deepnb.session.remote import RemoteWorkbench
from deepnb.ship.exporting import export_thread
from deepnb.views.output import run_bundle
from tests.support.agents import unique
from tests.support.servers import free_port, offline_client_fixture
from tests.support.stub_agent_server import OTHERS_THREAD, Answer, StubServer, good_state, serve

USER = "alice"
PASSWORD = "hunter2-in-the-url"
TOKEN = "qtok-0123456789abcdef"
NEVER_SHOWN = (PASSWORD, TOKEN, f"{USER}:", base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode())

offline_client = offline_client_fixture()


@pytest.fixture
def server() -> Iterator[StubServer]:
    with serve() as stub:
        yield stub


def with_credentials(url: str) -> str:
    return url.replace("http://", f"http://{USER}:{PASSWORD}@") + f"/?tenant=t1&token={TOKEN}"


def one_line(caught: pytest.ExceptionInfo[BaseException]) -> str:
    text = str(caught.value)
    assert "\n" not in text, text
    return text


# -- credentials and the query string in a URL ---------------------------------------------


def test_credentials_in_a_url_go_as_basic_auth_its_query_with_every_request(server: StubServer) -> None:
    bench = deepnb.connect(with_credentials(server.url), "deep", name=unique("cred"))
    run = bench.run("Say hello", new_thread=True)
    assert run.status == "done", run.error
    assert run.result == "Hello there."
    assert bench.todos(run.thread_id) == [{"content": "Say hello", "status": "completed"}]
    basic = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    paths = {r.path.split("/")[-1] for r in server.requests}
    assert {"search", "stream", "state"} <= paths
    for request in server.requests:
        assert {"tenant": "t1", "token": TOKEN}.items() <= request.query.items(), request
        assert request.headers["authorization"] == basic, request


def shown_places(
    server: StubServer, ip: Any, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> dict[str, Callable[[], Any]]:
    """Every place deepnb shows a connected server's URL, by name: each gives the text shown."""
    url = with_credentials(server.url)
    name = unique("shown")
    said = ip.run_line_magic("deepagent", f"connect {url} --assistant deep -a {name}")
    bench = agents.find(name)
    assert isinstance(bench, RemoteWorkbench)
    run = bench.run("Say hello", new_thread=True)

    def failing(act: Callable[[], Any], path: str = "", answer: Answer | None = None) -> Callable[[], str]:
        """The one-line message of ``act``, which fails (with ``path`` answering ``answer``)."""

        def caught() -> str:
            if answer is not None:
                server.override[path] = answer
            try:
                act()
            except (DeepnbError, UsageError) as exc:
                return str(exc)
            finally:
                server.override.pop(path, None)
            raise AssertionError(f"{act} did not fail")

        return caught

    def exported() -> str:
        target = export_thread(bench, tmp_path / "exported.ipynb", thread=OTHERS_THREAD).path
        return target.read_text(encoding="utf-8")

    def failed_run() -> str:
        server.override["*"] = Answer(500, {"detail": f"boom at {url}"})
        try:
            failed = bench.run("Say hello", new_thread=True)
        finally:
            server.override.clear()
        assert failed.status == "error"
        return f"{failed.error} {run_bundle(failed)}"

    unreachable = with_credentials(f"http://127.0.0.1:{free_port()}")
    async_server = RemoteAgent("deep", bench.agent_server.url, bench.server.headers)
    row: Any = {"task_id": "t", "run_id": "r", "thread_id": "x", "agent_name": "deep"}
    return {
        "connect message": lambda: said,
        "repr": lambda: repr(bench),
        "graph repr": lambda: repr(bench.graph),
        "server repr": lambda: repr(bench.server),
        "agent server repr": lambda: repr(bench.agent_server),
        "label, origin, url": lambda: (bench.label, bench.origin, bench.url),
        "agents listing": lambda: (
            repr(agent_commands.agents(Namespace(), {})),
            ip.run_line_magic("deepagent", "agents"),
        ),
        "run view": lambda: run_bundle(run),
        "run repr": lambda: repr(run),
        "cannot rebuild": failing(
            lambda: ip.run_cell_magic("deepagent", f"-a {name} -m demo:quickstart", "Hi")
        ),
        "inspect": failing(lambda: bench.inspect()),
        "not a thread": failing(lambda: bench.start("Hi", thread="mine")),
        "no such assistant": failing(lambda: deepnb.connect(url, "nope", name=unique("x"))),
        "refused key": failing(
            lambda: deepnb.connect(url, "deep"), "/assistants/search", Answer(401, {"detail": "no"})
        ),
        "failed request": failing(
            lambda: bench.threads(), "/threads/search", Answer(500, {"detail": f"boom at {url}"})
        ),
        "redirect": failing(
            lambda: deepnb.connect(url, "deep"), "/assistants/search", Answer(307, b"", {"Location": url})
        ),
        "unreachable": failing(lambda: deepnb.connect(unreachable, "deep")),
        "failed run": failed_run,
        "export": exported,
        "async task failure": lambda: str(_failure(ConnectionError(url), async_server, row, 1.0)),
        "logs": lambda: "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("deepnb")),
    }


def test_no_place_that_shows_a_servers_url_shows_its_credentials(
    server: StubServer, ip: Any, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    caplog.set_level(logging.DEBUG)
    places = shown_places(server, ip, caplog, tmp_path)
    for place, shown in places.items():
        text = str(shown())
        assert "127" in text or place in ("logs", "run view", "run repr"), (place, text)
        for secret in NEVER_SHOWN:
            assert secret not in text, (place, secret, text)
    assert "?tenant=t1&token=[redacted]" in places["repr"]()  # what is not secret stays


def test_credentials_in_the_url_and_an_authorization_header_are_refused_in_one_line(
    server: StubServer,
) -> None:
    with pytest.raises(
        DeepnbError, match="carries a user and password and the headers authorize too"
    ) as caught:
        deepnb.connect(with_credentials(server.url), "deep", headers={"Authorization": "Bearer abcdefgh"})
    assert not any(secret in one_line(caught) for secret in NEVER_SHOWN)
    assert server.requests == []


# -- threads: a new one unless one is named ------------------------------------------------


def test_connect_starts_a_new_thread_never_the_servers_latest(server: StubServer, ip: Any) -> None:
    bench = deepnb.connect(server.url, "deep", name=unique("shared"))
    assert [t.thread_id for t in bench.threads()] == [OTHERS_THREAD]  # someone else's, most recent
    assert bench.current_thread != OTHERS_THREAD
    run = bench.run("Say hello")
    assert run.status == "done", run.error
    assert run.thread_id != OTHERS_THREAD
    name = unique("magic")
    ip.run_line_magic("deepagent", f"connect {server.url} --assistant deep -a {name}")
    ip.run_cell_magic("deepagent", f"-a {name} -o run", "Say hello")
    assert ip.user_ns["run"].thread_id != OTHERS_THREAD
    touched = {
        r.path.split("/")[2]
        for r in server.requests
        if r.path.startswith("/threads/") and r.path != "/threads/search"
    }
    assert OTHERS_THREAD not in touched


def test_connect_continues_the_thread_it_names(server: StubServer, ip: Any) -> None:
    bench = deepnb.connect(server.url, "deep", name=unique("named"), thread=OTHERS_THREAD)
    assert bench.current_thread == OTHERS_THREAD
    name = unique("magic")
    said = ip.run_line_magic(
        "deepagent", f"connect {server.url} --assistant deep -a {name} -t {OTHERS_THREAD}"
    )
    assert f"thread {OTHERS_THREAD}" in str(said)
    assert deepnb.get(name).current_thread == OTHERS_THREAD
    with pytest.raises(UsageError, match="its threads are UUIDs") as caught:
        ip.run_line_magic("deepagent", f"connect {server.url} --assistant deep -t mine")
    one_line(caught)


# -- wrong-typed answers ------------------------------------------------------------------


def _set(target: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    for key in parents:
        target = target[key]
    target[last] = value


STATE_CASES = [
    ("values", 5),
    ("values", []),
    ("next", 5),
    ("next", [5]),
    ("tasks", "x"),
    ("tasks", [5]),
    ("interrupts", {}),
    ("interrupts", [5]),
    ("checkpoint", "x"),
    ("metadata", []),
    ("created_at", 5),
    ("values.messages", 5),
    ("values.messages", [5]),
    ("values.messages", [{"content": "no type"}]),
    ("values.todos", "x"),
    ("values.todos", [5]),
    ("values.todos", [{"content": 5, "status": "pending"}]),
    ("values.files", []),
    ("values.files", {"/a.md": 5}),
    ("values.async_tasks", []),
    ("values.async_tasks", {"t": "x"}),
    ("values._summarization_event", 5),
]
"""Each field of a thread's state that deepnb reads, with a wrong type."""


@pytest.mark.parametrize(("field", "value"), STATE_CASES, ids=[f"{f}={v!r}" for f, v in STATE_CASES])
def test_a_wrong_typed_thread_state_is_one_line(server: StubServer, field: str, value: Any) -> None:
    bench = deepnb.connect(server.url, "deep", name=unique("state"))
    state = good_state()
    _set(state, field, value)
    server.state = state
    for read in (bench.todos, bench.files, bench.history, bench.tree):
        with pytest.raises(DeepnbError, match="is it an Agent Protocol server") as caught:
            _ = list(read(OTHERS_THREAD) or ())
        assert f"{field.split('.')[-1]}" in one_line(caught)
    run = bench.run("Say hello", new_thread=True)
    assert run.status == "error"
    assert run.error is not None and "\n" not in run.error
    assert "Agent Protocol server" in run.error, run.error


STREAM_CASES = [
    ("updates", 5),
    ("updates", {"model": 5}),
    ("updates", {"model": {"messages": 5}}),
    ("updates", {"model": {"messages": [5]}}),
    ("updates", {"model": {"todos": "x"}}),
    ("updates", {"model": {"files": []}}),
    ("updates", {"model": {"async_tasks": []}}),
    ("updates", {"model": {"_summarization_event": 5}}),
    ("updates", {"__interrupt__": 5}),
    ("messages-tuple", 5),
    ("messages-tuple", [5, {}]),
    ("metadata", 5),
]
"""Each part of a run's stream that deepnb reads, with a wrong type."""


@pytest.mark.parametrize(("event", "data"), STREAM_CASES, ids=[f"{e}={d!r}" for e, d in STREAM_CASES])
def test_a_wrong_typed_stream_ends_the_run_in_one_line(
    server: StubServer, event: str, data: Any, caplog: pytest.LogCaptureFixture
) -> None:
    bench = deepnb.connect(server.url, "deep", name=unique("stream"))
    server.events = [(event, data)]
    run = bench.run("Say hello", new_thread=True)
    assert run.status == "error"
    assert run.error is not None and "\n" not in run.error
    assert "answered" in run.error and "Agent Protocol server" in run.error, run.error
    gc.collect()
    assert "Task exception was never retrieved" not in caplog.text
    assert bench.run("Say hello", new_thread=True).status == "error"  # and the next one ends too


LIST_CASES: list[tuple[str, Any, Callable[[RemoteWorkbench], Any]]] = [
    ("/threads/search", 5, lambda bench: bench.threads()),
    ("/threads/search", [5], lambda bench: bench.threads()),
    ("/threads/search", [{"thread_id": 5}], lambda bench: bench.threads()),
    ("/threads/search", [{"thread_id": OTHERS_THREAD, "values": []}], lambda bench: bench.threads()),
    ("/threads/search", [{"thread_id": OTHERS_THREAD, "updated_at": 5}], lambda bench: bench.threads()),
    (f"/threads/{OTHERS_THREAD}/runs", {"runs": []}, lambda bench: bench.pending_run(OTHERS_THREAD)),
    (
        f"/threads/{OTHERS_THREAD}/runs",
        [{"run_id": "r", "status": 5}],
        lambda b: b.pending_run(OTHERS_THREAD),
    ),
    (
        f"/threads/{OTHERS_THREAD}/runs",
        [{"run_id": "r", "kwargs": []}],
        lambda b: b.pending_run(OTHERS_THREAD),
    ),
    (f"/threads/{OTHERS_THREAD}/history", {}, lambda bench: bench.history(OTHERS_THREAD)),
]


@pytest.mark.parametrize(("path", "body", "act"), LIST_CASES, ids=[f"{p}={b!r}" for p, b, _ in LIST_CASES])
def test_a_wrong_typed_listing_is_one_line(server: StubServer, path: str, body: Any, act: Any) -> None:
    bench = deepnb.connect(server.url, "deep", name=unique("lists"))
    server.override[path] = Answer(body=body)
    with pytest.raises(DeepnbError, match=r"answered .* while .*: is it an Agent Protocol server") as caught:
        act(bench)
    one_line(caught)


ASSISTANT_CASES = [
    5,
    {},
    [5],
    [{"assistant_id": 5}],
    [{"assistant_id": "a", "graph_id": []}],
    [{"name": "x"}],
]


@pytest.mark.parametrize("body", ASSISTANT_CASES, ids=repr)
def test_a_wrong_typed_assistant_list_is_one_line(server: StubServer, body: Any) -> None:
    server.override["/assistants/search"] = Answer(body=body)
    with pytest.raises(DeepnbError, match=r"answered .* while listing its assistants") as caught:
        deepnb.connect(server.url, "deep", name=unique("assistants"))
    one_line(caught)


def test_the_cases_cover_every_field_deepnb_reads() -> None:
    from deepnb.session.remote import shapes  # the tables this suite must cover

    stated = {field for field, _ in STATE_CASES}
    assert set(shapes.THREAD_STATE) <= stated
    assert {f"values.{field}" for field in shapes.STATE_VALUES} <= stated
    streamed: set[str] = set()
    for event, data in STREAM_CASES:
        for update in data.values() if event == "updates" and isinstance(data, dict) else ():
            streamed |= set(update) if isinstance(update, dict) else set()
    assert set(shapes.STATE_VALUES) <= streamed
    items = [item for _, body, _ in LIST_CASES if isinstance(body, list) for item in body]
    items += [item for body in ASSISTANT_CASES if isinstance(body, list) for item in body]
    listed = {field for item in items if isinstance(item, dict) for field in item}
    assert set(shapes.THREAD) | set(shapes.RUN) | set(shapes.ASSISTANT) <= listed
    assert set(shapes.ANSWERS) == {"state", "history", "threads", "runs", "run", "assistants"}


# -- redirects, HTML, garbage ---------------------------------------------------------------


@pytest.fixture
def elsewhere() -> Iterator[StubServer]:
    """Another server, where a hostile one redirects to (it must never be asked)."""
    with serve() as stub:
        yield stub


@pytest.mark.parametrize("path", ["*", "/assistants/search"])
def test_a_redirect_is_never_followed_and_connect_says_so(
    server: StubServer, elsewhere: StubServer, path: str
) -> None:
    server.override[path] = Answer(307, b"", {"Location": f"{elsewhere.url}/assistants/search"})
    with pytest.raises(
        DeepnbError,
        match=r"answered a redirect \(HTTP 307\) to 127\.0\.0\.1:\d+, which deepnb does not follow",
    ) as caught:
        deepnb.connect(server.url, "deep", api_key="key-for-this-server-only")
    one_line(caught)
    assert elsewhere.requests == []


@pytest.mark.parametrize("path", ["stream", "state"])
def test_a_redirect_mid_run_ends_the_run_in_one_line(
    server: StubServer, elsewhere: StubServer, path: str, caplog: pytest.LogCaptureFixture
) -> None:
    bench = deepnb.connect(server.url, "deep", name=unique("redirected"))
    thread = bench.new_thread()
    target = {"stream": "runs/stream", "state": "state"}[path]
    server.override[f"/threads/{thread}/{target}"] = Answer(302, b"", {"Location": f"{elsewhere.url}/x"})
    try:
        run = bench.run("Say hello", thread=thread)
    except DeepnbError as exc:  # the thread's state is read before the run starts
        error: str | None = str(exc)
    else:
        assert run.status == "error"
        error = run.error
    assert error is not None and "\n" not in error
    assert "answered a redirect (HTTP 302)" in error, error
    assert elsewhere.requests == []
    gc.collect()
    assert "Task exception was never retrieved" not in caplog.text


GARBAGE = [
    Answer(200, b"<html><body>Sign in</body></html>", {"Content-Type": "text/html"}),
    Answer(200, b"\x00\xff garbage", {"Content-Type": "application/octet-stream"}),
    Answer(200, b"{not json", {"Content-Type": "application/json"}),
    Answer(200, b"plain", {}),
]


@pytest.mark.parametrize("answer", GARBAGE, ids=lambda a: a.headers.get("Content-Type", "no type"))
def test_html_or_garbage_is_one_line_for_connect_and_for_a_run(
    server: StubServer, answer: Answer, caplog: pytest.LogCaptureFixture
) -> None:
    bench = deepnb.connect(server.url, "deep", name=unique("garbage"))
    server.override["*"] = answer
    with pytest.raises(DeepnbError, match=r"server at http://127\.0\.0\.1:\d+ (answered|failed)") as caught:
        deepnb.connect(server.url, "deep", name=unique("garbage"))
    one_line(caught)
    thread = bench.new_thread()
    server.override.pop("*")
    server.override[f"/threads/{thread}/runs/stream"] = answer
    run = bench.run("Say hello", thread=thread)
    assert run.status == "error"
    assert run.error is not None and "\n" not in run.error
    assert "Cannot reach" not in run.error, run.error  # it answered: the URL is right, the server is not
    assert "answered" in run.error, run.error
    gc.collect()
    assert "Task exception was never retrieved" not in caplog.text
