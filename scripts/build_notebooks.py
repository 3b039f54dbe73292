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
        new_code_cell("run.status, len(run.todos), run.todos[-1]"),
        new_code_cell('print(run.files["/notes/stresses.md"])'),
        new_markdown_cell(
            "Runs go to the agent's current thread, so a follow-up cell continues the same "
            "conversation; `--new` starts a fresh thread and `-t ID` picks one. `{name}` in a cell "
            "inserts a variable from the notebook."
        ),
        new_code_cell('topic = "tide pools"'),
        new_code_cell("%%deepagent --new -o second\nWrite me a short brief on life in {topic}."),
        new_code_cell("second.prompt, second.thread_id != run.thread_id"),
        new_code_cell("%deepagent threads"),
        new_markdown_cell(
            "Everything works without magics too: `deepnb.agent(...)` takes `create_deep_agent`'s "
            "keyword arguments (tools, subagents, `interrupt_on`, a backend, …) and returns a "
            "workbench you can run from Python."
        ),
        new_code_cell(
            "import deepnb\n\n"
            'bench = deepnb.agent("notes", model="demo:quickstart")\n'
            'result = bench.run("Write me a short brief on life in tide pools.")\n'
            "result.status, result.todos[0]"
        ),
        new_markdown_cell(
            "Next: try `%deepagent help`, or point `-m` at a real model such as "
            "`anthropic:claude-sonnet-4-6` once `ANTHROPIC_API_KEY` is set."
        ),
    ]


def approvals() -> list:
    return [
        new_markdown_cell(
            "# Approvals: steer the agent before it acts\n\n"
            "With `--interrupt-on`, the agent stops before the named tools run and asks you. "
            "Each request shows as a card: which agent asked (the main agent, or a subagent), "
            "the arguments, and what would happen — the content a `write_file` writes, the diff "
            "an `edit_file` makes. Only the decisions the tool allows appear: **Approve**, "
            "**Edit** the arguments, **Reject** with a reason, or **Respond** in the tool's place.\n\n"
            "This notebook uses `demo:approvals`, an offline replay: the agent drafts a plan, two "
            "helpers write files in parallel (each stops inside its own subagent), and the agent "
            "links them from the plan."
        ),
        new_code_cell("%load_ext deepnb"),
        new_markdown_cell(
            "The cell ends when the agent stops for approval (the view says *waiting for your "
            "approval*). Click a card to decide — the run resumes in the background and the same "
            "view goes on streaming. Add `--wait` to keep the cell busy at the cards instead, so "
            "*Run All* pauses there like it would at `input()`."
        ),
        new_code_cell(
            "%%deepagent -m demo:approvals --interrupt-on write_file,edit_file -o run\n"
            "Plan our product launch.",
            # Later cells decide the approvals and the run ends there, updating this output;
            # nbval compares a cell's output when the cell ends, so it would see the first pause.
            metadata={"tags": ["nbval-ignore-output"]},
        ),
        new_markdown_cell(
            "Every card is also a Python object in `run.pending`, with `approve()`, "
            "`edit(args)`, `reject(message)` and `respond(message)`. Here the plan is edited "
            "before it is written (sign-ups move to Wednesday):"
        ),
        new_code_cell("run.status, [(p.name, p.agent) for p in run.pending]"),
        new_code_cell(
            'steps = ["# Launch plan", "1. Announce on Monday", "2. Open sign-ups on Wednesday",\n'
            '         "3. Review feedback on Friday"]\n'
            'run.pending[0].edit({"file_path": "/plan.md", "content": "\\n".join(steps) + "\\n"})\n'
            "run.wait()\n"
            'sorted((p.agent, p.args["file_path"]) for p in run.pending)'
        ),
        new_markdown_cell(
            "Two subagents stopped at once, each with its own card; deciding one resumes that "
            "subagent while the other keeps waiting. One is approved, the other rejected with a reason:"
        ),
        new_code_cell(
            'announce, risks = sorted(run.pending, key=lambda p: p.args["file_path"])\n'
            "announce.approve()\n"
            'risks.reject("We track risks in the team tracker.")\n'
            "run.wait()\n"
            "[(p.name, p.agent) for p in run.pending]"
        ),
        new_code_cell("run.pending[0].approve()\nrun.wait()\nrun.status, sorted(run.files)"),
        new_markdown_cell(
            "The decision log keeps what was decided, when, and whether a rule made the decision; "
            "it is also in the saved notebook's static snapshot."
        ),
        new_code_cell('[(d["tool"], d["type"], d["message"]) for d in run.decisions]'),
        new_markdown_cell(
            "`--auto-approve` approves everything in a run (each listed in the log as *auto*), and "
            "a card's *Always approve* button does it for one tool on this thread. With a "
            "`sqlite:` checkpointer, pending approvals survive a kernel restart: "
            "`%deepagent approvals -t THREAD` brings the cards back."
        ),
        new_code_cell(
            "%%deepagent -m demo:approvals --interrupt-on write_file,edit_file --auto-approve --new -o auto\n"
            "Plan our product launch."
        ),
        new_code_cell('auto.status, len(auto.decisions), all(d["auto"] for d in auto.decisions)'),
    ]


def research() -> list:
    return [
        new_markdown_cell(
            "# Research with subagents, and context that summarizes itself\n\n"
            "A deep agent hands work to **subagents**: each `task` call starts one, with its own "
            "context, tools and transcript, and several can run at once. Over a long task the agent's "
            "context also fills up, and Deep Agents **summarizes** the older messages, saving them to "
            "a history file first.\n\n"
            "This notebook uses `demo:research`, an offline replay: the agent plans a report, sends "
            "three researchers out in parallel, reads their notes back and writes the report. Its "
            "model reports a small context window, so reading the long notes makes it summarize "
            "mid-run."
        ),
        new_code_cell("%load_ext deepnb"),
        new_markdown_cell(
            "While the cell runs, the **Subagents** panel shows a card per researcher, side by side: "
            "its status, how long it has run, its tool calls and tokens, and what it is doing now. "
            "Click a card to see that subagent's own transcript; the *show subagent* button on a "
            "`task` card jumps to it. The **Context summarized** card in the transcript says how "
            "many messages were folded into the summary and how the context shrank; *Open history "
            "file* shows what was saved."
        ),
        new_code_cell(
            "%%deepagent -m demo:research -o run\n"
            "Write a short report on how coral reefs recover after bleaching."
        ),
        new_markdown_cell(
            "`run.tree` is the same tree as Python objects: the main agent at the root, a node per "
            "`task` call below it (nested when a subagent delegates further), each with `name`, "
            "`status`, `children`, `result`, `tool_calls` and token counts."
        ),
        new_code_cell("[(node.label, node.status, node.tool_calls) for node in run.tree.children]"),
        new_code_cell('print(run.tree.find("main/general-purpose#2").result)'),
        new_markdown_cell(
            "`run.summaries` lists each summarization: the agent it happened in, how many messages it "
            "summarized, the model's input tokens on the calls either side of it, the summary the "
            "agent goes on with, and where the older messages were saved."
        ),
        new_code_cell(
            "summary = run.summaries[0]\n"
            "summary.agent, summary.messages, summary.tokens_before > summary.tokens_after"
        ),
        new_code_cell("print(summary.text)"),
        new_markdown_cell(
            "The history file lives in the agent's filesystem, so the agent can read it back if it "
            "needs a detail the summary dropped:"
        ),
        new_code_cell('history = run.files[summary.file_path]\nprint("\\n".join(history.splitlines()[2:4]))'),
        new_markdown_cell(
            "`%deepagent tree` shows the tree of a thread's latest run; after a kernel restart it "
            "reads the `task` calls back from the thread."
        ),
        new_code_cell("%deepagent tree"),
    ]


