"""What tracing is asked to do: where spans go, with which headers, under which project, and the
bounds that keep a slow or absent collector from ever slowing a run. Read from
``deepnb.trace(...)`` / ``%deepagent trace on`` or from the project's ``deepnb.toml`` ``[trace]``
table (``[tool.deepnb.trace]`` in ``pyproject.toml``), which counts only in a trusted project: a
table that sends every prompt and answer somewhere is as much reach outside as code is.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from deepnb.core.errors import DeepnbError
from deepnb.core.project import project_root
from deepnb.core.text.secrets import add_secret, looks_secret
from deepnb.core.trust import is_trusted

INSTALL = "pip install 'deepnb[trace]'"
DEFAULT_ENDPOINT = "http://127.0.0.1:6006/v1/traces"
"""Phoenix's own default (``phoenix serve``), OTLP over HTTP."""
TRACES_PATH = "/v1/traces"
DEFAULT_PROJECT = "deepnb"
KEYS = ("enabled", "endpoint", "headers", "project", "timeout", "queue", "delay", "max_value")
"""The keys of a ``[trace]`` table."""
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class TraceSettings:
    """Where spans go and the bounds of sending them. ``endpoint``: the OTLP/HTTP traces URL;
    ``headers``: sent with every export (never shown); ``project``: the project a trace tool files
    the spans under (``openinference.project.name``); ``timeout``: seconds one export may take,
    retries included; ``queue``: spans that may wait to be sent (more are dropped and counted);
    ``delay``: seconds between exports; ``max_value``: the longest text an attribute keeps;
    ``source``: what asked for it."""

    endpoint: str
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    project: str = DEFAULT_PROJECT
    timeout: float = 3.0
    queue: int = 2048
    delay: float = 1.0
    max_value: int = 32_768
    source: str = "deepnb.trace()"


def _endpoint(given: str | None) -> str:
    """The OTLP traces URL: as given, else the standard environment variables, else Phoenix's
    default; a bare ``http://host:port`` gets ``/v1/traces``."""
    url = given or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    if not url and os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        url = os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"].rstrip("/") + TRACES_PATH
    url = (url or DEFAULT_ENDPOINT).strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise DeepnbError(
            f"Trace endpoint {url!r} is not an http(s) URL: give the collector's OTLP/HTTP address, "
            f"e.g. {DEFAULT_ENDPOINT}."
        )
    if parts.password:
        add_secret(parts.password)
    if parts.path in ("", "/"):
        url = urlunsplit(parts._replace(path=TRACES_PATH))
    return url


def _headers(given: Mapping[str, Any] | None, where: str) -> dict[str, str]:
    """Headers with ``${NAME}`` filled from the environment; each value from the environment or
    under a secret-looking name is treated as a secret from now on (redacted wherever it shows)."""
    if given is None:
        return {}
    if not isinstance(given, Mapping):
        raise DeepnbError(f"{where}: headers must be a table of name = value, not {type(given).__name__}.")
    headers = {}
    for name, value in given.items():
        if not isinstance(value, str):
            raise DeepnbError(f"{where}: header {name!r} must be text, not {type(value).__name__}.")
        missing = [v for v in _VARIABLE.findall(value) if v not in os.environ]
        if missing:
            raise DeepnbError(
                f"{where}: header {name!r} names ${{{missing[0]}}}, which is not set: set it before tracing."
            )
        filled = _VARIABLE.sub(lambda m: os.environ[m.group(1)], value)
        if filled != value or looks_secret(str(name)):
            add_secret(filled)
            for token in filled.split():  # "Bearer TOKEN": the token alone is a secret too
                add_secret(token)
        headers[str(name)] = filled
    return headers


def _number(value: Any, key: str, where: str, *, kind: type, least: float) -> Any:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or (kind is int and not isinstance(value, int))
    ):
        raise DeepnbError(f"{where}: {key} must be a {'whole ' if kind is int else ''}number, not {value!r}.")
    if value < least:
        raise DeepnbError(f"{where}: {key} must be at least {least}, not {value!r}.")
    return kind(value)


