"""The file browser over the kernel protocol: what ``%deepagent files`` shows, and the answers to
the messages its front-end sends (ls, open, search, save, download, changes), live refreshes while
a background run writes, and a synced state that stays small for thousands of files."""

from __future__ import annotations

import base64
import json
import textwrap
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.kernel_session import KernelSession, deepnb_kernel
from tests.support.lab_sanitizer import unstyled

pytestmark = pytest.mark.kernel

FILES_VIEW = "deepnb.views.files.files_view.FilesView"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
QUICKSTART = (
    "%%deepagent -m demo:quickstart -o run\n"
    "Write me a short brief on life in tide pools. Keep notes in a file as you go."
)
NOTES = "/notes/stresses.md"
RULE = "(operations=['write'], paths=['/notes/**'], mode='deny')"
LIVE_SCRIPT = """\
delay: 0.01
agents:
  main:
    - match: "first"
      turns:
        - text: "Writing a first file."
          tool_calls:
            - {name: write_file, args: {file_path: /a.md, content: "first\\n"}}
        - text: "Done."
    - match: "second"
      turns:
        - text: "Thinking about it for a while before I write anything at all, slowly."
          tool_calls:
            - {name: write_file, args: {file_path: /notes/live.md, content: "# Live\\nwritten mid-run\\n"}}
        - text: "Now some closing words, also streamed slowly, one after another, to the end."
"""


@pytest.fixture(scope="module")
def kernel(tmp_path_factory) -> Iterator[KernelSession]:
    with deepnb_kernel(str(tmp_path_factory.mktemp("files-view"))) as session:
        run = session.execute(QUICKSTART)
        assert run.ok, run.text()
        yield session


def files_views(kernel: KernelSession) -> list[str]:
    with kernel._lock:
        return [cid for cid, state in kernel.widgets.items() if state.get("_anywidget_id") == FILES_VIEW]


def open_view(kernel: KernelSession, line: str = "%deepagent files") -> tuple[str, Any]:
    """Run ``line``; return the new view's comm id and the cell's execution."""
    before = len(files_views(kernel))
    execution = kernel.execute(line)
    assert execution.ok, execution.text()
    comm_id = kernel.wait_for(lambda: len(files_views(kernel)) > before and files_views(kernel)[-1])
    return comm_id, execution


def ask(kernel: KernelSession, comm_id: str, content: dict[str, Any], timeout: float = 30) -> dict[str, Any]:
    """Send what the front-end sends; return the reply with the same ``seq``."""
    seq = uuid.uuid4().hex
    kernel.click(comm_id, {**content, "seq": seq})

    def reply() -> dict[str, Any] | None:
        return next((m for cid, m in kernel.custom if cid == comm_id and m.get("seq") == seq), None)

    return kernel.wait_for(reply, timeout=timeout)


def changed_since(kernel: KernelSession, comm_id: str, seen: int) -> list[str]:
    """Every path named by ``changed`` messages of the view after the first ``seen`` messages."""
    return [
        path
        for cid, msg in kernel.custom[seen:]
        if cid == comm_id and msg.get("type") == "changed"
        for path in msg["paths"]
    ]


def kernel_value(kernel: KernelSession, expression: str) -> Any:
    execution = kernel.execute(f"import json as _json; print(_json.dumps({expression}))")
    assert execution.ok, execution.text()
    return json.loads(execution.text())


@pytest.fixture(scope="module")
def view(kernel: KernelSession) -> str:
    comm_id, _ = open_view(kernel)
    return comm_id


# -- what the magic shows ------------------------------------------------------------------------


def test_files_magic_shows_the_browser_over_a_static_listing(kernel: KernelSession, view: str) -> None:
    comm_id, execution = open_view(kernel)
    (result,) = [o for o in execution.outputs if o["msg_type"] == "execute_result"]
    data = result["content"]["data"]
    assert data[WIDGET_MIME]["model_id"] == comm_id
    assert data["text/plain"].startswith("/ · files of thread ") and "notes/" in data["text/plain"]
    assert "<td>/notes/</td>" in unstyled(data["text/html"]) and "deepnb-snapshot" in data["text/html"]

    state = kernel.widgets[comm_id]
    assert [e["path"] for e in state["root_entries"]] == ["/notes/"]
    assert state["root_entries"][0]["is_dir"] is True and state["root_total"] == 1
    assert state["path"] == "/" and state["backend"] == "state" and state["agent"] == "default"
    run_id = kernel_value(kernel, "run.id")
    assert state["run_id"] == run_id and state["has_changes"] is True