def files() -> list:
    return [
        new_markdown_cell(
            "# The agent's files: browse, search, edit, pull into Python\n\n"
            "A deep agent keeps its plan, notes and drafts in a filesystem. deepnb makes it notebook "
            "state: `run.files` is a mapping of path → text over whatever backend the agent uses (its "
            "thread's state by default, a folder on disk, a LangGraph store, or routes of a composite), "
            "and `%deepagent files` opens a browser over it. This notebook runs offline on "
            "`demo:quickstart`."
        ),
        new_code_cell("%load_ext deepnb"),
        new_code_cell("%%deepagent -m demo:quickstart -o run\nWrite me a short brief on life in tide pools."),
        new_markdown_cell(
            "`%deepagent files` shows the thread's files: click a folder to open it, a file to view it "
            "(Markdown rendered, code highlighted, CSV as a table, images inline), **Edit** to change "
            "it, **Download** to save it, and the search box for `glob` patterns or text (`grep`). "
            "*Changed in this run* lists what the run did, as diffs. Saved without a kernel, the "
            "output keeps a short listing."
        ),
        new_code_cell("%deepagent files"),
        new_markdown_cell("The same from Python:"),
        new_code_cell('files = run.files\nsorted(files), [e.path for e in files.ls("/")]'),
        new_code_cell('[(m.path, m.line, m.text) for m in files.grep("Barnacles")]'),
        new_code_cell("[(c.path, c.kind) for c in run.changes()]"),
        new_markdown_cell(
            "Edits from the notebook are checkpoints of the thread, so the agent sees them on its next "
            "turn. `pull` copies everything into a local folder."
        ),
        new_code_cell(
            'files.edit("/notes/stresses.md", "Waves: strong, repeated force", "Waves: strong, '
            'repeated force (storms double it)")\n'
            'print(files.read("/notes/stresses.md", limit=2))'
        ),
        new_code_cell("import tempfile\n[p.name for p in files.pull(tempfile.mkdtemp())]"),
        new_markdown_cell(
            "## Other backends, memory and permissions\n\n"
            "Here the agent's filesystem is a composite: the thread's state, with a LangGraph store "
            "mounted at `/memories/` (it outlives threads). Its `AGENTS.md` memory is loaded once per "
            "thread; editing it from the notebook reloads it for the next turn. And a permission rule "
            "makes `/notes/` read-only, for the notebook too."
        ),
        new_code_cell(
            "import deepnb\n"
            "from deepagents import FilesystemPermission\n"
            "from deepagents.backends import CompositeBackend, StateBackend, StoreBackend\n"
            "from langgraph.store.memory import InMemoryStore\n\n"
            "store = InMemoryStore()\n"
            "backend = CompositeBackend(\n"
            "    default=StateBackend(),\n"
            '    routes={"/memories/": StoreBackend(namespace=lambda _rt: ("memories",), store=store)},\n'
            ")\n"
            "keeper = deepnb.agent(\n"
            '    "keeper", "demo:quickstart", backend=backend, memory=["/memories/AGENTS.md"],\n'
            "    permissions=[\n"
            '        FilesystemPermission(operations=["write"], paths=["/notes/**"], mode="deny"),\n'
            "    ],\n"
            ")\n"
            'mine = keeper.files()\nmine.write("/memories/AGENTS.md", "Keep briefs under 200 words.")\n'
            '[(e.path, e.mount) for e in mine.ls("/")]'
        ),
        new_code_cell(
            "try:\n"
            '    mine.write("/notes/draft.md", "x")\n'
            "except PermissionError as refused:\n"
            "    print(refused)"
        ),
        new_code_cell(
            'keeper.run("Write me a short brief on life in tide pools.")\n'
            'keeper.state_values(keeper.current_thread)["memory_contents"]'
        ),
        new_code_cell(
            'mine.edit("/memories/AGENTS.md", "200 words", "150 words")\n'
            'keeper.state_values(keeper.current_thread)["memory_contents"]'
        ),
    ]


def interpreter() -> list:
    return [
        new_markdown_cell(
            "# The interpreter: code instead of context\n\n"
            "With `--interpreter`, the agent gets an `eval` tool backed by a QuickJS sandbox "
            "([langchain-quickjs](https://pypi.org/project/langchain-quickjs/)). It can keep working "
            "data in JavaScript variables instead of its context, and with `--ptc TOOLS` its code can "
            "call those tools directly. Each `eval` shows as a card: the code, what it printed, and "
            "its result or error. This notebook uses `demo:interpreter`, offline."
        ),
        new_code_cell("%load_ext deepnb"),
        new_code_cell(
            "%%deepagent -m demo:interpreter --ptc write_file -o run\n"
            "Which of our three stations has the widest tidal range?"
        ),
        new_markdown_cell(
            "The second `eval` failed (`range` wasn't computed yet) and the agent fixed it in the "
            "third, which also saved a file by calling `write_file` from its code:"
        ),
        new_code_cell(
            'cards = [item["eval"] for item in run.state.items if item.get("eval")]\n'
            '[(c["result"] or c["error_type"]) for c in cards]'
        ),
        new_code_cell('print(run.files["/tides/ranges.json"])'),
        new_markdown_cell(
            "The interpreter's state outlives the turn: deepnb reads the thread's saved REPL snapshot "
            "into a fresh runtime, so its globals come back as Python values. `%deepagent repl` shows "
            "them; `%deepagent js CODE` evaluates against a copy — the thread is not changed."
        ),
        new_code_cell("run.interpreter.globals()"),
        new_code_cell("%deepagent repl"),
        new_code_cell("%deepagent js readings.filter((r) => r.range > 1.85).map((r) => r.station)"),
    ]


