"""``%deepagent`` subcommands on the project around the agents: its extensions, its trust, tracing,
and serving or deploying its agents."""

from __future__ import annotations

from deepnb.magics.declaring import argument, subcommand


@subcommand("extension", handler="project:extension")
@argument(
    "path",
    help="An extension file, a package, plugin or marketplace folder, a folder of extensions, or "
    "NAME@MARKETPLACE of a plugin Deep Agents Code installed.",
)
def extension() -> None:
    """Load the extension(s) at PATH (a file or a folder)."""


@subcommand("extensions", handler="project:extensions")
def extensions() -> None:
    """List extension registrations, sources, failures; says if a reload is needed."""


@subcommand("trust", handler="project:trust")
@argument("path", nargs="?", help="The project folder (default: the current project).")
@argument("--revoke", action="store_true", help="Stop trusting it; its loaded extensions are unloaded.")
def trust() -> None:
    """Trust the project: its deepnb.toml code and extension folders may run (--revoke to stop)."""


@subcommand("trace", handler="project:trace")
@argument(
    "action",
    nargs="?",
    metavar="on|off|status",
    help="on: send every run as OpenTelemetry spans; off: stop; status (the default): where they go, "
    "how many were sent and dropped.",
)
@argument(
    "--endpoint",
    metavar="URL",
    help="With on: the collector's OTLP/HTTP URL (default: deepnb.toml's [trace], else "
    "OTEL_EXPORTER_OTLP_ENDPOINT, else Phoenix on 127.0.0.1:6006).",
)
@argument("--project", metavar="NAME", help="With on: the project the spans are filed under.")
def trace() -> None:
    """Send every run as OpenTelemetry spans: %deepagent trace on|off|status [--endpoint URL]."""


@subcommand("deploy", handler="project:deploy")
@argument("path", help="The folder to write the Agent Server app into (it must not exist, unless --force).")
@argument(
    "-a", "--agent", action="append", help="Only this agent from deepnb.toml (repeat for more; default: all)."
)
@argument("--force", action="store_true", help="Replace a deployment deepnb wrote there before.")
def deploy() -> None:
    """Write deepnb.toml's agents as an Agent Server app (langgraph.json) into PATH."""


@subcommand("serve", handler="project:serve")
@argument(
    "-a", "--agent", action="append", help="Only this agent from deepnb.toml (repeat for more; default: all)."
)
@argument("--port", metavar="P", help="The port on 127.0.0.1 (default: 2024 if free, else any free one).")
@argument("--stop", action="store_true", help="Stop the server this kernel started.")
def serve() -> None:
    """Serve deepnb.toml's agents with langgraph dev in the background (--stop ends it)."""