def test_ls_lists_the_root_and_a_folder(kernel: KernelSession, view: str) -> None:
    root = ask(kernel, view, {"type": "ls", "path": "/"})
    assert (root["type"], root["error"], root["total"]) == ("listing", "", 1)
    assert [e["name"] for e in root["entries"]] == ["notes/"]
    notes = ask(kernel, view, {"type": "ls", "path": "/notes"})
    assert notes["path"] == "/notes/" and notes["error"] == ""
    (entry,) = notes["entries"]
    assert entry["path"] == NOTES and entry["name"] == "stresses.md" and not entry["is_dir"]
    assert entry["size"] > 100 and entry["modified_at"] and entry["writable"] is True
    assert entry["mount"] is None


def test_open_renders_markdown_and_sends_the_text_to_edit(kernel: KernelSession, view: str) -> None:
    shown = ask(kernel, view, {"type": "open", "path": NOTES})
    assert (shown["type"], shown["path"], shown["kind"], shown["error"]) == ("file", NOTES, "markdown", "")
    assert "<h1>Tide-pool stresses</h1>" in shown["html"]
    assert "<li>Anemones fold in to hold water</li>" in shown["html"]
    assert shown["text"].startswith("# Tide-pool stresses\n")
    assert shown["writable"] is True and shown["editable"] is True and shown["readonly"] == ""
    assert shown["size"] == len(shown["text"].encode()) and shown["modified_at"]


def test_search_by_glob_and_grep(kernel: KernelSession, view: str) -> None:
    grep = ask(kernel, view, {"type": "search", "mode": "grep", "query": "Barnacles", "path": "/"})
    assert grep["error"] == "" and grep["total"] == 1 and not grep["capped"]
    (hit,) = grep["results"]
    assert hit == {"path": NOTES, "line": 7, "text": "- Barnacles seal their plates shut at low tide"}
    glob = ask(kernel, view, {"type": "search", "mode": "glob", "query": "**/*.md"})
    assert glob["results"] == [{"path": NOTES}] and glob["path"] == "/"
    none = ask(kernel, view, {"type": "search", "mode": "glob", "query": "*.csv"})
    assert none["results"] == [] and none["total"] == 0 and none["error"] == ""
    empty = ask(kernel, view, {"type": "search", "mode": "grep", "query": "  "})
    assert empty["error"].startswith("Type a pattern (e.g. **/*.md)")


def test_save_writes_through_files_and_announces_the_change(kernel: KernelSession, view: str) -> None:
    original = ask(kernel, view, {"type": "open", "path": NOTES})["text"]
    seen = len(kernel.custom)
    edited = original + "- Hermit crabs swap shells as they grow\n"
    saved = ask(kernel, view, {"type": "save", "path": NOTES, "text": edited})
    assert (saved["type"], saved["path"], saved["error"]) == ("saved", NOTES, "")
    assert "<li>Hermit crabs swap shells as they grow</li>" in saved["file"]["html"]
    assert saved["file"]["text"] == edited
    assert kernel_value(kernel, f"run.files[{NOTES!r}]") == edited
    assert NOTES in kernel.wait_for(lambda: changed_since(kernel, view, seen))


