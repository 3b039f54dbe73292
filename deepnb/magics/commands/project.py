"""``%deepagent`` subcommands on the project around the agents: its extensions, its trust,
tracing, and serving or deploying its agents; and an extension's own ``%deepagent /NAME``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from deepnb import extensions as ext
from deepnb.core.errors import DeepnbError
from deepnb.core.text.secrets import redact
from deepnb.engine.tracing import switch as tracing
from deepnb.extensions.registry import REGISTRY
from deepnb.magics.commands.common import Message
from deepnb.session.config import find_config


def extension(args: Any, namespace: dict[str, Any]) -> Message:
    """Load the extension(s) at a path; say what each registered, or why it failed."""
    lines = []
    for source, error in ext.load(args.path):
        if error:
            lines.append(f"Extension {source.label} failed, nothing of it is registered: {error}")
        else:
            lines.append(f"Loaded extension {source.label}{_registered(source.key)}.")
            lines += _skipped(source.key)
    return Message("\n".join(lines + _reload_hint()) or f"No extensions in {args.path}.")


def _registered(key: str) -> str:
    kinds = [f"{r.kind} {r.name}" for r in REGISTRY.registrations if r.source.key == key]
    return f": {', '.join(kinds)}" if kinds else " (it registered nothing)"


def _skipped(key: str) -> list[str]:
    """One line for each name or route the extension lost to an earlier one (first wins)."""
    return [f"  {note[:1].upper()}{note[1:]}." for k, note in REGISTRY.ignored if k == key]


def _project_folders(root: Path) -> str:
    """The project's extension folders a trust covers, as they exist."""
    if (root / ".deepagents" / "extensions").is_dir():
        return ".deepnb/extensions/ and .deepagents/extensions/"
    return ".deepnb/extensions/"


def _reload_hint() -> list[str]:
    stale = ext.listing().reload_needed
    if not stale:
        return []
    return [f"Run %deepagent reload to give {', '.join(stale)} the new middleware and routes."]


def extensions(args: Any, namespace: dict[str, Any]) -> Any:
    return ext.listing()


def extension_command(line: str) -> Message:
    """``%deepagent /name ARGS``: run an extension's command and show what it says."""
    name, _, rest = line.strip().partition(" ")
    said = ext.run_command(name, rest.strip())
    return Message(redact(said) if said is not None else f"{name} ran (it said nothing).")


def trust(args: Any, namespace: dict[str, Any]) -> Message:
    if args.revoke:
        return _revoke_trust(args.path)

    root, results = ext.trust(args.path)
    lines = [f"Trusted {root}: its {_project_folders(root)} run from now on."]
    try:
        config = find_config(root)
    except DeepnbError:  # a broken file says so when an agent is built from it
        config = None
    if config is not None and config.agents:
        lines.append(
            f"Its {config.path.name} agents may import code and reach outside it: "
            "a cell with -a NAME builds one."
        )
    for source, error in results:
        lines.append(
            f"Extension {source.label} failed, nothing of it is registered: {error}"
            if error
            else f"Loaded extension {source.label}{_registered(source.key)}."
        )
        lines += [] if error else _skipped(source.key)
    return Message("\n".join(lines + _reload_hint()))


def _revoke_trust(path: str | None) -> Message:
    root, was_trusted, unloaded, errors = ext.revoke_trust(path)
    if not was_trusted:
        return Message(f"{root} was not trusted: nothing changed.")
    lines = [f"{root} is no longer trusted: its {_project_folders(root)} will not run."]
    if unloaded:
        lines.append(f"Unloaded {', '.join(unloaded)}; their tools leave the next model call.")
    lines += [f"deepnb: {error}" for error in errors]
    stale = ext.listing().reload_needed if unloaded else ()
    if stale:
        names = ", ".join(stale)
        lines.append(f"Run %deepagent reload to rebuild {names} without their middleware and routes.")
    return Message("\n".join(lines))


def trace(args: Any, namespace: dict[str, Any]) -> Message:
    """``%deepagent trace on|off|status``: tracing turned on or off, and its status."""
    action = args.action or "status"
    if action not in ("on", "off", "status"):
        raise DeepnbError(f"%deepagent trace takes on, off or status, not {action!r}.")
    if action != "on" and (args.endpoint or args.project):
        raise DeepnbError("--endpoint and --project go with on: %deepagent trace on --endpoint URL.")
    if action == "on":
        return Message(repr(tracing.trace(args.endpoint, project=args.project, source="%deepagent trace on")))
    return Message(repr(tracing.turn_off() if action == "off" else tracing.status()))


def deploy(args: Any, namespace: dict[str, Any]) -> Message:
    """Write the project's agents as an Agent Server app into ``args.path``."""
    from deepnb.ship.deploy import deploy as write  # noqa: PLC0415  # lazy: it imports deepagents' config

    return Message(repr(write(args.path, agents=args.agent, force=args.force)))


def serve(args: Any, namespace: dict[str, Any]) -> Any:
    """Start ``langgraph dev`` on the project's agents (its server object), or stop it."""
    # lazy: serving imports the deployment code and subprocess handling no other command needs
    from deepnb.ship import serve as serving  # noqa: PLC0415

    if args.stop:
        if args.agent or args.port is not None:
            raise DeepnbError("--stop takes no other option: %deepagent serve --stop.")
        stopped = serving.stop()
        if stopped is None:
            return Message("No server of this kernel is running.")
        return Message(f"Stopped the server at {stopped.url}.")
    return serving.serve(args.agent, port=_port(args.port))


def _port(text: str | None) -> int | None:
    if text is None:
        return None
    if not text.isdigit():
        raise DeepnbError(f"--port {text!r} is not a port number: give one such as --port 2024.")
    return int(text)