def models() -> list:
    failing = {"tags": ["raises-exception"]}  # without a key, these cells say what to do
    return [
        new_markdown_cell(
            "# Bring your own model\n\n"
            "The other notebooks replay scripts offline. `-m` takes any `provider:model` that "
            "LangChain's `init_chat_model` accepts, with the key read from the environment: "
            "`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `GOOGLE_API_KEY`, … Set it in the shell that starts "
            "Jupyter, or in the notebook without echoing it:\n\n"
            "```python\nimport getpass, os\n"
            'os.environ["OPENAI_API_KEY"] = getpass.getpass("OpenAI key: ")\n```\n\n'
            "(Avoid `%env NAME=value`: it prints the value into the notebook.) deepnb never shows a "
            "key: the values of `*_KEY` / `*_TOKEN` variables and key-shaped strings are replaced by "
            "`[redacted]` in everything it displays or saves."
        ),
        new_code_cell("%load_ext deepnb"),
        new_code_cell(
            "import os\n\n"
            'keys = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY")\n'
            "{name: bool(os.environ.get(name)) for name in keys}"
        ),
        new_markdown_cell(
            "With a key, the next cells run a real model (the run view is the same as with the demos). "
            "Without one — or without the provider's package — deepnb answers with one line saying "
            "what to install or set, and nothing else changes."
        ),
        new_code_cell(
            "%%deepagent -a gpt -m openai:gpt-5.5 -o real\nIn two sentences: why do tide pools matter?",
            metadata=failing,
        ),
        new_code_cell(
            "%%deepagent -a claude -m anthropic:claude-sonnet-4-6 -o real\n"
            "In two sentences: why do tide pools matter?",
            metadata=failing,
        ),
        new_markdown_cell(
            "## A model object\n\n"
            "`-m NAME` also takes the name of a variable holding any LangChain chat model — a local "
            'one, one with custom settings (`init_chat_model("openai:gpt-5.5", temperature=0)`), or '
            "a scripted one like this, which answers offline:"
        ),
        new_code_cell(
            "from deepnb.models.scripted import ScriptedChatModel, parse_script\n\n"
            "my_model = ScriptedChatModel(\n"
            '    script=parse_script({"agents": {"main": ["A model object from the notebook answered."]}})\n'
            ")"
        ),
        new_code_cell("%%deepagent -a mine -m my_model -o mine\nWho is answering?"),
        new_code_cell("mine.result"),
        new_markdown_cell(
            "## Replay scripts\n\n"
            "`scripted:PATH` replays a YAML script: per agent, the turns to play (text and tool calls), "
            "so a notebook can be shared and re-run without a key. `DEEPNB_MODEL` sets the model a "
            "cell uses when it has no `-m`."
        ),
        new_code_cell(
            "import tempfile\n"
            "from pathlib import Path\n\n"
            'script = Path(tempfile.mkdtemp()) / "my_script.yaml"\n'
            'script.write_text("""\n'
            "agents:\n"
            "  main:\n"
            "    - text: Writing it down.\n"
            "      tool_calls:\n"
            "        - name: write_file\n"
            "          args: {file_path: /answer.md, content: Tide pools are nurseries.}\n"
            "    - text: Saved in /answer.md.\n"
            '""")\n'
            'os.environ["DEEPNB_MODEL"] = f"scripted:{script}"  # the model of cells without -m'
        ),
        new_code_cell("%%deepagent -a replay -o replayed\nWhy do tide pools matter?"),
        new_code_cell('replayed.result, replayed.files["/answer.md"]'),
        new_markdown_cell(
            "## Secrets stay out\n\n"
            "Here a (fake) key is in the environment, and the model repeats it; the view, the saved "
            "output and the run object's text show `[redacted]` instead."
        ),
        new_code_cell(
            'os.environ["DEMO_SERVICE_API_KEY"] = "demo-secret-value-0042"\n'
            "leaky = ScriptedChatModel(\n"
            '    script=parse_script({"agents": {"main": ["The key is demo-secret-value-0042, keep it."]}})\n'
            ")"
        ),
        new_code_cell("%%deepagent -a leaky -m leaky -o leaked\nWhat is the key?"),
        new_code_cell('leaked.state.items[-1]["text"]'),
    ]


EXTENSION = """\
from pathlib import Path

from deepagents.backends import FilesystemBackend

HIGH_TIDES = {"Monterey": 1.62, "Santa Cruz": 1.71, "Half Moon Bay": 1.80}


async def extension(d):
    def tide_height(station: str) -> str:
        \"\"\"Today's high tide at a station, in metres.\"\"\"
        return f"{station}: high tide {HIGH_TIDES[station]:.2f} m"

    d.register_tool(tide_height)
    scratch = Path(__file__).parent / "scratch"  # beside this file
    scratch.mkdir(exist_ok=True)
    d.register_backend_route("/scratch/", FilesystemBackend(root_dir=scratch, virtual_mode=True))
    d.on_shutdown(lambda: print("tide_tools: closed"))
"""


def extensions() -> list:
    return [
        new_markdown_cell(
            "# Extensions: share tools, middleware and storage across notebooks\n\n"
            "An extension is a Python file with `async def extension(d)` — the same shape as Deep "
            "Agents Code's, so one written for it loads here unchanged. Through `d` it registers tools "
            "(`d.register_tool`), middleware (`d.register_middleware`), storage mounted into the "
            "agent's filesystem (`d.register_backend_route(prefix, backend)`), and clean-up "
            "(`d.on_shutdown`). This notebook writes one, loads it, and runs `demo:extensions` "
            "(offline), which uses what it registered."
        ),
        new_code_cell("%load_ext deepnb"),
        new_code_cell(
            "import tempfile\nfrom pathlib import Path\n\n"
            "workdir = Path(tempfile.mkdtemp())\n"
            'extension_file = workdir / "tide_tools.py"\n'
            f"extension_file.write_text({EXTENSION!r})\n"
            "print(extension_file.read_text())"
        ),
        new_markdown_cell(
            "`%deepagent extension PATH` loads a file (or a folder of them). Loading is all or "
            "nothing: an extension that fails registers nothing and is listed with its error. "
            "Extensions also load from the `deepnb.extensions` entry points, `~/.deepnb/extensions/`, "
            "and a project's `.deepnb/extensions/` once you `%deepagent trust` it."
        ),
        new_code_cell("%deepagent extension {extension_file}"),
        new_code_cell("%deepagent extensions"),
        new_markdown_cell("An agent built now gets the tool and sees the folder mounted at `/scratch/`:"),
        new_code_cell(
            "%%deepagent -a tides -m demo:extensions -o run\nWhich station has the higher tide today?"
        ),
        new_code_cell('[item["result"] for item in run.state.items if item.get("name") == "tide_height"]'),
        new_code_cell('[(e.path, e.mount) for e in run.files.ls("/")]'),
        new_code_cell('print((workdir / "scratch" / "tides.md").read_text())'),
        new_markdown_cell(
            "## Declared agents\n\n"
            "A team can declare agents once — in `deepnb.toml` (or `[tool.deepnb]` in "
            "`pyproject.toml`) next to the notebooks, or from a Python dict — instead of copying "
            "Python between notebooks. A mistake names the key and where it is."
        ),
        new_code_cell(
            "careful = {\n"
            '    "model": "demo:approvals",\n'
            '    "interrupt_on": {"write_file": True, "edit_file": True},\n'
            '    "system_prompt": "Plan launches carefully.",\n'
            "}"
        ),
        new_code_cell("%deepagent define careful --from careful"),
        new_code_cell(
            'broken = {"model": "demo:approvals", "tools": ["nowhere:tool"]}\n'
            "try:\n"
            '    get_ipython().run_line_magic("deepagent", "define broken --from broken")\n'
            "except Exception as error:\n"
            "    print(error)"
        ),
        new_markdown_cell("Shutdown callbacks run once, when the extension is unloaded or the kernel exits:"),
        new_code_cell("%unload_ext deepnb"),
    ]


TIDES_SERVER = """\
from mcp.server.fastmcp import FastMCP

server = FastMCP("tides", log_level="WARNING")
TABLE = {"Monterey": "14:12 (1.62 m)", "Half Moon Bay": "14:31 (1.80 m)"}


@server.tool()
def high_tide(place: str) -> str:
    \"\"\"Today's high tide at a place on the coast.\"\"\"
    return f"High tide at {place}: {TABLE.get(place, 'not in the table')}"


if __name__ == "__main__":
    server.run("stdio")
"""
"""A small MCP server the bring-your-own notebook writes and starts over stdio."""

WRITER_FILES = {
    "AGENTS.md": "# Content Writer Agent\n\nWrite short, plain posts. Save each post under /blogs/.\n",
    "skills/blog-post/SKILL.md": (
        "---\nname: blog-post\ndescription: How to write a blog post (a title, three short sections, "
        "a closing line).\n---\n\n# Blog Post Writing Skill\n\n1. A title that says the point.\n"
        "2. Three short sections.\n3. One closing line.\n"
    ),
}


