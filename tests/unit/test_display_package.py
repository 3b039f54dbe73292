"""One display package: domain objects show through renderers registered by ``deepnb.views``
(never by importing a view), and each transcript item kind has its HTML and text side by side."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import deepnb
from deepnb.core import displayable
from deepnb.core.displayable import (
    Displayable,
    LiveDisplayable,
    Renderer,
    WidgetDisplayable,
    register,
    renderer_for,
)
from deepnb.core.extras import EXTRAS
from deepnb.core.text.markup import escape
from deepnb.core.text.secrets import REDACTED
from deepnb.views.run.items import KINDS, item_html, item_text, summary_line

PACKAGE = Path(deepnb.__file__).parent
DISPLAY_SIDE = ("deepnb/views/", "deepnb/magics/")
"""Modules allowed to import views: the display package itself, and the magics above it."""
THE_LAZY_IMPORT = "deepnb/core/displayable.py"
"""The one module below them that loads the display package, on the first display."""
SECRET = "q7Wm2Lp9Zx4Rt8Vn3Kd6"


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found


def test_no_domain_module_imports_a_view() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE.parent).as_posix()
        if where.startswith(DISPLAY_SIDE):
            continue
        views = sorted(name for name in _imports(path) if name.startswith("deepnb.views"))
        if views and where != THE_LAZY_IMPORT:
            offenders.append(f"{where}: {', '.join(views)}")
    assert offenders == []


OPTIONAL_PACKAGES = {module.split(".")[0] for extra in EXTRAS.values() for module in extra.modules}
"""The top-level packages deepnb's optional extras bring."""


def test_every_displayable_type_of_deepnb_has_a_renderer() -> None:
    types = []
    for info in pkgutil.walk_packages(deepnb.__path__, "deepnb."):
        try:
            module = importlib.import_module(info.name)
        except ModuleNotFoundError as exc:
            if (exc.name or "").split(".")[0] in OPTIONAL_PACKAGES:
                continue  # a module of an extra not installed here (the floors have no trace extra)
            raise
        types += [
            cls
            for cls in vars(module).values()
            if inspect.isclass(cls)
            and issubclass(cls, Displayable)
            and cls not in (Displayable, WidgetDisplayable, LiveDisplayable)
        ]
    assert {cls.__name__ for cls in types} >= {"Run", "Files", "SubagentNode", "Interpreter", "Listing"}
    live = {cls.__name__ for cls in types if issubclass(cls, LiveDisplayable)}
    assert live >= {"Run", "Batch", "Comparison"}
    for cls in types:
        renderer = renderer_for(cls)
        assert renderer.html or renderer.bundle, cls
        assert renderer.show or not issubclass(cls, LiveDisplayable), cls
        assert renderer.live or not issubclass(cls, WidgetDisplayable), cls


class _Thing(Displayable):
    def __init__(self, text: str) -> None:
        self.text = text


class _Unregistered(Displayable):
    pass


def test_a_displayable_shows_through_its_renderer_made_safe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACME_API_KEY", SECRET)
    register(_Thing, Renderer(text=lambda t: f"thing {t.text}", html=lambda t: f"<b>{escape(t.text)}</b>"))
    thing = _Thing(f"key {SECRET} \u202e")
    assert repr(thing) == f"thing key {REDACTED} \\u202e"
    assert thing._repr_html_() == f"<b>key {REDACTED} \\u202e</b>"
    assert thing._repr_mimebundle_() is None  # IPython then asks __repr__ and _repr_html_


def test_the_display_package_registers_its_renderers_whoever_registered_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from deepnb.engine.tree import SubagentNode

    monkeypatch.setattr(displayable, "_RENDERERS", {})
    monkeypatch.setattr(displayable, "_installed", False)
    register(_Thing, Renderer(text=lambda t: "thing"))
    assert repr(SubagentNode(path="main", name="lead", status="done")) == "lead: no subagents ran."


def test_a_type_without_a_renderer_says_where_to_add_one() -> None:
    with pytest.raises(LookupError, match=r"_Unregistered.*deepnb\.views\.renderers"):
        repr(_Unregistered())


HOSTILE = "<img src=x onerror=alert(1)>"
SAMPLES = {
    "prompt": {"kind": "prompt", "text": HOSTILE},
    "text": {"kind": "text", "text": HOSTILE, "agent": "main/researcher#1"},
    "thinking": {"kind": "thinking", "text": HOSTILE, "agent": "main/researcher#1"},
    "tool": {"kind": "tool", "name": "grep", "args": HOSTILE, "status": "done", "result": "r"},
    "summary": {"kind": "summary", "summary": HOSTILE, "cutoff": 3, "messages": 2},
    "error": {"kind": "error", "text": HOSTILE},
    "notice": {"kind": "notice", "text": HOSTILE},
    "update": {"kind": "update", "node": "write", "keys": ["joke"], "text": HOSTILE},
}


def test_every_item_kind_has_a_sample() -> None:
    assert set(KINDS) == set(SAMPLES)


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_an_items_html_and_text_show_the_same_agent_text(kind: str) -> None:
    item = SAMPLES[kind]
    text, html = item_text(item), item_html(item)
    assert HOSTILE in text or kind == "summary"
    assert HOSTILE not in html
    assert escape(HOSTILE) in html or kind == "summary"
    if kind == "summary":
        assert escape(HOSTILE) in html and "Context summarized: 2 messages (3 in all)" in text


def test_an_eval_card_shows_code_console_and_result_in_both_forms() -> None:
    item = {
        "kind": "tool",
        "name": "eval",
        "args": "",
        "status": "done",
        "eval": {"code": "1 < 2", "stdout": "a & b", "result": "true"},
    }
    assert item_text(item).splitlines() == ["  eval [done]", "    | 1 < 2", "    > a & b", "    = true"]
    html = item_html(item)
    assert all(escape(part) in html for part in ("1 < 2", "a & b", "true"))


@pytest.mark.parametrize(
    ("messages", "cutoff", "said"),
    [
        (12, 12, "Context summarized: 12 messages, tokens"),
        (1, None, "Context summarized: 1 message, tokens"),
        (3, 15, "Context summarized: 3 messages (15 in all), tokens"),
        (None, 1500, "Context summarized: 1,500 messages in all, tokens"),
    ],
)
def test_a_summary_says_what_it_took_out_in_words(
    messages: int | None, cutoff: int | None, said: str
) -> None:
    item = {"kind": "summary", "summary": "s", "messages": messages, "cutoff": cutoff, "tokens_before": 9}
    line = summary_line(item)
    assert line.startswith(said) and "cutoff" not in line
