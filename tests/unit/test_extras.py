"""deepnb's optional extras: every extra of ``pyproject.toml`` is either one deepnb's code imports
from (``deepnb.core.extras.EXTRAS``, its requirements the same as the file's) or one it never
imports; each of their modules is imported through ``require``, whose error is one line naming
the package (missing, or at a version the extra excludes: ``mcp`` 2) and the command that fixes
it; and ``mcp``'s upper bound is the one ``langchain-mcp-adapters`` itself sets."""

from __future__ import annotations

import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from deepnb.core import extras
from deepnb.core.errors import DeepnbError
from deepnb.core.extras import EXTRAS, NOT_IMPORTED, MissingExtra, require
from deepnb.models.resolve import PROVIDERS

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "deepnb"


def pyproject_extras() -> dict[str, list[str]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return dict(project["optional-dependencies"])


def normalized(requirements: list[str] | tuple[str, ...]) -> set[str]:
    return {str(Requirement(r)) for r in requirements}


def test_every_extra_of_pyproject_is_known_and_says_the_same() -> None:
    declared = pyproject_extras()
    assert set(declared) == set(EXTRAS) | set(NOT_IMPORTED), "an extra deepnb/core/extras.py does not know"
    assert not set(EXTRAS) & set(NOT_IMPORTED)
    for name, extra in EXTRAS.items():
        assert normalized(extra.requirements) == normalized(declared[name]), name


def every_module() -> list[tuple[str, str]]:
    return [(name, module) for name, extra in EXTRAS.items() for module in extra.modules]


@pytest.mark.parametrize(("extra", "module"), every_module())
def test_a_missing_package_is_one_line_naming_it_and_the_fix(
    extra: str, module: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = Requirement(EXTRAS[extra].requirements[0]).name
    real = extras._installed
    monkeypatch.setattr(extras, "_installed", lambda name: None if name == first else real(name))
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(MissingExtra) as raised:
        require(extra, module, what="This")
    said = str(raised.value)
    assert "\n" not in said
    assert said.startswith(f"This: deepnb's {extra!r} extra is needed (")
    assert f"{first} is not installed" in said
    assert said.endswith(f"run pip install 'deepnb[{extra}]', then restart the kernel.")
    assert isinstance(raised.value, DeepnbError)


@pytest.mark.parametrize(("extra", "module"), every_module())
def test_every_module_of_an_extra_is_imported_through_require(extra: str, module: str) -> None:
    """The code imports each extra's modules with ``require(extra, module, ...)``, so none of
    them fails with a bare ImportError or a message of its own (``serve``'s are looked up, not
    imported: the server runs in a process of its own)."""
    sources = "\n".join(p.read_text(encoding="utf-8") for p in PACKAGE.rglob("*.py"))
    if extra == "serve":
        assert 'EXTRAS["serve"].modules' in sources
        return
    if extra in ("openai", "anthropic"):  # a provider's package, named in the providers' table
        providers = [p for p, (package, wanted, _) in PROVIDERS.items() if wanted == extra]
        assert providers and all(PROVIDERS[p][0].replace("-", "_") == module for p in providers)
        assert 'require(extra, str(package).replace("-", "_")' in sources
        return
    called = re.compile(rf'require\((?:\s|#[^\n]*)*"{extra}",\s*"{re.escape(module)}"')
    assert called.search(sources), f"no require({extra!r}, {module!r}, ...) in deepnb/"


def test_no_other_import_error_tells_its_own_install_command() -> None:
    """An ``except ImportError`` that says ``pip install 'deepnb[...]'`` by itself would drift
    from the extras; they all go through ``deepnb.core.extras``."""
    own = re.compile(
        r"except (?:ImportError|ModuleNotFoundError)[^\n]*:\n(?:[ \t]+[^\n]*\n){0,4}?[^\n]*deepnb\["
    )
    found = [
        str(p.relative_to(ROOT))
        for p in PACKAGE.rglob("*.py")
        if p.name != "extras.py" and own.search(p.read_text(encoding="utf-8"))
    ]
    assert not found


def test_a_version_the_extra_excludes_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """mcp 2 installed beside the adapters (which cannot import it): the line names mcp's
    version and the bound, never only the adapters' failed import."""
    versions = {"mcp": "2.3.0", "langchain-mcp-adapters": "0.3.2"}  # whether installed here or not
    real = extras._installed
    monkeypatch.setattr(extras, "_installed", lambda name: versions.get(name) or real(name))
    monkeypatch.setitem(sys.modules, "langchain_mcp_adapters.client", None)
    said = (
        r"^MCP servers: deepnb's 'mcp' extra is needed \(mcp 2\.3\.0 is installed, "
        r"the extra needs <2,>=1\.24\): run pip install 'deepnb\[mcp\]', then restart the kernel\.$"
    )
    with pytest.raises(MissingExtra, match=said):
        require("mcp", "langchain_mcp_adapters.client", what="MCP servers")


def test_the_mcp_servers_path_says_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from deepnb.engine.mcp import load_tools

    monkeypatch.setitem(sys.modules, "langchain_mcp_adapters.client", None)
    with pytest.raises(MissingExtra, match=r"^MCP servers: deepnb's 'mcp' extra is needed .*deepnb\[mcp\]"):
        load_tools({"files": {"transport": "stdio", "command": "true"}})


def test_an_import_failing_with_every_package_in_place_quotes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extras, "_installed", lambda name: "1.30.0" if name == "mcp" else "0.3.2")
    monkeypatch.setitem(sys.modules, "mcp.client.stdio", None)
    said = r"\(importing it failed: ModuleNotFoundError: import of mcp\.client\.stdio halted"
    with pytest.raises(MissingExtra, match=said):
        require("mcp", "mcp.client.stdio", what="MCP servers")


def test_mcp_is_bounded_below_2_as_the_adapters_bound_it() -> None:
    ours = next(r for r in map(Requirement, EXTRAS["mcp"].requirements) if canonicalize_name(r.name) == "mcp")
    assert not ours.specifier.contains("2.0.0") and ours.specifier.contains("1.30.0")
    try:
        needs = importlib.metadata.requires("langchain-mcp-adapters") or []
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("langchain-mcp-adapters is not installed")
    theirs = next(Requirement(r) for r in needs if canonicalize_name(Requirement(r).name) == "mcp")
    for version in ("1.24.0", "1.30.0", "1.99.0", "2.0.0", "2.3.0"):
        assert ours.specifier.contains(version) == theirs.specifier.contains(version), version


def test_require_refuses_a_module_no_extra_provides() -> None:
    with pytest.raises(ValueError, match="not a module of deepnb's 'mcp' extra"):
        require("mcp", "json", what="x")
