"""``%deepagent inspect [-a AGENT]``: the agent's anatomy as a cell's output (text and static
HTML), listed in ``%deepagent help``; an unknown agent is one line."""

from __future__ import annotations

from IPython.core.error import UsageError

import deepnb
from tests.support.agents import scripted
from tests.support.lab_sanitizer import unstyled


def test_inspect_shows_the_anatomy_of_the_named_agent(ip) -> None:
    deepnb.agent("inspected", model=scripted({"main": ["hi"]}), interrupt_on={"write_file": True})
    anatomy = ip.run_line_magic("deepagent", "inspect -a inspected")
    text, html = repr(anatomy), unstyled(anatomy._repr_html_())
    assert text.startswith("Agent inspected (built by deepnb)")
    assert "1. FilesystemMiddleware — the file tools over the backend" in text
    assert "asks for approval before:\n    write_file: approve, edit, reject, respond" in text
    assert "<summary><b>main agent inspected</b>" in html
    assert "inspect" in ip.run_line_magic("deepagent", "help").text


def test_inspect_of_an_unknown_agent_is_one_line(ip) -> None:
    result = ip.run_cell("%deepagent inspect -a nobody")
    assert isinstance(result.error_in_exec, UsageError)
    assert str(result.error_in_exec).startswith("No agent named 'nobody'")
