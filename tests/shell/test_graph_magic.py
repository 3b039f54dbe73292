"""``%deepagent graph [-a AGENT] [--no-xray]`` gives the agent's graph drawn."""

from __future__ import annotations

from IPython.utils.capture import capture_output

from deepnb.engine.graph_shape import GraphDrawing
from deepnb.views.graph_view import graph_svg
from tests.support.agents import unique


def test_the_graph_magic_draws_the_agent(ip) -> None:
    ip.run_cell("import deepnb\nfrom tests.support.agents import scripted")
    name = unique("magic-drawn")
    ip.user_ns["_name"] = name
    with capture_output():
        ip.run_cell("deepnb.agent(_name, scripted({'main': [{'text': 'hi'}]}))")
        shown = ip.run_cell(f"%deepagent graph -a {name}").result
        flat = ip.run_cell(f"%deepagent graph -a {name} --no-xray").result
    assert isinstance(shown, GraphDrawing) and shown.agent == name and shown.xray is True
    assert isinstance(flat, GraphDrawing) and flat.xray is False
    assert graph_svg(shown).startswith("<svg ")