def settings(
    endpoint: str | None = None,
    *,
    headers: Mapping[str, Any] | None = None,
    project: str | None = None,
    timeout: float | None = None,
    queue: int | None = None,
    delay: float | None = None,
    max_value: int | None = None,
    source: str = "deepnb.trace()",
) -> TraceSettings:
    """Checked settings from what is given, the rest by default (see :class:`TraceSettings`)."""
    where = source
    if project is not None and (not isinstance(project, str) or not project.strip()):
        raise DeepnbError(f"{where}: project must be a name, not {project!r}.")
    if endpoint is not None and not isinstance(endpoint, str):
        raise DeepnbError(f"{where}: endpoint must be a URL, not {type(endpoint).__name__}.")
    options: dict[str, Any] = {}
    if timeout is not None:
        options["timeout"] = _number(timeout, "timeout", where, kind=float, least=0.1)
    if queue is not None:
        options["queue"] = _number(queue, "queue", where, kind=int, least=1)
    if delay is not None:
        options["delay"] = _number(delay, "delay", where, kind=float, least=0.01)
    if max_value is not None:
        options["max_value"] = _number(max_value, "max_value", where, kind=int, least=256)
    return TraceSettings(
        endpoint=_endpoint(endpoint),
        headers=_headers(headers, where),
        project=(project or DEFAULT_PROJECT).strip(),
        source=source,
        **options,
    )


@dataclass(frozen=True)
class ConfiguredTrace:
    """What the project's config says about tracing: ``settings`` to turn it on with (``None``:
    nothing to turn on), ``note``, a line for ``%deepagent trace status`` (a table waiting for
    trust, one turned off with ``enabled = false``), and ``untrusted`` where it waits for trust."""

    settings: TraceSettings | None
    note: str | None = None
    untrusted: bool = False


def _table(root: Path) -> tuple[Any, str] | None:
    """The ``[trace]`` table and where it is written, or ``None`` where the project has none."""
    for name, prefix in (("deepnb.toml", ""), ("pyproject.toml", "tool.deepnb.")):
        path = root / name
        if not path.is_file():
            continue
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
        except (tomllib.TOMLDecodeError, OSError) as exc:
            raise DeepnbError(f"{name}: cannot read it ({exc}): fix the file.") from None
        if prefix:
            data = data.get("tool", {}).get("deepnb", {})
            data = data if isinstance(data, dict) else {}
        if "trace" in data:
            return data["trace"], f"{name} [{prefix}trace]"
        if name == "deepnb.toml":
            return None  # deepnb.toml wins over pyproject.toml, as for agents
    return None


def configured(root: Path | None = None) -> ConfiguredTrace:
    """The project's ``[trace]`` table read and checked (a mistake is one ``DeepnbError``)."""
    root = root or project_root()
    found = _table(root)
    if found is None:
        return ConfiguredTrace(None)
    table, where = found
    if not isinstance(table, dict):
        raise DeepnbError(f"{where} must be a table of {', '.join(KEYS)}.")
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise DeepnbError(f"{where}: unknown key(s) {', '.join(unknown)}: use {', '.join(KEYS)}.")
    enabled = table.get("enabled", True)
    if not isinstance(enabled, bool):
        raise DeepnbError(f"{where}: enabled must be true or false, not {enabled!r}.")
    if not enabled:
        return ConfiguredTrace(None, f"{where} has enabled = false.")
    if not is_trusted(root):
        trust_it = f"run %deepagent trust {root} if you trust this project."
        return ConfiguredTrace(None, f"{where} waits for trust — {trust_it}", untrusted=True)
    options = {k: v for k, v in table.items() if k != "enabled"}
    return ConfiguredTrace(settings(**options, source=where))