def bring_your_own() -> list:
    return [
        new_markdown_cell(
            "# Bring your own agent\n\n"
            "The other notebooks build their agents with deepnb. Most people already have one: a "
            "`create_agent` graph, a hand-built LangGraph `StateGraph`, a deep agent from the "
            "deepagents examples. `deepnb.attach(graph, NAME)` registers any compiled graph, and "
            "`%%deepagent -a NAME` runs it with the same live view. This notebook attaches three, "
            "each with a scripted model, so it runs offline with no API key."
        ),
        new_code_cell("%load_ext deepnb"),
        new_markdown_cell(
            "## A `create_agent` graph that asks a question\n\n"
            "Its tool calls LangGraph's `interrupt()` directly (not an approval rule). deepnb shows "
            "the interrupt's value as a card with a reply box; the thread's state, not deepnb, says "
            "whether it is still waiting."
        ),
        new_code_cell(
            "import deepnb\n"
            "from langchain.agents import create_agent\n"
            "from langchain_core.tools import tool\n"
            "from langgraph.types import interrupt\n\n"
            "from deepnb.models.scripted import ScriptedChatModel, parse_script\n\n\n"
            "@tool\n"
            "def ask_user(question: str) -> str:\n"
            '    """Ask the person at the notebook and return their answer."""\n'
            "    return interrupt(question)\n\n\n"
            'trip_model = ScriptedChatModel(script=parse_script({"agents": {"main": [\n'
            '    {"tool_calls": [{"name": "ask_user", "args": {"question": "Start from which city?"}}]},\n'
            '    "Three days from Lisbon: the old town, Sintra, then the coast at Cascais.",\n'
            "]}}))\n"
            'deepnb.attach(create_agent(trip_model, tools=[ask_user]), "trip")'
        ),
        new_code_cell(
            "%%deepagent -a trip -o trip_run\nPlan a three-day trip.",
            # The next cell answers the question and the run ends there, updating this output;
            # nbval compares a cell's output when the cell ends, so it would see the question.
            metadata={"tags": ["nbval-ignore-output"]},
        ),
        new_markdown_cell(
            "The card's reply box answers it; so does `run.pending[i].resume(value)`, with any "
            "JSON-able value:"
        ),
        new_code_cell("trip_run.status, [(p.agent, p.value) for p in trip_run.pending]"),
        new_code_cell(
            'trip_run.pending[0].resume("Lisbon")\ntrip_run.wait()\ntrip_run.status, trip_run.result'
        ),
        new_markdown_cell(
            "## A graph that doesn't speak messages\n\n"
            "A `StateGraph` of a `TypedDict` takes its own keys, not a prompt. Pass a dict: "
            "`bench.run({...})` in Python, or `%%deepagent --input VAR` with a variable holding one "
            "(and an empty cell body). The view shows each node's updates; `run.output` holds the "
            "final state."
        ),
        new_code_cell(
            "from langgraph.graph import END, START, StateGraph\n"
            "from typing_extensions import TypedDict\n\n\n"
            "class Joke(TypedDict):\n"
            "    topic: str\n"
            "    setup: str\n"
            "    joke: str\n\n\n"
            "def set_up(state: Joke) -> dict:\n"
            '    return {"setup": f"Why do {state[\'topic\']} never get lost?"}\n\n\n'
            "def punchline(state: Joke) -> dict:\n"
            '    return {"joke": state["setup"] + " They always keep a todo list."}\n\n\n'
            "builder = StateGraph(Joke)\n"
            'builder.add_node("set_up", set_up)\n'
            'builder.add_node("punchline", punchline)\n'
            'builder.add_edge(START, "set_up")\n'
            'builder.add_edge("set_up", "punchline")\n'
            'builder.add_edge("punchline", END)\n'
            'deepnb.attach(builder.compile(), "jokes")'
        ),
        new_markdown_cell("A prompt to such a graph is refused with its input keys:"),
        new_code_cell("%%deepagent -a jokes\nagents", metadata={"tags": ["raises-exception"]}),
        new_code_cell('inputs = {"topic": "agents"}'),
        new_code_cell("%%deepagent -a jokes --input inputs -o joke\n"),
        new_code_cell("joke.output"),
        new_markdown_cell(
            "## A deep agent on a folder, with relative memory and skills\n\n"
            "The deepagents examples give `create_deep_agent` a `FilesystemBackend(root_dir=...)` and "
            'relative paths: `memory=["./AGENTS.md"]`, `skills=["./skills/"]`. deepnb finds the '
            "backend in the attached graph, so `run.files` is that folder and `run.changes()` what "
            "the run wrote there. Here the notebook writes a small example folder first."
        ),
        new_code_cell(
            "import tempfile\n"
            "from pathlib import Path\n\n"
            "from deepagents import create_deep_agent\n"
            "from deepagents.backends import FilesystemBackend\n\n"
            'folder = Path(tempfile.mkdtemp()) / "content-builder"\n'
            f"for name, text in {WRITER_FILES!r}.items():\n"
            "    (folder / name).parent.mkdir(parents=True, exist_ok=True)\n"
            "    (folder / name).write_text(text)\n\n"
            'writer_model = ScriptedChatModel(script=parse_script({"agents": {"main": [\n'
            '    {"tool_calls": [{"name": "write_file", "args": {\n'
            '        "file_path": "/blogs/agents.md",\n'
            '        "content": "# Agents keep lists\\n\\nPlans, notes, files: an agent that writes '
            'things down finishes.\\n",\n'
            "    }}]},\n"
            '    "Posted /blogs/agents.md.",\n'
            "]}}))\n"
            "writer = create_deep_agent(\n"
            "    model=writer_model,\n"
            '    memory=["./AGENTS.md"],\n'
            '    skills=["./skills/"],\n'
            "    backend=FilesystemBackend(root_dir=folder),\n"
            ")\n"
            'deepnb.attach(writer, "writer")'
        ),
        new_code_cell("%%deepagent -a writer -o post\nWrite a blog post about AI agents."),
        new_code_cell("sorted(post.files), [(c.path, c.kind) for c in post.changes()]"),
        new_code_cell('print((folder / "blogs" / "agents.md").read_text())'),
        new_markdown_cell(
            "`%deepagent inspect` shows what an agent was built from: the ordered middleware stack "
            "of the main agent and each subagent, the tools the model sees, the backend and its "
            "routes, the memory and skills, the model."
        ),
        new_code_cell("%deepagent inspect -a writer"),
        new_markdown_cell(
            "## Thinking, runtime context and an MCP server\n\n"
            "Three things a real agent brings on day one. A model that **thinks** (Anthropic's "
            "`thinking` blocks, OpenAI's reasoning summaries): the view shows the thinking as its own "
            "item, open while it streams and folded once the answer starts, never in `run.result`. "
            "**Runtime context** (a user id, a role, a credential): given with each run, read by tools "
            "as `ToolRuntime.context`, checked against the graph's `context_schema`, never shown to "
            "the model; the view lists its keys only. And tools from an **MCP server**, through "
            "`langchain-mcp-adapters`: here a small FastMCP server the notebook writes and starts over "
            "stdio; each of its tools' cards names the server."
        ),
        new_code_cell(
            "import sys\n"
            "from dataclasses import dataclass\n\n"
            "from langchain.tools import ToolRuntime\n\n"
            'server = Path(tempfile.mkdtemp()) / "tides_server.py"\n'
            f"server.write_text({TIDES_SERVER!r})\n\n\n"
            "@dataclass\n"
            "class Caller:\n"
            "    user_id: str\n"
            '    role: str = "visitor"\n\n\n'
            "@tool\n"
            "def whoami(runtime: ToolRuntime[Caller]) -> str:\n"
            '    """Who is asking, as the runtime context says."""\n'
            '    return f"{runtime.context.user_id}, {runtime.context.role}"\n\n\n'
            'harbour_model = ScriptedChatModel(script=parse_script({"agents": {"main": [\n'
            '    {"thinking": "The tide table is on the tides server; the caller is in the context.",\n'
            '     "tool_calls": [{"name": "high_tide", "args": {"place": "Monterey"}},\n'
            '                    {"name": "whoami", "args": {}}]},\n'
            '    {"thinking": "Both answers are in: say them plainly.",\n'
            '     "text": "High tide at Monterey is at 14:12 (1.62 m), ada: good timing for the harbour."},\n'
            "]}}))\n"
            "deepnb.agent(\n"
            '    "harbour",\n'
            "    model=harbour_model,\n"
            "    tools=[whoami],\n"
            "    context_schema=Caller,\n"
            "    mcp_servers={\n"
            '        "tides": {"transport": "stdio", "command": sys.executable, "args": [str(server)]},\n'
            "    },\n"
            ")"
        ),
        new_code_cell(
            "%deepagent mcp -a harbour",
            # Its Where column names this machine's Python and a temporary folder.
            metadata={"tags": ["nbval-ignore-output"]},
        ),
        new_code_cell('caller = {"user_id": "ada", "role": "harbour master"}'),
        new_code_cell(
            "%%deepagent -a harbour --context caller -o harbour_run\n"
            "When is high tide at Monterey, and who is asking?"
        ),
        new_code_cell(
            'harbour_run.result, [item["text"] for item in harbour_run.state.items '
            'if item["kind"] == "thinking"]'
        ),
    ]


