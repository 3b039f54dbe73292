"""Agents users bring, run through the magics: the deepagents repository's own examples (pinned in
tests/data/deepagents/), built the way the examples build them."""

from __future__ import annotations

import shutil
from pathlib import Path

from deepagents import create_deep_agent
from deepagents.backends import FilesystemBackend
from IPython.utils.capture import capture_output

import deepnb
from tests.support.agents import scripted

EXAMPLES = Path(__file__).resolve().parents[1] / "data" / "deepagents"


def example(name: str, tmp_path: Path) -> Path:
    """A copy of a pinned example's folder (a run writes into it)."""
    return Path(shutil.copytree(EXAMPLES / name, tmp_path / name))


def writes(path: str, content: str, answer: str) -> object:
    return scripted(
        {
            "main": [
                {"tool_calls": [{"name": "write_file", "args": {"file_path": path, "content": content}}]},
                {"text": answer},
            ]
        }
    )


def magic(ip, line: str):
    with capture_output() as captured:
        result = ip.run_line_magic("deepagent", line)
    return result, captured


def test_the_content_builder_example_with_relative_memory_and_skills(ip, tmp_path: Path) -> None:
    # content_writer.py: memory=["./AGENTS.md"], skills=["./skills/"], FilesystemBackend(root_dir=...)
    root = example("content-builder-agent", tmp_path)
    deepnb.agent(
        "content",
        model=writes("/blogs/agents/post.md", "# Agents\n", "Posted."),
        memory=["./AGENTS.md"],
        skills=["./skills/"],
        backend=FilesystemBackend(root_dir=root),
    )
    ip.run_cell("%%deepagent -a content -o post\nWrite a blog post about AI agents")
    run = ip.user_ns["post"]
    assert run.status == "done", run.error
    state = run.workbench.state_values(run.thread_id)
    assert "Content Writer Agent" in state["memory_contents"]["./AGENTS.md"]
    assert {s["name"] for s in state["skills_metadata"]} == {"blog-post", "social-media"}
    assert run.files["/blogs/agents/post.md"] == "# Agents\n"
    assert {"/AGENTS.md", "/skills/blog-post/SKILL.md", "/subagents.yaml"} <= set(run.files)
    assert [(c.path, c.kind) for c in run.changes()] == [("/blogs/agents/post.md", "written")]
    listing, _ = magic(ip, "files -a content")
    assert {e.path for e in listing.entries} >= {"/AGENTS.md", "/blogs/", "/skills/"}
    shown, _ = magic(ip, "files -a content /skills/blog-post/SKILL.md")
    assert "Blog Post Writing Skill" in repr(shown)
    # Editing the memory file from the notebook reaches the thread's next turn, under its own name.
    run.files.edit("/AGENTS.md", "# Content Writer Agent", "# Content Writer Agent (edited)")
    reloaded = run.workbench.state_values(run.thread_id)["memory_contents"]
    assert list(reloaded) == ["./AGENTS.md"] and "(edited)" in reloaded["./AGENTS.md"]


def test_an_attached_text_to_sql_agent_on_its_folder(ip, tmp_path: Path) -> None:
    # agent.py: create_deep_agent(memory=["./AGENTS.md"], skills=["./skills/"],
    # backend=FilesystemBackend(root_dir=base_dir)), attached as the user compiled it.
    root = example("text-to-sql-agent", tmp_path)
    graph = create_deep_agent(
        model=writes("/answers/top.sql", "SELECT 1;\n", "Saved the query."),
        memory=["./AGENTS.md"],
        skills=["./skills/"],
        backend=FilesystemBackend(root_dir=root),
    )
    deepnb.attach(graph, "sql")
    ip.run_cell("%%deepagent -a sql -o answer\nWhich five artists sold the most?")
    run = ip.user_ns["answer"]
    assert run.status == "done", run.error
    assert (root / "answers" / "top.sql").read_text() == "SELECT 1;\n"
    assert run.files["/answers/top.sql"] == "SELECT 1;\n"
    assert "/skills/query-writing/SKILL.md" in run.files
    assert [(c.path, c.kind) for c in run.changes()] == [("/answers/top.sql", "written")]
    assert run.state.files_changed == ["/answers/top.sql"]
    listing, _ = magic(ip, "files -a sql /")
    assert {e.path for e in listing.entries} >= {"/AGENTS.md", "/answers/", "/skills/"}
    assert "empty" not in repr(listing)
    # The file browser lists the folder and shows the run's write as written.
    from deepnb.views.files.files_view import FilesView

    view = FilesView(run.files, run=run)
    try:
        entries = view.request({"type": "ls", "path": "/"})["entries"]
        assert {e["path"] for e in entries} >= {"/AGENTS.md", "/answers/", "/skills/"}
        changes = view.request({"type": "changes"})
        assert changes["error"] in ("", None), changes
        assert [(c["path"], c["kind"]) for c in changes["changes"]] == [("/answers/top.sql", "written")]
    finally:
        view.close()


