"""``%%deepagent``'s options, declared once: the cell body is the task."""

from __future__ import annotations

from deepnb.magics.declaring import argument, cell_command

CONFLICTS = (
    ("bg", "wait", "--bg returns at once, --wait keeps the cell busy until every approval is decided"),
    ("thread", "new", "-t runs on that thread, --new starts a new one"),
    ("model", "compare", "--compare names every model the task runs on"),
    ("thread", "compare", "--compare runs each model on a new thread"),
    (
        "compare",
        "record",
        "--record writes one run: record one of a comparison's runs with run.record(PATH)",
    ),
    (
        "bg",
        "record",
        "--record writes the run when it ends: record a background run with run.record(PATH)",
    ),
    ("at", "new", "--at forks a thread at one of its steps, --new starts an empty one"),
    ("compare", "at", "--compare runs each model on a new thread of its own"),
)
"""Options that contradict each other: (dest, dest, why). (``--auto-approve`` with
``--interrupt-on`` is not one: the gated calls are approved and logged as *auto*.)"""


@cell_command(assigns=("output",), conflicts=CONFLICTS)
@argument(
    "-m",
    "--model",
    help="provider:model, scripted:PATH, demo:NAME, or a variable holding a chat model.",
)
@argument("-a", "--agent", help="Agent name (default: the current agent, 'default').")
@argument("-t", "--thread", help="Thread id to run on (default: the agent's current thread).")
@argument("--new", action="store_true", help="Start a new thread.")
@argument(
    "--at",
    metavar="STEP",
    help="Fork the thread at this step (as history and the run view number them, or a checkpoint id) "
    "and run there.",
)
@argument("--interrupt-on", dest="interrupt_on", metavar="TOOL,...", help="Ask before these tools run.")
@argument("--auto-approve", dest="auto_approve", action="store_true", help="Approve every gated call.")
@argument("--context", metavar="VAR", help="Runtime context: a variable holding a dict (its keys are shown).")
@argument("--interpreter", action="store_true", help="Give the agent the QuickJS interpreter (eval).")
@argument("--ptc", metavar="TOOL,...", help="Tools the interpreter's code may call (implies --interpreter).")
@argument("--bg", action="store_true", help="Return at once; the view keeps updating.")
@argument(
    "--wait", action="store_true", help="Keep the cell busy at approvals until every action is decided."
)
@argument("-o", "--output", metavar="VAR", help="Store the run object in this variable.")
@argument(
    "--compare",
    metavar="MODEL,MODEL,...",
    help="Run the task on each of these models at once, side by side, each on a new thread.",
)
@argument(
    "--schema",
    metavar="VAR",
    help="Answer in this structure: a variable holding a Pydantic model, dataclass, TypedDict or JSON "
    "schema (run.output is the parsed object).",
)
@argument(
    "--input",
    dest="input",
    metavar="VAR",
    help="Send the dict in this variable as the graph's input (for graphs that do not take a prompt).",
)
@argument(
    "--no-interpolate",
    dest="no_interpolate",
    action="store_true",
    help="Send {braces} in the prompt as they are.",
)
@argument(
    "--record",
    metavar="PATH",
    help="When the run ends, write it to PATH (.yaml) as a script -m scripted:PATH replays offline.",
)
@argument("--force", action="store_true", help="With --record: replace the file at PATH.")
def cell() -> None:
    """Run the cell body as a task for a deep agent."""