REMOTE_PROJECT = """\
[agents.researcher]
model = "demo:research"

[agents.editor]
model = "demo:approvals"
interrupt_on = { write_file = true, edit_file = true }
"""


def remote() -> list:
    return [
        new_markdown_cell(
            "# When one kernel isn't enough: agents on an Agent Server\n\n"
            "A run that takes an hour, a thread a team approves together, an agent already deployed: "
            "these live on a LangGraph Agent Server, which speaks the Agent Protocol. deepnb is a "
            "window onto it: the same run view, todos, subagents, files and approval cards, read from "
            "the server's stream and its threads.\n\n"
            "This notebook declares two agents in a `deepnb.toml`, serves them with `langgraph dev` "
            "on this machine, runs them from here, and stops the server at the end. The agents use "
            "deepnb's offline demo models, so nothing needs a key."
        ),
        new_code_cell("%load_ext deepnb"),
        new_code_cell(
            "import tempfile\nfrom pathlib import Path\n\n"
            "project = Path(tempfile.mkdtemp())\n"
            f'(project / "deepnb.toml").write_text({REMOTE_PROJECT!r})\n'
            'print((project / "deepnb.toml").read_text())'
        ),
        new_code_cell("%cd {project}"),
        new_markdown_cell(
            "`%deepagent serve` writes the project's agents as an Agent Server app (the same files "
            "`%deepagent deploy PATH` writes for a real deployment), starts `langgraph dev` on it in "
            "the background and connects each agent under its own name. From now on "
            "`%%deepagent -a researcher` runs on the server."
        ),
        new_code_cell("server = %deepagent serve\nserver"),
        new_code_cell(
            "%%deepagent -a researcher -o run\n"
            "What do we know about life in tide pools? Research it and write a short report."
        ),
        new_markdown_cell(
            "The run object is the same as for an agent in the kernel; its thread, files and todos "
            "live on the server."
        ),
        new_code_cell("run.status, len(run.todos), [node.name for node in run.tree.children]"),
        new_code_cell("%deepagent threads -a researcher"),
        new_markdown_cell(
            "## Approvals on the server\n\n"
            "`editor` asks before it writes a file. The server pauses the run; the card here (or "
            "`run.pending`) answers it, and the server goes on."
        ),
        new_code_cell(
            "%%deepagent -a editor -o editing\nPlan the launch announcement.",
            # The cell's view is updated when the run ends, two cells later: that cell is checked.
            metadata={"tags": ["nbval-ignore-output"]},
        ),
        new_code_cell(
            'while editing.status == "interrupted":\n'
            "    for request in editing.pending:\n"
            "        request.approve()\n"
            "    editing.wait(120)\n"
            'editing.status, [d["tool"] for d in editing.decisions]'
        ),
        new_code_cell('print(editing.files["/plan.md"])'),
        new_markdown_cell(
            "## Another kernel, the same threads\n\n"
            "Threads live on the server, so a kernel that connects later (after a restart, or a "
            "colleague's) sees them: `deepnb.connect(url, assistant=...)` registers the served "
            "agent under a name of your choice. `%deepagent resume -t THREAD` would join a run still "
            "going there, and `%deepagent approvals -t THREAD` brings back its pending cards."
        ),
        new_code_cell(
            "import deepnb\n\n"
            'again = deepnb.connect(server.url, assistant="editor", name="editor-again")\n'
            "[t.thread_id == editing.thread_id for t in again.threads()]"
        ),
        new_code_cell("sorted(again.files(editing.thread_id))"),
        new_markdown_cell("Stop the server (the kernel's exit would stop it too):"),
        new_code_cell("%deepagent serve --stop"),
    ]


REVIEWS = """\
reviews = [
    {"id": 1, "text": "The battery dies before lunch, every single day."},
    {"id": 2, "text": "Gorgeous screen: bright, sharp and easy on the eyes."},
    {"id": 3, "text": "The shipping took two weeks longer than promised."},
    {"id": 4, "text": "Lovely keyboard to type on, but the fan is loud."},
    {"id": 5, "text": "For the price, I can't complain at all."},
    {"id": 6, "text": "Their support team replaced my unit within a day."},
    {"id": 7, "text": "The speaker sounds tinny at any volume."},
    {"id": 8, "text": "The weight is perfect for carrying around campus."},
    {"id": 9, "text": "The hinge cracked after a month of gentle use."},
    {"id": 10, "text": "The camera is fine in daylight, grainy at night."},
]
len(reviews)"""

IGNORE_OUTPUT = {"tags": ["nbval-ignore-output"]}
"""A cell whose output holds times (elapsed, an ETA, when a checkpoint was saved): not compared."""


