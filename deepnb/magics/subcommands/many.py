"""``%deepagent`` subcommands of many runs: a batch over a list of inputs (``map``) and an experiment
over a dataset (``eval``). Each is also a cell form, whose body is the template."""

from __future__ import annotations

from deepnb.magics.declaring import agent_option, argument, subcommand


@subcommand("map", handler="mapping:map_", assigns=("output",))
@argument("inputs", metavar="VAR", help="A variable holding the list of inputs (strings or dicts).")
@argument("-c", "--concurrency", metavar="N", help="How many runs go at once (default: 4).")
@agent_option
@argument("-o", "--output", metavar="OUT", help="Store the batch in this variable.")
@argument("--auto-approve", dest="auto_approve", action="store_true", help="Approve every gated call.")
@argument("--bg", action="store_true", help="Return at once (a cell form waits for the batch).")
def map_() -> None:
    """One run per input of VAR (a list); as %%deepagent map VAR, the cell body is the template."""


@subcommand("eval", handler="evaluating:eval_", assigns=("output",))
@argument(
    "dataset",
    metavar="DATASET",
    help="A variable holding the rows (or a deepnb.dataset), or a dataset file (.csv, .jsonl, .eval, ...).",
)
@argument("-a", "--agent", help="The agent the variants change (default: the current agent).")
@argument(
    "--variants", metavar="VAR", help="A variable holding the variants: a dict of label -> what changes."
)
@argument(
    "--scorer",
    action="append",
    metavar="NAME",
    help="A built-in scorer (exact, contains) or a variable holding one or a list (repeat for more).",
)
@argument("-e", "--epochs", metavar="EPOCHS", help="Runs per row and variant (default: 1).")
@argument(
    "-c",
    "--concurrency",
    metavar="N",
    help="How many runs go at once (default: 8 in this kernel; a served agent's server decides).",
)
@argument("-o", "--output", metavar="OUT", help="Store the experiment in this variable.")
@argument("--baseline", metavar="LABEL", help="The variant the others are compared with.")
@argument("--input", metavar="FIELD", help="The field each row's input comes from (a dotted path too).")
@argument(
    "--reference", metavar="FIELD", help="The field each row's reference comes from (a dotted path too)."
)
@argument("--log", metavar="PATH", help="The log to write (an existing one is resumed).")
@argument("--name", metavar="NAME", help="The experiment's name (its default log's too).")
@argument(
    "--retries",
    metavar="N",
    help="Run a run failing with an error that may pass (rate limit, timeout, 5xx) again, up to N times.",
)
@argument(
    "--cache",
    nargs="?",
    const=True,
    metavar="FOLDER",
    help="Keep every model response on disk and reuse it (alone: under .deepnb/cache; or in FOLDER).",
)
@argument(
    "--score-timeout",
    dest="score_timeout",
    metavar="SECONDS",
    help="Seconds each scorer has per run (default: 300; none: no bound).",
)
@argument("--auto-approve", dest="auto_approve", action="store_true", help="Approve every gated call.")
@argument("--bg", action="store_true", help="Return at once (else the cell waits for the experiment).")
def eval_() -> None:
    """Run DATASET by each variant and score every run (an experiment); a cell's body is the template."""
