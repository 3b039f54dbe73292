"""The ``research`` graph: deepnb's ``demo:research`` agent (scripted, offline), built the way
``deepnb.agent(name, "demo:research")`` builds it in a kernel, so a test can compare the views of
one run served remotely with the same run in the kernel (parallel subagents, a summarization)."""

from __future__ import annotations

from deepnb.engine.spec import AgentSpec
from deepnb.models import resolve_model

graph = AgentSpec(resolve_model("demo:research"), "demo:research").build(name="research", checkpointer=None)