def many_runs() -> list:
    return [
        new_markdown_cell(
            "# Many runs: batches, comparisons, forks, recordings\n\n"
            "Research is rarely one run. This notebook runs one agent over a small dataset and pulls "
            "its structured answers into pandas, runs one task on two models side by side, goes back "
            "to a step of a thread and tries again from there, turns a run into a replay file, and "
            "exports a thread as a notebook of its own. The models are deepnb's offline demos, so "
            "nothing needs a key."
        ),
        new_code_cell("%load_ext deepnb"),
        new_markdown_cell(
            "## A batch over a dataset, with structured output\n\n"
            "Ten product reviews, and the structure each answer should take. `response_format=` "
            "accepts what `create_deep_agent` accepts: a Pydantic model (as here), a dataclass, a "
            "TypedDict or a JSON schema."
        ),
        new_code_cell(REVIEWS),
        new_code_cell(
            "from typing import Literal\n\n"
            "from pydantic import BaseModel\n\n\n"
            "class Review(BaseModel):\n"
            '    sentiment: Literal["positive", "mixed", "negative"]\n'
            "    score: int\n"
            "    topic: str\n"
            "    summary: str"
        ),
        new_code_cell(
            'import deepnb\n\ntriage = deepnb.agent("triage", model="demo:reviews", response_format=Review)'
        ),
        new_markdown_cell(
            "`%%deepagent map VAR` runs the agent once per item of `VAR`, each on a new thread, "
            "`-c` at a time; the cell body is the template, filled from each record's fields. "
            "The grid is live: a row per input with its status, steps, tool calls, tokens, time "
            "and the answer's first line, progress with the time left, and **Stop all**. Click a "
            "row to open that run's full view below the grid. From Python, "
            "`triage.map(reviews, concurrency=4, template=...)` returns the same `Batch` at once."
        ),
        new_code_cell(
            "%%deepagent map reviews -a triage -c 4 -o batch\nClassify this review: {text}",
            metadata=IGNORE_OUTPUT,
        ),
        new_code_cell("batch.counts()"),
        new_markdown_cell(
            "Each run's structured answer is `run.output`, a `Review`; `batch.to_pandas()` puts the "
            "inputs, the run's figures and the output's fields in one row per review."
        ),
        new_code_cell(
            'frame = batch.to_pandas()\nframe[["id", "status", "sentiment", "score", "topic", "summary"]]'
        ),
        new_code_cell('frame.groupby("sentiment")["score"].agg(["count", "mean"])'),
        new_markdown_cell(
            "## Two models, one task\n\n"
            "`%%deepagent --compare MODEL,MODEL` runs the cell's task on each model at once, each "
            "on a copy of the agent and a thread of its own, side by side, with a table under them "
            "as they finish. `deepnb.compare(prompt, models=[...])` is the same from Python. Here "
            "the careful demo plans, keeps notes and checks them; the terse one answers at once."
        ),
        new_code_cell(
            "%%deepagent --compare demo:quickstart,demo:terse -o comparison\n"
            "Write me a short brief on life in tide pools.",
            metadata=IGNORE_OUTPUT,
        ),
        new_code_cell('comparison.to_pandas()[["model", "status", "steps", "tool_calls", "tokens_out"]]'),
        new_markdown_cell(
            "## Back to a step, and on from there\n\n"
            "A step is one model call of the agent and the tool calls it asked for. "
            "`%deepagent history` lists a thread's steps, one row each, saying what each did "
            "(`--all` lists every checkpoint with the node that wrote it). "
            "`%%deepagent -t THREAD --at STEP` forks the thread as that step left it, its tools "
            "answered, and sends the cell's prompt to the fork; here, after step 1 made the plan. "
            "The original thread is untouched. The numbers are the ones the run's view shows: "
            "each step's **fork here** chip, and the timeline under the transcript with every "
            "model and tool call over time."
        ),
        new_code_cell(
            "%%deepagent -a notes -m demo:quickstart -o first\n"
            "Write me a short brief on life in tide pools. Keep notes in a file as you go.",
            metadata=IGNORE_OUTPUT,
        ),
        new_code_cell(
            "thread = first.thread_id\n"
            "steps_before = len(first.workbench.history(thread))\n"
            "%deepagent history -a notes -t {thread}",
            metadata=IGNORE_OUTPUT,
        ),
        new_code_cell(
            "%%deepagent -a notes -t {thread} --at 1 -o retry\n"
            "Write me a short brief on life in tide pools, for ten-year-olds.",
            metadata=IGNORE_OUTPUT,
        ),
        new_code_cell(
            "retry.thread_id != thread, retry.status, len(first.workbench.history(thread)) == steps_before"
        ),
        new_markdown_cell(
            "## A run as a replay, and a thread as a notebook\n\n"
            "`%%deepagent --record PATH` (or `run.record(PATH)`) writes the run as a `scripted:` "
            "replay file: every model turn of the agent and its subagents, with tool calls and "
            "token usage, secrets redacted. `-m scripted:PATH` replays it offline to the same "
            "transcript and files. This is how a run with a real model becomes a demo anyone can "
            "open on Binder."
        ),
        new_code_cell(
            "import tempfile\nfrom pathlib import Path\n\n"
            "out = Path(tempfile.mkdtemp())\n"
            'recording = out / "tide-pools.yaml"'
        ),
        new_code_cell(
            "%%deepagent -a recorder -m demo:quickstart --record {recording} -o recorded\n"
            "Write me a short brief on life in tide pools. Keep notes in a file as you go.",
            metadata=IGNORE_OUTPUT,
        ),
        new_code_cell(
            "%%deepagent -a replayer -m scripted:{recording} -o replayed\n"
            "Write me a short brief on life in tide pools. Keep notes in a file as you go.",
            metadata=IGNORE_OUTPUT,
        ),
        new_code_cell("replayed.result == recorded.result, dict(replayed.files) == dict(recorded.files)"),
        new_markdown_cell(
            "`%deepagent export PATH.ipynb` writes a thread as a standalone notebook: each prompt, "
            "the run's static view and the files the agent wrote. A recorded thread also gets its "
            "replay file alongside and cells that replay it offline."
        ),
        new_code_cell(
            'deepnb.export(out / "tide-pools.ipynb", thread=recorded.thread_id, agent="recorder")\n'
            "sorted(path.name for path in out.iterdir())"
        ),
    ]


QUESTIONS = """questions = [
    {"question": "Which country is Paris the capital of?", "reference": "France"},
    {"question": "Which country is Lisbon the capital of?", "reference": "Portugal"},
    {"question": "Which country is Canberra the capital of?", "reference": "Australia"},
    {"question": "Which country is Ottawa the capital of?", "reference": "Canada"},
    {"question": "Which country is Nairobi the capital of?", "reference": "Kenya"},
    {"question": "Which country is Wellington the capital of?", "reference": "New Zealand"},
]
len(questions)"""


SERVED_QUIZ = """\
[agents.quiz-served]
model = "demo:quiz-checked"
"""