def test_a_graph_whose_files_deepnb_cannot_see_reports_no_deletion(ip, tmp_path: Path, capfd) -> None:
    from langchain.agents import create_agent
    from langchain_core.tools import tool

    disk: dict[str, str] = {}

    @tool
    def write_file(file_path: str, content: str) -> str:
        """Write a file."""
        disk[file_path] = content
        return f"Wrote {file_path}"

    graph = create_agent(model=writes("/out.md", "hi", "Done."), tools=[write_file])
    bench = deepnb.attach(graph, "opaque")
    run = bench.run("Write it")
    assert run.status == "done", run.error
    assert disk == {"/out.md": "hi"} and run.state.files_changed == ["/out.md"]
    assert run.changes() == []
    assert run.changes() == []
    err = capfd.readouterr().err
    assert err.count("deepnb: agent 'opaque' keeps its files where deepnb cannot see them") == 1
    assert "backend=" in err and len(err.strip().splitlines()) == 1
    # Named, the backend is read: a folder the tool wrote into shows the file as written.
    (tmp_path / "out.md").write_text("hi")
    named = deepnb.attach(graph, "opaque", backend=FilesystemBackend(root_dir=tmp_path))
    assert named.files(run.thread_id)["/out.md"] == "hi"


def test_a_graph_without_messages_runs_from_a_dict_variable(ip, tmp_path: Path) -> None:
    # LangGraph's StateGraph(TypedDict{topic, joke}), whose node asks the content-builder
    # example (relative memory and skills, on its folder) to write the joke.
    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict

    class Joke(TypedDict):
        topic: str
        joke: str

    writer = create_deep_agent(
        model=scripted({"main": [{"text": "Agents never get lost: they always keep a todo list."}]}),
        memory=["./AGENTS.md"],
        skills=["./skills/"],
        backend=FilesystemBackend(root_dir=example("content-builder-agent", tmp_path)),
    )

    async def write(state: Joke) -> dict[str, str]:
        prompt = f"A joke about {state['topic']}"
        result = await writer.ainvoke({"messages": [{"role": "user", "content": prompt}]})
        return {"joke": result["messages"][-1].content}

    builder = StateGraph(Joke)
    builder.add_node("write", write)
    builder.add_edge(START, "write")
    builder.add_edge("write", END)
    deepnb.attach(builder.compile(), "jokes")

    refused = ip.run_cell("%%deepagent -a jokes\nagents")
    refusal = str(refused.error_in_exec)
    assert refusal.startswith("Agent 'jokes' takes no prompt: its input keys are topic, joke.")
    ip.user_ns["inputs"] = {"topic": "agents"}
    with capture_output() as captured:
        ip.run_cell("%%deepagent -a jokes --input inputs -o joke\n")
    run = ip.user_ns["joke"]
    assert run.status == "done", run.error
    assert run.output == {"topic": "agents", "joke": "Agents never get lost: they always keep a todo list."}
    final = [o.data for o in captured.outputs if "text/plain" in o.data][-1]  # updated at the end
    assert "· done ·" in final["text/plain"] and '› {"topic": "agents"}' in final["text/plain"]
    assert "write:" in final["text/plain"] and "todo list" in final["text/plain"]
    assert 'class="dnb-tool dnb-update"' in final["text/html"]
    # The graph's own node is shown; the nodes of the agent it runs inside are not.
    items = run.state.to_json()["items"]
    assert [i["node"] for i in items if i["kind"] == "update"] == ["write"]
    both = ip.run_cell("%%deepagent -a jokes --input inputs\nand a prompt")
    assert "leave the cell body empty" in str(both.error_in_exec)
    missing = ip.run_cell("%%deepagent -a jokes --input nowhere_at_all\n")
    assert str(missing.error_in_exec) == (
        "No variable named 'nowhere_at_all': --input takes a variable that holds a dict."
    )
    ip.user_ns["numbers"] = [1, 2]
    wrong = ip.run_cell("%%deepagent -a jokes --input numbers\n")
    assert str(wrong.error_in_exec) == "numbers holds a list: --input takes a dict of the graph's input keys."


def test_a_cell_cannot_change_an_attached_graphs_model_or_options_and_says_what_to_do(ip) -> None:
    graph = create_deep_agent(model=writes("/a.txt", "a", "Done."))
    deepnb.attach(graph, "compiled")
    for options in ("-m demo:quickstart", "--interrupt-on write_file"):
        with capture_output() as captured:
            ip.run_cell(f"%%deepagent -a compiled {options}\nWrite a.")
        said = captured.stdout + captured.stderr
        assert (
            "Agent 'compiled' cannot take -m, --interrupt-on, --interpreter or --schema "
            "(it was attached as a compiled graph): attach it again to change it." in said
        ), said
    ip.run_cell("%%deepagent -a compiled -o same\nWrite a.")
    assert ip.user_ns["same"].status == "done"  # without them, the cell runs the graph as attached
