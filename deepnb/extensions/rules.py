"""What extensions may register: the error they get when they may not, and the rules for
backend route prefixes (well formed, clear of deepagents' own paths and of each other)."""

from __future__ import annotations

import re

from deepnb.core.errors import DeepnbError

ROUTE_PREFIX = re.compile(r"^/(?:[a-z0-9][a-z0-9_-]*/)+$")
"""Deep Agents Code's rule: lowercase absolute path segments, a slash at both ends."""


class ExtensionError(DeepnbError):
    """An extension did something deepnb cannot accept; the message says what."""


def reserved_routes(artifacts_root: str = "/") -> dict[str, str]:
    """Paths deepagents writes to itself under a backend's ``artifacts_root`` (history and
    artifacts), each with what lives there. Extension routes may not overlap them."""
    root = artifacts_root.rstrip("/")
    reserved = {
        f"{root}/conversation_history/": "where summarization keeps the conversation history",
        f"{root}/large_tool_results/": "where deepagents offloads large tool results (artifacts)",
        f"{root}/blobs/": "where deepagents offloads binary content (artifacts)",
    }
    if root:
        reserved[f"{root}/"] = "the agent's artifacts root"
    return reserved


def overlaps(a: str, b: str) -> bool:
    """Whether two route prefixes (both ending in ``/``) share any path."""
    return a.startswith(b) or b.startswith(a)


def check_prefix(prefix: object) -> str:
    """``prefix`` if it is a well-formed route outside deepagents' own paths, else raise."""
    if not isinstance(prefix, str) or ROUTE_PREFIX.fullmatch(prefix) is None:
        hint = ""
        if isinstance(prefix, str) and prefix.strip("/"):
            hint = f" such as {'/' + prefix.strip('/').lower() + '/'!r}"
        raise ExtensionError(
            f"Invalid backend route prefix {prefix!r}: use a lowercase absolute path with slashes at "
            f"both ends{hint or ', such as /scratch/'} (letters, digits, - and _)."
        )
    for reserved, what in reserved_routes().items():
        if overlaps(prefix, reserved):
            raise ExtensionError(
                f"Backend route {prefix!r} overlaps {reserved!r}, {what}: choose another prefix."
            )
    return prefix
