"""The subagent tree, summarization cards and the file panel over the kernel protocol: the state a
front-end receives (live patches, then the full sync) and the answer to "Open history file"."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.kernel_session import KernelSession, deepnb_kernel

pytestmark = pytest.mark.kernel

RESEARCH = "%%deepagent -m demo:research --new -o run\nWrite a short report on how coral reefs recover."


@pytest.fixture(scope="module")
def kernel(tmp_path_factory) -> Iterator[KernelSession]:
    with deepnb_kernel(str(tmp_path_factory.mktemp("tree"))) as session:
        yield session


def test_the_tree_streams_node_by_node_and_ends_in_full(kernel: KernelSession) -> None:
    before = len(kernel.run_views())
    execution = kernel.submit(RESEARCH)
    comm_id, _ = kernel.newest_view(before)

    def three_running():
        tree = kernel.widgets[comm_id].get("tree", [])
        return len(tree) == 3 and any(node["status"] == "running" for node in tree) and tree

    live = kernel.wait_for(three_running, timeout=60)
    assert {node["parent"] for node in live} == {"main"}
    assert execution.done.wait(120) and execution.ok

    state = kernel.wait_for(lambda: kernel.widgets[comm_id]["status"] == "done" and kernel.widgets[comm_id])
    tree = state["tree"]
    assert [node["id"] for node in tree] == [
        "main/general-purpose",
        "main/general-purpose#2",
        "main/general-purpose#3",
    ]
    for node in tree:
        assert node["status"] == "done" and node["tool_calls"] == 1
        assert node["finished_at"] >= node["started_at"] and node["result"].startswith("Notes on")
        own = [i for i in state["items"] if i["agent"] == node["id"]]
        assert [i["kind"] for i in own] == ["text", "tool", "text"]

    (summary,) = [i for i in state["items"] if i["kind"] == "summary"]
    assert summary["agent"] == "main" and summary["messages"] == 12
    assert summary["tokens_before"] > summary["tokens_after"] > 0
    assert summary["file_path"].startswith("/conversation_history/")
    assert "<ul>" in summary["summary_html"] and "three researchers" in summary["summary"]

    # Live patches carried the nodes that changed, never a node the front end already had as it
    # is (how many change between two flushes depends on the machine's speed, so not counted).
    carried = [len(p["nodes"]) for cid, p in kernel.patches if cid == comm_id and p.get("nodes")]
    assert carried, "no live patch carried the tree"
    assert kernel.repeated_nodes == []


def test_open_history_file_answers_with_escaped_html(kernel: KernelSession) -> None:
    comm_id, state = kernel.run_views()[-1]
    (summary,) = [i for i in state["items"] if i["kind"] == "summary"]
    seen = len(kernel.custom)
    kernel.click(comm_id, {"type": "open_file", "path": summary["file_path"]})
    _, reply = kernel.wait_for(lambda: len(kernel.custom) > seen and kernel.custom[-1])
    assert (reply["type"], reply["path"], reply["error"]) == ("file", summary["file_path"], "")
    assert '<message type="human">' in reply["text"]
    assert "&lt;message type=&quot;human&quot;&gt;" in reply["html"] or "&lt;message" in reply["html"]
    assert "<message" not in reply["html"]

    kernel.click(comm_id, {"type": "open_file", "path": "/no/such.md"})
    _, missing = kernel.wait_for(lambda: len(kernel.custom) > seen + 1 and kernel.custom[-1])
    assert missing["error"] == "/no/such.md is not in the thread's files (any more)." and not missing["html"]


def test_tree_magic_and_run_tree_agree_in_the_kernel(kernel: KernelSession) -> None:
    shown = kernel.execute("%deepagent tree")
    assert shown.ok and "Subagents (3):" in shown.text()
    checked = kernel.execute("print([(n.path, n.status) for n in run.tree.children], len(run.summaries))")
    assert checked.text() == (
        "[('main/general-purpose', 'done'), ('main/general-purpose#2', 'done'), "
        "('main/general-purpose#3', 'done')] 1\n"
    )
