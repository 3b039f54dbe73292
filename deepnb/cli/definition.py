"""What an experiment file defines: ``deepnb.experiment``'s keyword arguments, ``dataset``
included, read from a Python file's ``experiment()`` function or from a YAML or TOML file of the
same keys. Paths in the file (the dataset, the log) are relative to the file's folder."""

from __future__ import annotations

import importlib.util
import inspect
import sys
import tomllib
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import yaml

from deepnb.core.errors import DeepnbError
from deepnb.many import scorers as builtin
from deepnb.many.experiment import experiment
from deepnb.session import building

KINDS = (".py", ".yaml", ".yml", ".toml")
AGENT_NAME = "eval"
"""The name an agent given as options in the file is registered under."""
NO_SETTINGS = {"exact": builtin.exact, "contains": builtin.contains}
"""Built-in scorers a name alone picks."""
WITH_SETTINGS: dict[str, Callable[..., Any]] = {
    "regex": builtin.regex,
    "json_schema": builtin.json_schema,
    "tool_called": builtin.tool_called,
    "trajectory": builtin.trajectory,
    "judge": builtin.judge,
}
"""Built-in scorers made with settings: ``{name: argument}``, ``{name: [arguments]}`` or
``{name: {keyword: value}}``."""


def accepted_keys() -> list[str]:
    """The keys a file may give: ``deepnb.experiment``'s keyword arguments."""
    return [name for name in inspect.signature(experiment).parameters if name != "namespace"]


def read(path: Path) -> dict[str, Any]:
    """The experiment's arguments the file at ``path`` defines, checked: one line for the first
    problem (a missing file, a file that fails to import, an unknown key)."""
    if not path.is_file():
        raise DeepnbError(f"No experiment file {str(path)!r}: give a .py, .yaml or .toml file.")
    suffix = path.suffix.lower()
    if suffix not in KINDS:
        raise DeepnbError(
            f"{path} is a {suffix or 'file without a suffix'}: give a .py, .yaml or .toml file."
        )
    found = _from_python(path) if suffix == ".py" else _from_data(path, suffix)
    accepted = accepted_keys()
    unknown = [key for key in found if key not in accepted]
    if unknown:
        raise DeepnbError(
            f"{path} gives {', '.join(map(repr, unknown))}, which deepnb.experiment does not take: "
            f"use {', '.join(accepted)}."
        )
    if "dataset" not in found:
        raise DeepnbError(f"{path} gives no dataset: add a dataset key (a list of rows or a file path).")
    return _resolved(found, path.parent)


def _from_python(path: Path) -> dict[str, Any]:
    """Import the file as a module (the user named it: running it is what they asked) and call
    its ``experiment()``."""
    name = f"deepnb_eval_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise DeepnbError(f"{path} cannot be imported as a Python file.")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        define = getattr(module, "experiment", None)
        if not callable(define):
            raise DeepnbError(
                f"{path} has no experiment() function: define one that returns deepnb.experiment's "
                "arguments as a dict (dataset included)."
            )
        found = define()
    except DeepnbError:
        raise
    except Exception as exc:
        raise DeepnbError(f"{path} failed: {_where(exc, path)}{type(exc).__name__}: {exc}") from None
    if not isinstance(found, Mapping):
        raise DeepnbError(f"{path}: experiment() returned a {type(found).__name__}, not a dict of arguments.")
    return dict(found)


def _where(exc: BaseException, path: Path) -> str:
    """``line N: `` of the innermost frame of ``exc`` inside ``path`` (a syntax error's own line)."""
    if isinstance(exc, SyntaxError) and exc.lineno:
        return f"line {exc.lineno}: "
    where = path.resolve()
    lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename).resolve() == where]
    return f"line {lines[-1]}: " if lines else ""


def _from_data(path: Path, suffix: str) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8-sig")
    try:
        loaded = tomllib.loads(text) if suffix == ".toml" else yaml.safe_load(text)
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as exc:
        raise DeepnbError(f"{path} is not valid {suffix[1:].upper()}: {str(exc).splitlines()[0]}") from None
    if not isinstance(loaded, Mapping):
        raise DeepnbError(f"{path} holds a {type(loaded).__name__}: an experiment file is a table of keys.")
    found = dict(loaded)
    if "scorers" in found:
        found["scorers"] = scorers_from(found["scorers"])
    return found


def scorers_from(entries: Any) -> dict[str, Any]:
    """The scorers a data file names: ``exact``, ``contains``, or ``{regex: "^a"}``,
    ``{tool_called: "write_todos"}``, ``{judge: {model: ..., prompt: ...}}`` (a mapping's values
    are keyword arguments, a list positional ones, anything else the one argument)."""
    if isinstance(entries, str | Mapping):
        entries = [entries]
    if not isinstance(entries, list):
        raise DeepnbError("scorers is a list: names (exact, contains) or {name: settings} tables.")
    found: dict[str, Any] = {}
    for entry in entries:
        items = (
            [(entry, None)]
            if isinstance(entry, str)
            else list(entry.items())
            if isinstance(entry, Mapping)
            else []
        )
        if not items:
            raise DeepnbError(f"A scorer is a name or a {{name: settings}} table, not {entry!r}.")
        for name, settings in items:
            scorer = _scorer(str(name), settings)
            found[str(getattr(scorer, "name", None) or name)] = scorer
    return found


def _scorer(name: str, settings: Any) -> Any:
    if name in NO_SETTINGS and settings is None:
        return NO_SETTINGS[name]
    make = WITH_SETTINGS.get(name)
    if make is None:
        raise DeepnbError(
            f"No scorer {name!r}: a file names {', '.join(NO_SETTINGS)} alone, or "
            f"{', '.join(WITH_SETTINGS)} with their settings (or define scorers in a .py file)."
        )
    if settings is None:
        raise DeepnbError(f"The scorer {name} needs its settings: {{{name}: ...}}.")
    if isinstance(settings, Mapping):
        return make(**settings)
    if isinstance(settings, list):
        return make(*settings)
    return make(settings)


def _resolved(found: dict[str, Any], folder: Path) -> dict[str, Any]:
    """Paths relative to the file's folder; a dataset or log given as a path stays a path."""
    dataset = found["dataset"]
    if isinstance(dataset, str) and "\n" not in dataset and (folder / dataset).exists():
        found["dataset"] = str(folder / dataset)
    if isinstance(found.get("log"), str):
        found["log"] = str(folder / found["log"])
    return found


def with_agent(found: dict[str, Any]) -> dict[str, Any]:
    """An ``agent`` given as a table of ``deepnb.agent`` options (``model``, ``system_prompt``, ...)
    built and registered as ``eval``; a name stays a name (a ``deepnb.toml`` agent, say)."""
    options = found.get("agent")
    if isinstance(options, Mapping):
        building.agent(AGENT_NAME, options.get("model"), **{k: v for k, v in options.items() if k != "model"})
        return {**found, "agent": AGENT_NAME}
    return found