def test_writes_from_code_and_other_views_refresh_every_open_view(kernel: KernelSession, view: str) -> None:
    other, _ = open_view(kernel)  # a second view of the same thread
    seen = len(kernel.custom)
    wrote = kernel.execute('run.files.write("/notes/from_code.md", "# From a cell\\n")')
    assert wrote.ok, wrote.text()
    for comm_id in (view, other):
        assert "/notes/from_code.md" in kernel.wait_for(lambda c=comm_id: changed_since(kernel, c, seen))
    listing = ask(kernel, view, {"type": "ls", "path": "/notes/"})
    assert "/notes/from_code.md" in [e["path"] for e in listing["entries"]]

    seen = len(kernel.custom)
    saved = ask(kernel, other, {"type": "save", "path": "/notes/from_code.md", "text": "# Saved\n"})
    assert saved["error"] == ""
    assert "/notes/from_code.md" in kernel.wait_for(lambda: changed_since(kernel, view, seen))

    seen = len(kernel.custom)
    assert kernel.execute('run.files.delete("/notes/from_code.md")').ok
    assert "/notes/from_code.md" in kernel.wait_for(lambda: changed_since(kernel, view, seen))
    # A closed view hears nothing more.
    assert kernel.execute(f"from ipywidgets import Widget; Widget.widgets[{other!r}].close()").ok
    seen = len(kernel.custom)
    assert kernel.execute('run.files.write("/notes/after_close.md", "x")').ok
    assert "/notes/after_close.md" in kernel.wait_for(lambda: changed_since(kernel, view, seen))
    assert not changed_since(kernel, other, seen)
    assert kernel.execute('run.files.delete("/notes/after_close.md")').ok


def test_unsafe_and_missing_paths_get_one_clear_message(kernel: KernelSession, view: str) -> None:
    before = kernel_value(kernel, "sorted(run.files)")
    saved = ask(kernel, view, {"type": "save", "path": "/../x", "text": "escape"})
    assert saved["error"] == "'/../x' climbs out of the agent's filesystem ('..' and '~' are refused)."
    assert saved["file"] is None
    opened = ask(kernel, view, {"type": "open", "path": "/../x"})
    assert "climbs out" in opened["error"] and opened["html"] == ""
    relative = ask(kernel, view, {"type": "ls", "path": "notes"})
    assert relative["error"].startswith("'notes' is relative: paths in the agent's filesystem start with '/'")
    missing = ask(kernel, view, {"type": "open", "path": "/nope.md"})
    assert missing["error"] == "/nope.md is not in the thread's files (any more)."
    nothing = ask(kernel, view, {"type": "save", "path": NOTES})
    assert nothing["error"] == f"Nothing to save to {NOTES}: the editor sent no text."
    assert kernel_value(kernel, "sorted(run.files)") == before


def test_download_sends_the_bytes(kernel: KernelSession, view: str) -> None:
    blob = ask(kernel, view, {"type": "download", "path": NOTES})
    assert (blob["type"], blob["name"], blob["mime"]) == ("blob", "stresses.md", "text/markdown")
    assert blob["error"] == ""
    assert base64.b64decode(blob["base64"]).decode() == kernel_value(kernel, f"run.files[{NOTES!r}]")
    assert blob["size"] == len(base64.b64decode(blob["base64"]))
    missing = ask(kernel, view, {"type": "download", "path": "/nope.bin"})
    assert missing["error"] == "/nope.bin is not in the thread's files (any more)."
    assert missing["base64"] == ""


def test_changes_lists_the_runs_diffs(kernel: KernelSession, view: str) -> None:
    changes = ask(kernel, view, {"type": "changes"})
    assert changes["error"] == "" and changes["run_id"] == kernel_value(kernel, "run.id")
    assert changes["status"] == "done"
    (change,) = changes["changes"]
    assert change["path"] == NOTES and change["kind"] == "added" and not change["clipped"]
    assert "+# Tide-pool stresses" in change["diff"].splitlines()


def test_a_view_without_a_run_has_no_changes_tab(kernel: KernelSession) -> None:
    bench = (
        "import deepnb\n"
        "fresh = deepnb.agent('fresh', 'demo:quickstart')\n"
        "fresh.files('empty').write('/x.txt', 'x')"
    )
    assert kernel.execute(bench).ok
    comm_id, _ = open_view(kernel, "%deepagent files -a fresh -t empty")
    state = kernel.widgets[comm_id]
    assert state["has_changes"] is False and state["run_id"] == ""
    assert [e["path"] for e in state["root_entries"]] == ["/x.txt"]
    reply = ask(kernel, comm_id, {"type": "changes"})
    assert reply["error"].startswith("No run of this thread in this kernel") and reply["changes"] == []


