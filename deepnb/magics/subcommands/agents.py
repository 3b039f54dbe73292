"""``%deepagent`` subcommands that define agents, choose one and show what one is made of;
and the help."""

from __future__ import annotations

from deepnb.magics.declaring import agent_option, argument, subcommand


@subcommand("help", handler="agents:help_")
def help_() -> None:
    """Show this help."""


@subcommand("define", handler="agents:define")
@argument("name", help="The agent's name.")
@argument(
    "-m",
    "--model",
    help="provider:model, scripted:PATH, demo:NAME, or a variable holding a chat model.",
)
@argument("--interrupt-on", dest="interrupt_on", metavar="TOOL,...", help="Ask before these tools run.")
@argument(
    "--checkpointer",
    help="memory (default) or sqlite:PATH to keep threads across restarts.",
)
@argument("--system-prompt", dest="system_prompt", help="Extra instructions for the agent.")
@argument("--interpreter", action="store_true", help="Give the agent the QuickJS interpreter (eval).")
@argument("--ptc", metavar="TOOL,...", help="Tools the interpreter's code may call (implies --interpreter).")
@argument(
    "--from",
    dest="from_var",
    metavar="VAR",
    help="A variable holding a dict of agent options (the keys of a deepnb.toml agent).",
)
def define() -> None:
    """Define (or redefine) a named agent."""


@subcommand("connect", handler="agents:connect")
@argument("url", help="The Agent Protocol server's URL (langgraph dev, a deployment).")
@argument("--assistant", metavar="ID", help="The assistant id, or the graph id, to run (required).")
@argument("-a", "--agent", metavar="NAME", help="Register it under this name (default: the assistant).")
@argument(
    "-t",
    "--thread",
    metavar="THREAD",
    help="Continue this thread of the server (default: a new thread; %%deepagent threads lists them).",
)
@argument(
    "--api-key-env",
    dest="api_key_env",
    metavar="VAR",
    help="The environment variable holding the server's API key (sent as x-api-key).",
)
def connect() -> None:
    """Connect to an agent on an Agent Protocol server: %deepagent connect URL --assistant ID."""


@subcommand("use", handler="agents:use")
@argument("name", help="The agent to make current.")
def use() -> None:
    """Make an agent the current one."""


@subcommand("agents", handler="agents:agents")
def agents() -> None:
    """List the agents."""


@subcommand("inspect", handler="agents:inspect")
@agent_option
def inspect() -> None:
    """Show an agent's anatomy: middleware, tools, interrupt rules, backend, model, profile."""


@subcommand("graph", handler="agents:graph")
@agent_option
@argument(
    "--no-xray",
    action="store_true",
    help="Draw subgraphs as single nodes (default: their nodes drawn inside them, as get_graph(xray=True)).",
)
def graph() -> None:
    """Draw an agent's graph: hooks, model, tools, subagents as nested clusters (an SVG)."""


@subcommand("mcp", handler="agents:mcp")
@agent_option
def mcp() -> None:
    """List an agent's MCP servers and the tools each gives it."""


@subcommand("reload", handler="agents:reload")
@argument("-a", "--agent", help="Only this agent (default: every agent built from a spec).")
def reload() -> None:
    """Rebuild agents with the current extensions and deepnb.toml (threads kept)."""
