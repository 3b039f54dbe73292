"""No secret leaves the engine: every event kind, every string field holding a secret, and none of
what deepnb shows or saves (state JSON, snapshots, widget traits, reprs, magic outputs) has it —
as it is, or escaped for JSON, a Python repr, HTML or a URL."""

from __future__ import annotations

import dataclasses
import html
import inspect
import json
import types
import typing
import uuid
from collections.abc import Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import quote

import pytest

import deepnb
from deepnb.core import events as ev
from deepnb.magics.commands import threads
from deepnb.models.scripted import ScriptedChatModel, parse_script
from deepnb.session import agents, building
from deepnb.session.run import Run
from deepnb.views.run.run_view import RunView
from deepnb.views.run.snapshot import snapshot_bundle

BASE = "Zq7Wm2Lp9Xk4Rt8Vn3Kd6"
"""Shaped like no known key: only the environment lookup can find it."""
VARIANTS = {
    "plain": BASE,
    "quote": 'Zq7W"m2Lp9Xk4Rt8',
    "backslash": "Zq7W\\m2Lp9Xk4Rt8",
    "non-ascii": "Zq7Wöm2Lp9Xk4Rt8",
    "all": 'Zq7W"\\ö<&>m2Lp9 Xk4Rt8',
}


def shown_forms(secret: str) -> set[str]:
    """How ``secret`` could appear in what deepnb shows: as it is, JSON-escaped (ASCII-only or
    not), in a repr, HTML-escaped, URL-encoded."""
    forms = {
        secret,
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        repr(secret)[1:-1],
    }
    forms |= {html.escape(form) for form in list(forms)}
    return forms | {quote(secret, safe=""), quote(secret)}