KINDS = textwrap.dedent(
    """\
    import base64, deepnb
    kinds = deepnb.agent("kinds", "demo:quickstart").files("kinds")
    kinds.write("/data/blob.bin", bytes(range(256)))
    kinds.write("/data/pixel.png", base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    ))
    kinds.write("/data/table.csv", "animal,trick\\nbarnacle,<b>seals</b>\\n")
    kinds.write("/.env", "OPENAI_API_KEY=sk-sentinel-value-1234567890\\n")
    """
)


def test_binary_images_tables_and_secrets(kernel: KernelSession) -> None:
    assert kernel.execute(KINDS).ok
    comm_id, _ = open_view(kernel, "%deepagent files -a kinds -t kinds")

    binary = ask(kernel, comm_id, {"type": "open", "path": "/data/blob.bin"})
    assert binary["kind"] == "binary" and binary["text"] == "" and not binary["editable"]
    assert "is a binary file (256 bytes); it is not shown." in binary["html"]
    assert binary["readonly"] == "/data/blob.bin is not a text file: only text files can be edited here."
    blob = ask(kernel, comm_id, {"type": "download", "path": "/data/blob.bin"})
    assert base64.b64decode(blob["base64"]) == bytes(range(256))
    assert blob["mime"] == "application/octet-stream"
    refused = ask(kernel, comm_id, {"type": "save", "path": "/data/blob.bin", "text": "x"})
    assert refused["error"] == "/data/blob.bin is not a text file: only text files can be edited here."

    image = ask(kernel, comm_id, {"type": "open", "path": "/data/pixel.png"})
    assert image["kind"] == "image" and image["html"].startswith('<img class="dnb-file-image"')
    assert 'src="data:image/png;base64,' in image["html"] and not image["editable"]

    table = ask(kernel, comm_id, {"type": "open", "path": "/data/table.csv"})
    assert table["kind"] == "table" and "<td>&lt;b&gt;seals&lt;/b&gt;</td>" in table["html"]
    assert table["editable"] is True

    secret = ask(kernel, comm_id, {"type": "open", "path": "/.env"})
    assert "sk-sentinel-value-1234567890" not in json.dumps(secret)
    assert secret["editable"] is False and "holds what looks like a secret" in secret["readonly"]
    kept = ask(kernel, comm_id, {"type": "save", "path": "/.env", "text": secret["text"]})
    assert "holds what looks like a secret" in kept["error"]
    found = ask(kernel, comm_id, {"type": "search", "mode": "grep", "query": "OPENAI"})
    assert found["results"] == [{"path": "/.env", "line": 1, "text": "OPENAI_API_KEY=[redacted]"}]
    assert kernel_value(kernel, "kinds['/.env']") == "OPENAI_API_KEY=sk-sentinel-value-1234567890\n"


# -- permissions --------------------------------------------------------------------------------


def test_a_denied_write_names_the_rule_and_changes_nothing(kernel: KernelSession) -> None:
    define = textwrap.dedent(
        """\
        import deepnb
        from deepagents import FilesystemPermission
        locked = deepnb.agent(
            "locked",
            "demo:quickstart",
            checkpointer=deepnb.session.building.get("default").checkpointer,
            permissions=[FilesystemPermission(operations=["write"], paths=["/notes/**"], mode="deny")],
        )
        thread = run.thread_id
        """
    )
    assert kernel.execute(define).ok
    before = kernel_value(kernel, f"run.files[{NOTES!r}]")
    comm_id, _ = open_view(kernel, "%deepagent files -a locked -t {thread}")
    (notes,) = ask(kernel, comm_id, {"type": "ls", "path": "/notes/"})["entries"]
    assert notes["writable"] is False

    shown = ask(kernel, comm_id, {"type": "open", "path": NOTES})
    assert shown["error"] == "" and shown["writable"] is False and shown["editable"] is False
    assert shown["readonly"] == f"Changing {NOTES} is denied by the agent's permission rule {RULE}."
    assert shown["text"] == before  # shown read-only, as source

    saved = ask(kernel, comm_id, {"type": "save", "path": NOTES, "text": "overwritten"})
    assert saved["error"] == f"Changing {NOTES} is denied by the agent's permission rule {RULE}."
    assert saved["file"] is None
    new = ask(kernel, comm_id, {"type": "save", "path": "/notes/new.md", "text": "x"})
    assert "denied by the agent's permission rule" in new["error"]
    assert kernel_value(kernel, f"run.files[{NOTES!r}]") == before
    assert "/notes/new.md" not in kernel_value(kernel, "sorted(run.files)")


