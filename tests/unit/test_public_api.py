"""``deepnb``'s public API is the documented one: every name in ``__all__`` resolves to the object
the docs describe, with no import of a submodule first, and ``import deepnb`` stays light."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import uuid
from importlib import metadata, resources
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import deepnb

ROOT = Path(__file__).resolve().parents[2]
# Libraries `import deepnb` must not load: they take seconds, and most cells never need them.
AGENT_LIBRARIES = (
    "deepagents",
    "langchain",
    "langchain_core",
    "langgraph",
    "langgraph_sdk",
    "anywidget",
    "ipywidgets",
)
# Documented names whose module is light: using them loads no agent library either.
LIGHT_NAMES = ("DeepnbError", "Files", "extensions", "agent", "attach", "get")


def fresh_python(code: str) -> Any:
    """Run ``code`` in a new interpreter (nothing of deepnb imported yet) from the repository root;
    return the JSON it prints last."""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def readme_usages() -> list[str]:
    """Every ``deepnb.X[.Y]`` the README and the documentation pages write (``deepnb.toml`` is a
    file, not an attribute)."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    text = "\n".join(page.read_text(encoding="utf-8") for page in pages)
    # "::: deepnb.session.run.Run" is the API reference's directive (the strict build checks it)
    text = re.sub(r"^::: .*$", "", text, flags=re.MULTILINE)
    found = re.findall(r"\bdeepnb\.(?!toml\b)([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)", text)
    return sorted(set(found))


def test_every_name_in_all_resolves_in_a_fresh_interpreter() -> None:
    code = (
        "import json, deepnb\n"
        "print(json.dumps({name: type(getattr(deepnb, name)).__name__ for name in deepnb.__all__}))\n"
    )
    kinds = fresh_python(code)
    assert sorted(kinds) == sorted(deepnb.__all__)
    assert kinds["extensions"] == kinds["models"] == "module"
    assert kinds["__version__"] == "str"


def test_names_are_the_documented_objects() -> None:
    from deepnb import extensions, models
    from deepnb.core import errors
    from deepnb.many import batch
    from deepnb.models import scripted
    from deepnb.session import local, run
    from deepnb.session.files import files

    assert deepnb.Run is run.Run
    assert deepnb.Batch is batch.Batch
    assert deepnb.Workbench is local.Workbench
    assert deepnb.Files is files.Files
    assert deepnb.DeepnbError is errors.DeepnbError
    assert deepnb.ScriptedChatModel is scripted.ScriptedChatModel
    assert deepnb.extensions is extensions and isinstance(deepnb.extensions, ModuleType)
    assert deepnb.models is models
    assert deepnb.__version__ == metadata.version("deepnb")


def test_the_functions_build_register_and_find_a_workbench() -> None:
    name = f"api-{uuid.uuid4().hex[:8]}"
    bench = deepnb.agent(name, "demo:quickstart")
    assert isinstance(bench, deepnb.Workbench)
    assert deepnb.get(name) is bench
    attached = deepnb.attach(bench.graph, f"{name}-attached")
    assert isinstance(attached, deepnb.Workbench) and deepnb.get(f"{name}-attached") is attached
    with pytest.raises(deepnb.DeepnbError):
        deepnb.get(f"{name}-missing")


def test_dir_lists_every_public_name_before_it_is_loaded() -> None:
    listed = fresh_python("import json, deepnb\nprint(json.dumps(dir(deepnb)))\n")
    assert set(deepnb.__all__) <= set(listed)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="module 'deepnb' has no attribute 'no_such_name'"):
        deepnb.no_such_name  # noqa: B018 - the access is the test
    assert not hasattr(deepnb, "no_such_name")


def test_star_import_gives_every_public_name() -> None:
    code = "import json\nfrom deepnb import *\nprint(json.dumps(sorted(k for k in dir() if k != 'json')))\n"
    names = set(fresh_python(code))
    assert set(deepnb.__all__) - {"__version__"} <= names


def test_import_deepnb_loads_no_agent_library() -> None:
    code = (
        "import json, sys\n"
        "import deepnb\n"
        f"heavy = {AGENT_LIBRARIES!r}\n"
        "before = [m for m in heavy if m in sys.modules]\n"
        "dir(deepnb)\n"
        f"for name in {LIGHT_NAMES!r}:\n"
        "    getattr(deepnb, name)\n"
        "after = [m for m in heavy if m in sys.modules]\n"
        "print(json.dumps([before, after]))\n"
    )
    before, after = fresh_python(code)
    assert before == []
    assert after == []


def test_every_deepnb_attribute_the_docs_use_resolves_without_an_import() -> None:
    usages = readme_usages()
    # The Python pages name these; the regex must keep finding them.
    assert {"agent", "attach", "get", "extensions", "extensions.load"} <= set(usages)
    # "deepnb.extensions.load(path), .listing() and .shutdown()" — the last two share the prefix.
    usages += ["extensions.listing", "extensions.shutdown"]
    code = (
        "import json, deepnb\n"
        "missing = []\n"
        f"for dotted in {usages!r}:\n"
        "    target = deepnb\n"
        "    try:\n"
        "        for part in dotted.split('.'):\n"
        "            target = getattr(target, part)\n"
        "    except AttributeError as exc:\n"
        "        missing.append(f'deepnb.{dotted}: {exc}')\n"
        "print(json.dumps(missing))\n"
    )
    assert fresh_python(code) == []


def test_the_package_is_marked_typed() -> None:
    assert (resources.files("deepnb") / "py.typed").is_file()
