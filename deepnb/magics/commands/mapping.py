"""``%%deepagent map VAR`` (and ``%deepagent map VAR``): one run per input of the list in ``VAR``,
through :meth:`deepnb.session.protocol.Session.map`. The cell body is the template (``{field}`` per record,
``{input}`` for a string input); with no body, a string is the prompt and a dict the graph's input."""

from __future__ import annotations

from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.magics.commands.cell import workbench_for
from deepnb.magics.parser import whole_number
from deepnb.many.batch import Batch


def start_map(args: Any, body: str, namespace: dict[str, Any]) -> Batch:
    """Start the batch the magic's ``args`` and cell ``body`` describe; store it in ``-o OUT``."""
    if args.inputs not in namespace:
        raise DeepnbError(
            f"No variable named {args.inputs!r}: map takes a variable that holds a list of inputs "
            "(strings or dicts)."
        )
    concurrency = whole_number(args.concurrency, "-c", 4, "how many runs go at once")
    template = body.strip() or None
    workbench = workbench_for(args.agent, None, {}, namespace)
    batch = workbench.map(
        namespace[args.inputs], concurrency=concurrency, template=template, auto_approve=args.auto_approve
    )
    if args.output:
        namespace[args.output] = batch
    return batch


def map_(args: Any, namespace: dict[str, Any]) -> Batch:
    """``%deepagent map VAR``: the batch started in the background (no template)."""
    return start_map(args, "", namespace)
