"""Write the demo notebooks from their cell sources, then execute them so saved outputs are real.

python scripts/build_notebooks.py            # all notebooks
python scripts/build_notebooks.py quickstart
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
CHECK = "# NBVAL_CHECK_OUTPUT\n"


def quickstart() -> list:
    return [
        new_markdown_cell(
            "# deepnb quickstart\n\n"
            "deepnb runs [Deep Agents](https://github.com/langchain-ai/deepagents) inside the notebook "
            "and shows them live: the agent's **todo list**, a **card for every tool call**, the "
            "transcript and a progress line. This notebook uses `demo:quickstart`, a replay script "
            "shipped with deepnb, so it runs offline with no API key.\n\n"
            "Load the extension first. It registers the `%deepagent` magics and nothing else: the "
            "agent libraries load when the first agent runs."
        ),
        new_code_cell("%load_ext deepnb"),
        new_markdown_cell(
            "A `%%deepagent` cell sends its body to an agent as a task. `-m` picks the model "
            "(here the offline demo; `-m openai:gpt-5.5` or any `provider:model` works the same way "
            "with a key in the environment), and `-o run` keeps the run object in `run`.\n\n"
            "While it runs, the view streams the agent's text, shows each tool call as it starts and "
            "finishes (click a card for its arguments and result), and ticks the todo list off. "
            "**Stop** cancels the run; the thread keeps everything up to the last step."
        ),
        new_code_cell(
            "%%deepagent -m demo:quickstart -o run\n"
            "Write me a short brief on life in tide pools. Keep notes in a file as you go."
        ),
        new_markdown_cell(
            "The run object holds what happened: its status, the final answer, the todo list and "
            "the files the agent wrote into its (virtual) filesystem."
        ),
        new_code_cell(CHECK + "run.status, len(run.todos), run.todos[-1]"),
        new_code_cell(CHECK + 'print(run.files["/notes/stresses.md"])'),
        new_markdown_cell(
            "Runs go to the agent's current thread, so a follow-up cell continues the same "
            "conversation; `--new` starts a fresh thread and `-t ID` picks one. `{name}` in a cell "
            "inserts a variable from the notebook."
        ),
        new_code_cell('topic = "tide pools"'),
        new_code_cell("%%deepagent --new -o second\nWrite me a short brief on life in {topic}."),
        new_code_cell(CHECK + "second.prompt, second.thread_id != run.thread_id"),
        new_code_cell("%deepagent threads"),
        new_markdown_cell(
            "Everything works without magics too: `deepnb.agent(...)` takes `create_deep_agent`'s "
            "keyword arguments (tools, subagents, `interrupt_on`, a backend, …) and returns a "
            "workbench you can run from Python."
        ),
        new_code_cell(
            CHECK + "import deepnb\n\n"
            'bench = deepnb.agent("notes", model="demo:quickstart")\n'
            'result = bench.run("Write me a short brief on life in tide pools.")\n'
            "result.status, result.todos[0]"
        ),
        new_markdown_cell(
            "Next: try `%deepagent help`, or point `-m` at a real model such as "
            "`anthropic:claude-sonnet-4-6` once `ANTHROPIC_API_KEY` is set."
        ),
    ]


BUILDERS = {"quickstart": quickstart}


def build(name: str) -> Path:
    notebook = new_notebook(cells=BUILDERS[name]())
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.metadata["language_info"] = {"name": "python"}
    NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    ).execute()
    path = NOTEBOOKS / f"{name}.ipynb"
    nbformat.write(notebook, path)
    return path


if __name__ == "__main__":
    for name in sys.argv[1:] or list(BUILDERS):
        print("wrote", build(name))