def experiments() -> list:
    return [
        new_markdown_cell(
            "# Experiments: run many, score, compare\n\n"
            "Is the new variant of an agent better, on which inputs, and by more than noise? This "
            "notebook runs two variants of a quiz agent over a small dataset, twice each, scores "
            "every run with built-in scorers, a function of its own and an LLM judge, compares the "
            "variants row by row, and reopens the experiment from its log. The models are deepnb's "
            "offline demos (the judge too), so nothing needs a key."
        ),
        new_code_cell("%load_ext deepnb"),
        new_markdown_cell(
            "## The dataset\n\n"
            "A list of dicts (a DataFrame, a CSV or JSONL path, or LangSmith examples work the same "
            "way). A row's `reference` goes to the scorers, never to the agent."
        ),
        new_code_cell(QUESTIONS),
        new_markdown_cell(
            "## Variants and scorers\n\n"
            "Each variant is a copy of the agent with one thing changed: here its model (a system "
            "prompt, `deepnb.agent` options, another registered agent or a function that builds a "
            "workbench work too). A scorer is any function of `(output, reference, run)`; "
            "`deepnb.scorers` has the common ones, and `judge` grades with openevals' LLM-as-judge "
            "on any model."
        ),
        new_code_cell(
            "import tempfile\nfrom pathlib import Path\n\nimport deepnb\nfrom deepnb import scorers\n\n"
            'deepnb.agent("quiz", model="demo:quiz-quick")\n'
            'variants = {"quick": "demo:quiz-quick", "checked": "demo:quiz-checked"}\n\n\n'
            "def brief(output, reference, run):\n"
            '    """An answer of at most three words."""\n'
            '    return len((output or "").split()) <= 3\n\n\n'
            'judge = scorers.judge("demo:quiz-judge", "Grade <output>{outputs}</output> '
            '<reference>{reference_outputs}</reference>", name="judge")\n'
            "logs = Path(tempfile.mkdtemp())"
        ),
        new_markdown_cell(
            "`deepnb.experiment` returns at once and shows a live matrix: a row per question, a "
            "column per variant, each cell its scores, status and answer. Sort by a column, filter, "
            "click a cell to open that run's full view. Every run is written to the log as it ends."
        ),
        new_code_cell(
            "exp = deepnb.experiment(\n"
            '    questions, agent="quiz", variants=variants, template="{question}", epochs=2,\n'
            '    scorers=[scorers.contains, scorers.tool_called("write_todos"), brief, judge],\n'
            '    baseline="quick", name="capitals", log=logs / "capitals.jsonl",\n'
            ")\nexp",
            metadata=IGNORE_OUTPUT,
        ),
        new_markdown_cell(
            "Once it ends, every run is a row of `exp.to_pandas()`: the row's fields, the variant, "
            "the epoch, the answer, each score, tokens, cost, latency and its thread."
        ),
        new_code_cell(
            "exp.wait()\n"
            'columns = ["question", "variant", "epoch", "output", "contains", "judge", "brief", "status"]\n'
            "exp.to_pandas()[columns]"
        ),
        new_markdown_cell(
            "## Which variant is better, and how sure is that\n\n"
            "`exp.summary()` gives each score's mean with a 95 % interval, the pass rate and pass@k "
            'over the epochs, tokens, cost and latency per variant. `exp.compare("checked")` '
            "counts the rows it wins, loses and ties against the baseline, with a paired test, and "
            "lists the rows where they differ most."
        ),
        new_code_cell("exp.summary()", metadata=IGNORE_OUTPUT),
        new_markdown_cell(
            "The interval is clustered by row: the two epochs of a question are not two independent "
            "pieces of evidence, so each row's epochs are first reduced to one score (their mean, "
            "`epochs_reducer=` says otherwise) and the interval rests on the rows. Each figure says "
            "the rows and runs it rests on."
        ),
        new_code_cell(
            "[\n"
            '    (s["variant"], round(s["contains mean"], 2), round(s["contains low"], 2),\n'
            '     round(s["contains high"], 2), s["contains rows"], s["contains runs"])\n'
            "    for s in exp.summary().to_records()\n"
            "]"
        ),
        new_code_cell('exp.compare("checked")'),
        new_markdown_cell(
            "`exp.runs[(row, variant, epoch)]` is a run itself, with its live view (approvals "
            "included); `exp.rescore([...])` scores every run again with more scorers, without "
            "running anything: the new scores join the earlier ones, which stay (`replace=True` "
            "drops them)."
        ),
        new_code_cell('exp.runs[(2, "quick", 0)].result, exp.runs[(2, "checked", 0)].result'),
        new_code_cell(
            'exp.rescore([scorers.regex(r"^[A-Z][a-z]+\\.$", name="one_word")])\n'
            'exp.to_pandas().groupby("variant")[["contains", "judge", "brief", "one_word"]].mean()'
        ),
        new_markdown_cell(
            "A person corrects or adds a grade with `exp.grade(row, variant, epoch, score, comment)`: "
            "it is written to the log at once, marked as a person's, and counts in the summary and "
            "comparisons like any score (here a `human` scorer; name a scorer to correct that one)."
        ),
        new_code_cell(
            'exp.grade(3, "quick", 0, 0, comment="Ottawa is the capital of Canada.")\n'
            'exp.records[(3, "quick", 0)].scores["human"]'
        ),
        new_markdown_cell(
            "## The log, reopened\n\n"
            "The log is JSONL, one object per line, readable without deepnb. "
            "`deepnb.load_experiment` reopens it with its matrix, summary and every run's "
            "transcript; `deepnb.experiments()` lists the logs; the same `log=` resumes an "
            "interrupted experiment, running only what did not finish."
        ),
        new_code_cell(
            'again = deepnb.load_experiment(logs / "capitals.jsonl")\n'
            'ottawa = again.records[(3, "quick", 1)]\n'
            'len(again.records), ottawa.result, ottawa.scores["contains"].score'
        ),
        new_code_cell('[(e["name"], e["runs"], e["done"]) for e in deepnb.experiments(logs)]'),
        new_markdown_cell(
            "## A report to send, and Inspect logs\n\n"
            "`exp.report(path)` writes the experiment as one HTML file that opens from disk in any "
            "browser (the summary, the comparison, the matrix with its filters and every sample). "
            "`exp.to_inspect(folder)` writes it as Inspect AI eval logs, one per variant, which "
            "`inspect view` shows and `inspect_ai.log.read_eval_log` reads; their results are the "
            "summary's means."
        ),
        new_code_cell('report = exp.report(logs / "report.html")\nreport.name, report.stat().st_size > 0'),
        new_code_cell(
            "import json\n\n"
            'written = [json.loads(p.read_text()) for p in exp.to_inspect(logs / "inspect")]\n'
            "[\n"
            '    (log["eval"]["task_args"]["variant"], len(log["samples"]),\n'
            '     round(log["results"]["scores"][0]["metrics"]["accuracy"]["value"], 2))\n'
            "    for log in written\n"
            "]"
        ),
        new_markdown_cell(
            "## Datasets as other tools write them\n\n"
            "`deepnb.dataset(path)` reads CSV/TSV, JSON, JSONL, Parquet, a DataFrame, Hugging Face "
            "datasets, Inspect samples and logs, promptfoo suites and LangSmith examples, and says "
            "which field each row's input and reference come from (`input=` and `reference=` "
            "choose). Here, Inspect's sample layout: `input`, `target`, `id`."
        ),
        new_code_cell(
            'samples = logs / "capitals-samples.jsonl"\n'
            "samples.write_text(\n"
            '    "\\n".join(\n'
            '        json.dumps({"id": f"q{i}", "input": q["question"], "target": q["reference"]})\n'
            "        for i, q in enumerate(questions)\n"
            "    )\n"
            ")\n"
            "inspect_rows = deepnb.dataset(samples)\n"
            "inspect_rows"
        ),
        new_markdown_cell(
            "## A cached re-run\n\n"
            "`cache=` keeps every model response on disk, keyed by model, parameters, messages and "
            "epoch: running the same experiment again (after a kernel restart too) makes no model "
            "call, and each cell says how many calls the cache answered."
        ),
        new_code_cell(
            'cache = logs / "cache"\n'
            'first = deepnb.experiment(inspect_rows, agent="quiz", scorers=[scorers.contains], cache=cache,\n'
            '                          name="cached", log=logs / "cached-1.jsonl").wait()\n'
            'again = deepnb.experiment(inspect_rows, agent="quiz", scorers=[scorers.contains], cache=cache,\n'
            '                          name="cached", log=logs / "cached-2.jsonl").wait()\n'
            "calls_cached = [sum(r.cached for r in e.records.values()) for e in (first, again)]\n"
            'calls_cached, [e.summary().to_records()[0]["contains mean"] for e in (first, again)]'
        ),
        new_markdown_cell(
            "## The same in a cell\n\n"
            "`%%deepagent eval DATASET` runs an experiment with the cell body as its template; "
            "`--variants`, `--scorer`, `-e` (epochs) and `-c` (concurrency) as above."
        ),
        new_code_cell(
            'cell_log = logs / "cell.jsonl"',
        ),
        new_code_cell(
            "%%deepagent eval questions -a quiz --variants variants --scorer contains "
            "-c 4 --log {cell_log} -o second\n{question}",
            metadata=IGNORE_OUTPUT,
        ),
        new_code_cell(
            '[(s.scorer, s.wins, s.losses, s.ties) for s in second.compare("checked", "quick").scorers]'
        ),
        new_markdown_cell(
            "## A variant on an Agent Server\n\n"
            "A variant can be an agent served elsewhere (`deepnb.connect`, or `%deepagent serve` as "
            "here, which serves the project's agents with `langgraph dev` on this machine). Its runs "
            "go to the server as it takes them: there its job slots decide how many run at once, "
            "not the kernel's `concurrency`, and the matrix's head line says where the runs go. "
            "Behind a load balancer, more replicas of the server finish the same experiment sooner."
        ),
        new_code_cell(
            "project = Path(tempfile.mkdtemp())\n"
            f'(project / "deepnb.toml").write_text({SERVED_QUIZ!r})\n'
            'print((project / "deepnb.toml").read_text())'
        ),
        new_code_cell("%cd {project}"),
        new_code_cell("server = %deepagent serve\nserver"),
        new_code_cell(
            "served = deepnb.experiment(\n"
            '    questions, variants={"kernel": "quiz", "served": "quiz-served"}, template="{question}",\n'
            '    scorers=[scorers.contains], baseline="kernel", name="served", log=logs / "served.jsonl",\n'
            ")\nserved",
            metadata=IGNORE_OUTPUT,
        ),
        new_code_cell(
            'served.wait()\n[(s.scorer, s.wins, s.losses, s.ties) for s in served.compare("served").scorers]'
        ),
        new_code_cell('served.to_pandas().groupby("variant")["contains"].mean()'),
        new_code_cell("%deepagent serve --stop"),
    ]