@pytest.fixture(params=sorted(VARIANTS))
def secret(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    value = VARIANTS[request.param]
    monkeypatch.setenv("DEEPNB_TEST_API_KEY", value)
    return value


def assert_hidden(secret: str, where: str, shown: Any) -> None:
    text = shown if isinstance(shown, str) else json.dumps(shown, default=repr)
    ascii_text = text if isinstance(shown, str) else json.dumps(shown, default=repr, ensure_ascii=False)
    for form in shown_forms(secret):
        assert form not in text and form not in ascii_text, f"the secret ({form!r}) is shown in {where}"


# -- every event kind, built from the events module ----------------------------------------------


def event_kinds() -> list[type[ev.Event]]:
    """Every concrete event class of deepnb.core.events (a new one is covered automatically)."""
    return [
        cls
        for cls in vars(ev).values()
        if inspect.isclass(cls) and issubclass(cls, ev.Event) and cls is not ev.Event
    ]


def hitl_payload(secret: str) -> dict[str, Any]:
    """A human-in-the-loop interrupt whose arguments, description and tool name hold ``secret``."""
    return {
        "action_requests": [
            {
                "name": "write_file",
                "args": {"file_path": f"/keys/{secret}.md", "content": f"key = {secret}"},
                "description": f"Write {secret}",
            },
            {"name": f"call {secret}", "args": {"headers": {"Authorization": secret}, "n": [secret]}},
        ],
        "review_configs": [{"action_name": "write_file", "allowed_decisions": ["approve", "edit"]}],
    }


def structured(name: str, secret: str) -> Any:
    """Fields whose shape the state relies on get a realistic value (still full of ``secret``)."""
    return {
        "todos": ({"content": f"Rotate {secret}", "status": "in_progress"},),
        "tool_calls": ({"name": "write_file", "args": {"content": secret}, "id": f"call_id: {secret}"},),
        "args": {"file_path": f"/notes/{secret}.md", "content": secret, "code": f"print('{secret}')"},
        "decision": {
            "type": "edit",
            "message": secret,
            "edited_action": {"name": "x", "args": {"k": secret}},
        },
        "tasks": {secret: {"task_id": secret, "agent_name": secret, "status": f"running {secret}"}},
        "previews": {(f"id: {secret}", 0): {"kind": "content", "text": f"key = {secret}"}},
        "data": {"type": "note", "text": secret, "nested": [secret, {secret: secret}]},
        "value": hitl_payload(secret),
        "values": {"joke": secret, secret: [secret, {"nested": secret}]},
        "parts": (
            {"kind": "text", "text": secret},
            {"kind": "link", "text": f"https://example.org/{secret}", "src": f"https://example.org/{secret}"},
            {"kind": "image", "text": secret, "src": f"data:image/png;base64,{secret}"},
            {"kind": "note", "text": secret},
        ),
    }.get(name, dataclasses.MISSING)


def build(hint: Any, name: str, secret: str) -> Any:
    """A value of type ``hint`` with ``secret`` in every string; TypeError for a type it doesn't know."""
    value = structured(name, secret)
    if value is not dataclasses.MISSING:
        return value
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is str:
        return f"{name}: {secret}"
    if hint is int:
        return 0
    if hint is bool:
        return False
    if origin in (typing.Union, types.UnionType):
        return build(next(a for a in args if a is not type(None)), name, secret)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return (build(args[0], name, secret),)
    if origin is tuple:
        return tuple(build(a, name, secret) for a in args)
    if origin in (Mapping, dict) or hint in (Mapping, dict):
        key, item = args or (str, str)
        return {build(key, name, secret): build(item, name, secret)}
    if dataclasses.is_dataclass(hint):
        return make(hint, secret)
    raise TypeError(f"no fuzz value for {name}: {hint!r}")


def make(cls: type, secret: str) -> Any:
    hints = typing.get_type_hints(cls, vars(ev))
    return cls(**{f.name: build(hints[f.name], f.name, secret) for f in dataclasses.fields(cls) if f.init})


def test_every_event_kind_can_be_built() -> None:
    kinds = event_kinds()
    assert {"TextDelta", "TodosChanged", "FilesChanged", "RunPaused", "Summarized"} <= {
        k.__name__ for k in kinds
    }
    for kind in kinds:
        event = make(kind, BASE)
        strings = [v for v in dataclasses.astuple(event) if isinstance(v, str)]
        assert all(BASE in s for s in strings), kind.__name__


TERMINAL = (ev.RunFinished, ev.RunFailed, ev.RunCancelled)


def shown_by(run: Run) -> dict[str, Any]:
    """Everything a person, a saved notebook or the front-end gets to see of ``run``."""
    view = RunView(run)
    try:
        traits = {
            name: getattr(view, name) for name in view.trait_names(sync=True) if not name.startswith("_")
        }
        tree = run.tree
        return {
            "state JSON": run.state.to_json(),
            "snapshot": snapshot_bundle(run.state),
            "widget traits": traits,
            "repr(run)": repr(run),
            "run display": run._repr_mimebundle_(),
            "run.todos": run.todos,
            "run.pending": repr(run.pending),
            "run.decisions": run.decisions,
            "run.result / error": [run.result, run.error],
            "run.tree": [repr(tree), tree._repr_html_()],
            "run.summaries": repr(run.summaries),
        }
    finally:
        view.close()


def test_fuzzed_events_show_no_secret(secret: str) -> None:
    run = Run(SimpleNamespace(name="fuzz"), "thread-fuzz", f"Use the key {secret}")
    kinds = event_kinds()
    events = [make(kind, secret) for kind in kinds]
    first = [e for e in events if not isinstance(e, (*TERMINAL, ev.RunPaused, ev.RunResumed))]
    first.append(ev.TextDelta("main", f"streaming {secret}"))
    for event in first:
        run.emit(event)
    for where, shown in shown_by(run).items():
        assert_hidden(secret, f"{where} (running)", shown)
    run.emit(make(ev.RunPaused, secret))
    for where, shown in shown_by(run).items():
        assert_hidden(secret, f"{where} (waiting for approval)", shown)
    for event in [e for e in events if isinstance(e, (*TERMINAL, ev.RunResumed))]:
        run.emit(event)
        for where, shown in shown_by(run).items():
            assert_hidden(secret, f"{where} (after {type(event).__name__})", shown)


# -- a real run: todos, files, a subagent and an approval hold the secret -------------------------


def scripted_run(secret: str) -> Run:
    """A scripted agent that writes the secret into its todos, a file's path, a subagent's task
    and a gated tool call's arguments, then waits for approval."""
    script = {
        "agents": {
            "main": [
                {
                    "text": f"Planning with {secret}.",
                    "tool_calls": [
                        {
                            "name": "write_todos",
                            "args": {"todos": [{"content": f"Rotate {secret}", "status": "in_progress"}]},
                        },
                        {"name": "write_file", "args": {"file_path": f"/k-{secret}.md", "content": secret}},
                    ],
                },
                {
                    "text": "Delegating.",
                    "tool_calls": [
                        {
                            "name": "task",
                            "args": {"subagent_type": "general-purpose", "description": f"Use {secret}"},
                        }
                    ],
                },
                {
                    "text": "Calling out.",
                    "tool_calls": [
                        {
                            "name": "edit_file",
                            "args": {"file_path": "/x.md", "old_string": secret, "new_string": "y"},
                        }
                    ],
                },
                {"text": f"Done: the key was {secret}."},
            ],
            "general-purpose": [{"text": f"The key is {secret}."}],
        }
    }
    model = ScriptedChatModel(script=parse_script(script))
    bench = deepnb.agent(f"fuzz-{uuid.uuid4().hex[:8]}", model, interrupt_on={"edit_file": True})
    building.use(bench.name)
    run = bench.run(f"Keep {secret} safe", thread=f"t-{secret}")
    assert run.status == "interrupted", run.error
    return run


def test_a_run_and_the_magics_show_no_secret(secret: str) -> None:
    agents.forget_all()
    try:
        run = scripted_run(secret)
        (request,) = run.pending
        assert request.args["old_string"] == secret  # the engine keeps the real value
        for where, shown in shown_by(run).items():
            assert_hidden(secret, where, shown)
        args = SimpleNamespace(agent=None, thread=None, path="/")
        outputs = {
            "%deepagent todos": threads.todos(args, {}),
            "%deepagent tree": threads.tree(args, {}),
            "%deepagent approvals": threads.approvals(args, {}),
            "%deepagent threads": threads.threads(args, {}),
            "run.files": run.files,
            "run.workbench": run.workbench,
        }
        assert run.todos == [{"content": "Rotate [redacted]", "status": "in_progress"}]
        # the path as the backend stored it (deepagents turns a backslash into a folder separator)
        (written,) = [p for p in run.state.files_changed if p.startswith("/k-")]
        stored = "[redacted]" if "\\" not in secret else secret.replace("\\", "/")
        assert written == f"/k-{stored}.md"
        assert "Rotate [redacted]" in repr(outputs["%deepagent todos"])
        for where, shown in outputs.items():
            assert_hidden(secret, f"repr of {where}", repr(shown))
            for method in ("_repr_html_", "_repr_mimebundle_"):
                if hasattr(shown, method):
                    assert_hidden(secret, f"{method} of {where}", getattr(shown, method)())
        request.approve()
        run.wait(30)
        assert run.status == "done", run.error
        for where, shown in shown_by(run).items():
            assert_hidden(secret, f"{where} (done)", shown)
    finally:
        for bench in agents.registered().values():
            for active in list(bench._active.values()):
                active.stop()
        agents.forget_all()


# -- every display method goes through redaction ------------------------------------------------


def test_every_display_method_in_deepnb_is_redacted() -> None:
    """A class of deepnb with a hand-written ``__repr__``, ``__str__`` or ``_repr_*_`` is wrapped
    by ``safe_display`` (so a new class can't forget it)."""
    import importlib
    import pkgutil

    names = ("__repr__", "__str__", "_repr_html_", "_repr_markdown_", "_repr_mimebundle_")
    missing = []
    package = str(Path(deepnb.__file__).parent)
    for info in pkgutil.walk_packages(deepnb.__path__, "deepnb."):
        module = importlib.import_module(info.name)
        for cls in vars(module).values():
            if not inspect.isclass(cls) or cls.__module__ != module.__name__:
                continue
            for name in names:
                method = cls.__dict__.get(name)
                code = getattr(method, "__code__", None)
                written = code is not None and code.co_filename.startswith(package)  # not generated
                if written and not getattr(method, "__deepnb_safe_display__", False):
                    missing.append(f"{module.__name__}.{cls.__name__}.{name}")
    assert missing == []


def test_error_messages_show_no_secret(secret: str) -> None:
    """A deepnb error often quotes what it was given: shown (one line in a magic's output, a
    card's refusal), the secret is not in it."""
    from deepnb.core.errors import DeepnbError
    from deepnb.models.scripted import ScriptError

    for error in (DeepnbError(f"No thread {secret!r}"), ScriptError(f"bad model {json.dumps(secret)}")):
        assert_hidden(secret, type(error).__name__, str(error))
