"""deepnb's optional extras (``pip install 'deepnb[mcp]'``) and the one way their packages are
imported: :func:`require` imports a module an extra provides, and when that fails — the package
is missing, or a version the extra excludes is installed (``mcp`` 2, which the adapters cannot
import) — raises one line naming the package, what is installed, and the command that fixes it.

``EXTRAS`` repeats ``[project.optional-dependencies]`` of ``pyproject.toml`` for the extras
deepnb's code imports; ``tests/unit/test_extras.py`` checks the two agree, extra by extra.
"""

from __future__ import annotations

import importlib
import importlib.metadata
from dataclasses import dataclass
from types import ModuleType

from deepnb.core.errors import DeepnbError

__all__ = ["EXTRAS", "NOT_IMPORTED", "Extra", "MissingExtra", "install_command", "require"]


@dataclass(frozen=True)
class Extra:
    """One extra: its requirements, as ``pyproject.toml`` writes them, and the modules of them
    deepnb imports."""

    name: str
    requirements: tuple[str, ...]
    modules: tuple[str, ...]


EXTRAS: dict[str, Extra] = {
    extra.name: extra
    for extra in (
        Extra("openai", ("langchain-openai>=1.0",), ("langchain_openai",)),
        Extra("anthropic", ("langchain-anthropic>=1.7.6",), ("langchain_anthropic",)),
        Extra("interpreter", ("langchain-quickjs>=0.3.10",), ("langchain_quickjs", "quickjs_rs")),
        Extra(
            "postgres",
            ("langgraph-checkpoint-postgres>=3.0.3", "psycopg[binary,pool]>=3.2.1"),
            ("langgraph.checkpoint.postgres.aio", "psycopg"),
        ),
        Extra(
            "mcp",
            ("langchain-mcp-adapters>=0.3", "mcp>=1.24,<2"),
            ("langchain_mcp_adapters.client", "mcp.client.stdio"),
        ),
        Extra("parquet", ("pyarrow>=26", "numpy>=2"), ("pyarrow", "pyarrow.parquet", "pyarrow.ipc")),
        Extra("serve", ("langgraph-cli[inmem]>=0.4.40,<0.5",), ("langgraph_cli", "langgraph_api")),
        Extra(
            "trace",
            (
                "opentelemetry-sdk>=1.45.2",
                "opentelemetry-exporter-otlp-proto-http>=1.45.2",
                "openinference-instrumentation-langchain>=0.1.80",
            ),
            (
                "opentelemetry.sdk.trace",
                "opentelemetry.exporter.otlp.proto.http.trace_exporter",
                "openinference.instrumentation.langchain",
            ),
        ),
    )
}
"""The extras deepnb's code imports from, by name."""

NOT_IMPORTED = {
    "lab": "JupyterLab and the demo notebooks' packages: installed beside deepnb, never imported by it",
    "docs": "the documentation site's build",
    "test": "the test suite's tools",
}
"""The other extras of ``pyproject.toml``, and why no code of deepnb imports them."""


class MissingExtra(DeepnbError):
    """An extra's package is missing or at a version the extra excludes."""

    def __init__(self, extra: str, message: str) -> None:
        super().__init__(message)
        self.extra = extra


def install_command(extra: str) -> str:
    """The command that installs ``extra``: ``pip install 'deepnb[mcp]'``."""
    return f"pip install 'deepnb[{extra}]'"


def _installed(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def problems(extra: str) -> list[str]:
    """What is wrong with the installed packages of ``extra``: each requirement missing or
    installed at a version it excludes (``[]``: every one is as the extra wants)."""
    try:  # packaging comes with langchain-core; without it, the import's own error is said
        from packaging.requirements import Requirement  # noqa: PLC0415  # lazy: only when an import failed
    except ImportError:  # pragma: no cover
        return []
    found = []
    for written in EXTRAS[extra].requirements:
        requirement = Requirement(written)  # each parses: tests/unit/test_extras.py
        version = _installed(requirement.name)
        if version is None:
            found.append(f"{requirement.name} is not installed")
        elif requirement.specifier and not requirement.specifier.contains(version, prereleases=True):
            needs = requirement.specifier
            found.append(f"{requirement.name} {version} is installed, the extra needs {needs}")
    return found


def require(extra: str, module: str, *, what: str) -> ModuleType:
    """Import ``module`` of ``extra``; if that fails, raise :class:`MissingExtra` in one line:
    ``what`` (``"MCP servers"``) needs the extra, which package is missing or at a wrong
    version, and the command that fixes it."""
    if extra not in EXTRAS or module not in EXTRAS[extra].modules:
        raise ValueError(f"{module!r} is not a module of deepnb's {extra!r} extra")  # a bug of deepnb's
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtra(extra, message(extra, what=what, error=exc)) from None


def message(extra: str, *, what: str, error: BaseException | None = None) -> str:
    """The one line :func:`require` raises: ``"MCP servers: deepnb's 'mcp' extra is needed (mcp
    2.3.0 is installed, the extra needs <2,>=1.24): run pip install 'deepnb[mcp]', then restart
    the kernel."``"""
    wrong = problems(extra)
    if wrong:
        why = "; ".join(wrong)
    else:  # every package is there at a version the extra allows: say what the import said
        said = str(error).splitlines()[0] if error is not None and str(error).strip() else ""
        kind = type(error).__name__ if error is not None else "ImportError"
        why = f"importing it failed: {kind}: {said}" if said else f"importing it failed: {kind}"
    fix = install_command(extra)
    return f"{what}: deepnb's {extra!r} extra is needed ({why}): run {fix}, then restart the kernel."
