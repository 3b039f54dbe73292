"""What deepnb reads of a compiled agent for its views: the tools each agent can call, read once
per graph (every run of a batch lists them)."""

from __future__ import annotations

import pytest

import deepnb
from deepnb.engine import anatomy
from tests.support.agents import unique


def test_the_tools_of_a_graph_are_read_once_however_many_runs_list_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    graph = deepnb.agent(unique("tools-once"), model="demo:quickstart").graph
    reads = []
    reading = anatomy._read_tools_by_agent
    monkeypatch.setattr(anatomy, "_read_tools_by_agent", lambda g: reads.append(g) or reading(g))
    first = anatomy.tools_by_agent(graph)
    first["main"] = ()  # a caller's copy: changing it changes nothing read later
    again = anatomy.tools_by_agent(graph)
    assert reads == [graph] and "write_todos" in again["main"]
