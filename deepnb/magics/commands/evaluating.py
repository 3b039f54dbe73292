"""``%%deepagent eval DATASET`` (and ``%deepagent eval DATASET``): an experiment over the rows in
a kernel variable (a list, a DataFrame, a ``deepnb.dataset``) or a dataset file (``.csv``,
``.jsonl``, ``.eval``, ... or a folder saved with ``save_to_disk``), through
:func:`deepnb.many.experiment.experiment`; ``--input`` / ``--reference`` name the fields.
The cell body is the template; ``--variants VAR`` names the dict of variants and each
``--scorer`` a built-in scorer or a variable holding one (or a list of them); ``--retries N``,
``--cache [FOLDER]`` and ``--score-timeout SECONDS`` are ``retries=``, ``cache=`` and
``score_timeout=``."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.magics import waiting
from deepnb.magics.parser import whole_number
from deepnb.many import scorers as builtin
from deepnb.many.datasets import FILE_KINDS
from deepnb.many.experiment import Experiment, experiment
from deepnb.many.scoring import SCORE_TIMEOUT, scorer_name

READY_SCORERS = {"exact": builtin.exact, "contains": builtin.contains}
"""Built-in scorers a name alone can pick; the others are made with their settings."""
MADE_SCORERS = ("regex", "json_schema", "tool_called", "trajectory", "judge")


def dataset_of(name: str, namespace: Mapping[str, Any]) -> Any:
    """``DATASET``: the variable's value, or a file path."""
    if name in namespace:
        return namespace[name]
    if name.lower().endswith(FILE_KINDS) or Path(name).is_dir():
        return name
    raise DeepnbError(
        f"No variable named {name!r}: eval takes a variable holding the rows (a list, a DataFrame, "
        f"a deepnb.dataset) or a dataset file's path ({', '.join(FILE_KINDS)})."
    )


def variants_of(name: str | None, namespace: Mapping[str, Any]) -> Any:
    if name is None:
        return None
    if name not in namespace:
        raise DeepnbError(
            f"No variable named {name!r}: --variants takes a variable holding a dict of label -> variant."
        )
    return namespace[name]


def scorers_of(names: list[str] | None, namespace: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """Each ``--scorer`` by name: a variable's scorer (named as itself, a lambda as the
    variable) or list of them, else a ready built-in."""
    found: list[tuple[str, Any]] = []
    for name in names or []:
        if name in namespace:
            value = namespace[name]
            if isinstance(value, list | tuple):
                found += [(scorer_name(item) if callable(item) else "", item) for item in value]
            else:
                own = scorer_name(value) if callable(value) else name
                found.append((name if own == "<lambda>" else own, value))
        elif name in READY_SCORERS:
            found.append((name, READY_SCORERS[name]))
        elif name in MADE_SCORERS:
            raise DeepnbError(
                f"--scorer {name} needs its settings: make it in a variable, "
                f"e.g. s = deepnb.scorers.{name}(...), then --scorer s."
            )
        else:
            raise DeepnbError(
                f"No scorer {name!r}: --scorer takes {', '.join(READY_SCORERS)} "
                "or a variable holding a scorer."
            )
    return found


def retries_of(text: str | None) -> int | None:
    """``--retries N``: a whole number of at least 0 (``None``: not given), else one line."""
    if text is None:
        return None
    what = (
        "how many times a run failing with an error that may pass (a rate limit, a timeout, a 5xx) "
        "is run again"
    )
    return whole_number(text, "--retries", 0, what, least=0)


def cache_of(text: str | bool | None) -> bool | str:
    """``--cache`` alone: ``True`` (under ``.deepnb/cache``); ``--cache FOLDER``: that folder;
    not given: ``False``. A FOLDER that is a file is one line."""
    if text is None or isinstance(text, bool):
        return bool(text)
    if Path(text).expanduser().is_file():
        raise DeepnbError(
            f"--cache {text} is a file: name a folder for the model-call cache, or give --cache alone "
            "(under .deepnb/cache)."
        )
    return text


def score_timeout_of(text: str | None) -> float | None:
    """``--score-timeout SECONDS``: a positive number, or ``none`` for no bound; default 300."""
    if text is None:
        return SCORE_TIMEOUT
    if text.strip().lower() == "none":
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise DeepnbError(
            "--score-timeout takes the seconds each scorer has to score a run, a positive number "
            f"(or none for no bound), not {text!r}."
        )
    return value


def _by_name(pairs: list[tuple[str, Any]]) -> Any:
    """The scorers as a dict, or as a list where two share a name (the experiment says so)."""
    names = [name for name, _scorer in pairs]
    return dict(pairs) if len(set(names)) == len(names) else [scorer for _name, scorer in pairs]


def start_eval(args: Any, body: str, namespace: dict[str, Any]) -> Experiment:
    """Start the experiment the magic's ``args`` and cell ``body`` describe; store it in ``-o OUT``."""
    started = experiment(
        dataset_of(args.dataset, namespace),
        variants=variants_of(args.variants, namespace),
        agent=args.agent,
        scorers=_by_name(scorers_of(args.scorer, namespace)),
        epochs=whole_number(args.epochs, "-e", 1, "how many times each row runs per variant"),
        concurrency=None
        if args.concurrency is None
        else whole_number(args.concurrency, "-c", 1, "how many runs go at once"),
        template=body.strip() or None,
        name=args.name,
        log=args.log,
        baseline=args.baseline,
        auto_approve=args.auto_approve,
        input=args.input,
        reference=args.reference,
        namespace=namespace,
        retries=retries_of(args.retries),
        cache=cache_of(args.cache),
        score_timeout=score_timeout_of(args.score_timeout),
    )
    if args.output:
        namespace[args.output] = started
    return started


def eval_(args: Any, namespace: dict[str, Any]) -> Experiment:
    """``%deepagent eval DATASET``: the experiment (no template), waited for unless ``--bg``."""
    started = start_eval(args, "", namespace)
    if not args.bg:
        waiting.wait_for(started, what="experiment")
    return started