def debug_a_step() -> list:
    return [
        new_markdown_cell(
            "# Debug a step: see the graph, the state at a step, what changed; fix it and run on\n\n"
            "An agent took a wrong turn: a research agent noted the wrong launch date in its notes "
            "and then read them back. This notebook looks at the agent's graph, the thread's "
            "history, the state as the wrong step left it and what that step changed, then forks "
            "the thread at that step with the notes fixed and runs on: the new run reads the "
            "edited file. The agent's model is scripted, so it runs offline with no API key."
        ),
        new_code_cell("%load_ext deepnb"),
        new_code_cell(
            "import deepnb\n"
            "from deepnb.models.scripted import ScriptedChatModel, parse_script\n\n"
            'script = parse_script({"agents": {"main": [\n'
            '    {"text": "I\'ll jot down the launch facts first.",\n'
            '     "tool_calls": [{"name": "write_file", "args": {"file_path": "/notes.md",\n'
            '        "content": "# Launch notes\\n\\nDate: March 3\\nOwner: Ana\\n"}}]},\n'
            '    {"text": "Reading my notes back before I answer.",\n'
            '     "tool_calls": [{"name": "read_file", "args": {"file_path": "/notes.md"}}]},\n'
            '    "The launch date and owner are the ones in /notes.md.",\n'
            "]}})\n"
            'bench = deepnb.agent("researcher", ScriptedChatModel(script=script))'
        ),
        new_code_cell("%%deepagent -a researcher -o run\nWhen is our product launch, and who owns it?"),
        new_markdown_cell(
            "## The agent's graph\n\n"
            "`bench.draw_graph()` (or `%deepagent graph`) draws the agent as LangGraph builds it: "
            "the middleware hooks, the model, the tools, and the `general-purpose` subagent the "
            "`task` tool runs, as a nested box. Dashed edges are chosen at run time. The drawing "
            "is an SVG made in the kernel, so the saved notebook keeps it."
        ),
        new_code_cell("bench.draw_graph()"),
        new_markdown_cell(
            "## The history, and the step that went wrong\n\n"
            "Each step is one model call and the tools it called. Step 1 wrote the notes:"
        ),
        new_code_cell("thread = run.thread_id\nbench.history(thread)"),
        new_markdown_cell(
            "`bench.state(thread, 1)` is the thread's state as step 1 left it: its messages, "
            "todos, files and other keys. `bench.diff(thread, 1)` says what step 1 changed: the "
            "messages it added and a line diff of each file it wrote. The date is wrong."
        ),
        new_code_cell("bench.state(thread, 1)"),
        new_code_cell("bench.diff(thread, 1)"),
        new_markdown_cell(
            "## Fix the file and run on\n\n"
            "`bench.fork(thread, 1, update={...})` makes a new thread as step 1 left it and writes "
            "the update into it as step 1's node would have (here, the notes with the right "
            "date); the original thread is untouched. Resuming the fork runs the next step from "
            "the edited state."
        ),
        new_code_cell(
            "fixed = bench.fork(\n"
            '    thread, 1, update={"files": {"/notes.md": '
            '"# Launch notes\\n\\nDate: May 12\\nOwner: Ana\\n"}}\n'
            ")\n"
            'print(bench.state(fixed).files["/notes.md"])'
        ),
        new_code_cell("rerun = bench.resume(fixed)\nrerun.wait()"),
        new_markdown_cell("What the new run's first step did: it read the edited notes."),
        new_code_cell("bench.diff(fixed, 1, 2)"),
        new_markdown_cell("The original thread still has the wrong notes:"),
        new_code_cell('print(bench.state(thread).files["/notes.md"])'),
    ]


BUILDERS = {
    "quickstart": quickstart,
    "research": research,
    "approvals": approvals,
    "files": files,
    "interpreter": interpreter,
    "models": models,
    "extensions": extensions,
    "bring-your-own": bring_your_own,
    "remote": remote,
    "many-runs": many_runs,
    "experiments": experiments,
    "debug-a-step": debug_a_step,
}


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _drop_widget_views(notebook: nbformat.NotebookNode) -> None:
    """Save each view as its static snapshot, as deepnb's front end does when a notebook is saved:
    a widget output whose model is gone shows "model not found" when the notebook is opened."""
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            output.get("data", {}).pop(WIDGET_VIEW, None)


def build(name: str) -> Path:
    notebook = new_notebook(cells=BUILDERS[name]())
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.metadata["language_info"] = {"name": "python"}
    # No widget state in the saved file: nbconvert, GitHub and nbviewer then show each run's static
    # snapshot (transcript, todos, tree, decisions) instead of a view that needs JavaScript.
    NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOKS)}},
        store_widget_state=False,
    ).execute()
    _drop_widget_views(notebook)
    path = NOTEBOOKS / f"{name}.ipynb"
    nbformat.write(notebook, path)
    return path


if __name__ == "__main__":
    import os

    from deepnb.models.resolve import online_environment

    # Saved outputs must be the offline ones nbval expects, whatever keys this shell holds.
    for variable in online_environment():
        os.environ.pop(variable, None)
    for name in sys.argv[1:] or list(BUILDERS):
        print("wrote", build(name))