# -- live updates ---------------------------------------------------------------------------------


def test_a_background_run_refreshes_an_open_view(kernel: KernelSession, tmp_path) -> None:
    script = tmp_path / "live.yaml"
    script.write_text(LIVE_SCRIPT)
    first = kernel.execute(f"%%deepagent -a live -m scripted:{script} -o first_live\nfirst")
    assert first.ok, first.text()
    comm_id, _ = open_view(kernel, "%deepagent files -a live")
    state = kernel.widgets[comm_id]
    assert [e["path"] for e in state["root_entries"]] == ["/a.md"]
    first_run = state["run_id"]

    seen = len(kernel.custom)
    started = kernel.execute("%%deepagent -a live --bg -o second_live\nsecond")
    assert started.ok, started.text()

    # The run's start and end come as "/" (the thread locks and unlocks its files); the write names
    # its path, in one of the messages after them.
    def written() -> bool:
        return "/notes/live.md" in changed_since(kernel, comm_id, seen)

    assert kernel.wait_for(written, timeout=30)
    # The view follows the new run (for its changes tab) and lists the new folder on request.
    assert kernel.wait_for(lambda: kernel.widgets[comm_id]["run_id"] != first_run)
    assert kernel_value(kernel, "second_live.id") == kernel.widgets[comm_id]["run_id"]
    root = ask(kernel, comm_id, {"type": "ls", "path": "/"})
    assert [e["path"] for e in root["entries"]] == ["/notes/", "/a.md"]
    assert kernel.execute("second_live.wait(30).status").ok
    changes = ask(kernel, comm_id, {"type": "changes"})
    assert [(c["path"], c["kind"]) for c in changes["changes"]] == [("/notes/live.md", "added")]


# -- size -----------------------------------------------------------------------------------------

BULK = textwrap.dedent(
    """\
    import deepnb
    from deepagents.backends.utils import create_file_data
    bulk = deepnb.agent("bulk", "demo:quickstart")
    bulk.graph.update_state(
        {"configurable": {"thread_id": "bulk"}},
        {"files": {f"/f{i:04}.txt": create_file_data(f"line {i}\\n") for i in range(3000)}},
    )
    """
)


def test_thousands_of_files_keep_the_synced_state_small(kernel: KernelSession) -> None:
    assert kernel.execute(BULK).ok
    comm_id, execution = open_view(kernel, "%deepagent files -a bulk -t bulk")
    with kernel._lock:
        opened = next(
            m["content"]
            for m in kernel.iopub
            if m["msg_type"] == "comm_open" and m["content"]["comm_id"] == comm_id
        )
    state = opened["data"]["state"]
    size = len(json.dumps(state))
    traits = len(json.dumps({k: v for k, v in state.items() if k not in ("_esm", "_css")}))
    assert size < 100_000, size  # the front-end's code (_esm, _css) included
    assert traits < 30_000, traits
    assert state["root_total"] == 3000 and len(state["root_entries"]) == 100

    (result,) = [o for o in execution.outputs if o["msg_type"] == "execute_result"]
    html = result["content"]["data"]["text/html"]
    assert html.count("<tr>") == 41 and "… and 2,960 more" in html  # a header row + 40 entries
    assert len(html) < 20_000

    page = ask(kernel, comm_id, {"type": "ls", "path": "/", "offset": 200})
    assert page["offset"] == 200 and page["total"] == 3000 and len(page["entries"]) == 200
    assert page["entries"][0]["path"] == "/f0200.txt"
    glob = ask(kernel, comm_id, {"type": "search", "mode": "glob", "query": "*.txt"})
    assert glob["total"] == 3000 and glob["capped"] is True and len(glob["results"]) == 500
    grep = ask(kernel, comm_id, {"type": "search", "mode": "grep", "query": "line 29"})
    assert grep["total"] == 111 and not grep["capped"]
