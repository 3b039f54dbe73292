// The file view as anywidget renders it: requests matched to their replies by seq, the viewer and
// editor, search, the tabs, and live refreshes.

import "./dom";
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { click, FakeModel, mount, press, settle, window } from "./dom";
import view from "../src/files_view";
import type { Entry, FilesTraits } from "../src/types";

const shown: (() => void)[] = [];
afterEach(() => { for (const dispose of shown.splice(0)) dispose(); });

function entry(path: string): Entry {
  return { path, name: path.slice(1), is_dir: false, size: 5, modified_at: null, mount: "", writable: true };
}

function show(fields: Partial<FilesTraits> = {}) {
  const fake = new FakeModel<FilesTraits>({
    agent: "writer", thread_id: "t1", backend: "state", path: "/", root_entries: [entry("/a.md"), entry("/b.py")],
    root_total: 2, mounts: {}, run_id: "", has_changes: false, code_css: "", ...fields,
  });
  const el = mount();
  shown.push(view.render({ model: fake as any, el }));
  return { fake, el };
}

const text = (el: Element, sel: string): string => el.querySelector(sel)!.textContent!;
const row = (el: Element, path: string): HTMLElement => el.querySelector(`.dnb-fv-row[data-path="${path}"]`) as HTMLElement;

function file(path: string, fields: Record<string, unknown> = {}) {
  return { type: "file", path, kind: "markdown", html: "<h1>Title</h1>", text: "# Title", size: 7, modified_at: null,
    writable: true, editable: true, readonly: "", error: "", ...fields };
}

describe("file view", () => {
  it("shows where the files are and the top folder", () => {
    const { el } = show();
    assert.equal(text(el, ".dnb-fv-where"), "/ · agent writer · thread t1 · state");
    assert.deepEqual([...el.querySelectorAll(".dnb-fv-row")].map((r) => r.getAttribute("data-path")), ["/a.md", "/b.py"]);
    assert.equal((el.querySelector(".dnb-fv-tab-changes") as HTMLElement).hidden, true);
    assert.equal(text(el, ".dnb-fv-placeholder"), "Pick a file to see it here.");
  });

  it("opens a file, matching its reply by seq and ignoring another view's", () => {
    const { el, fake } = show();
    click(row(el, "/a.md"));
    const ask = fake.sent.at(-1);
    assert.equal(ask.type, "open");
    assert.equal(ask.path, "/a.md");
    assert.match(ask.seq, /^fv\d+-[a-z0-9]+:\d+$/);
    fake.message({ ...file("/a.md", { html: "<h1>Wrong</h1>" }), seq: "someone-else:1" });
    assert.equal(el.querySelector(".dnb-fv-content h1"), null);
    fake.message({ ...file("/a.md"), seq: ask.seq });
    assert.equal(text(el, ".dnb-fv-content h1"), "Title");
    assert.equal(text(el, ".dnb-fv-path"), "/a.md");
    assert.equal(text(el, ".dnb-fv-meta"), "Markdown · 7 B");
    assert.equal(row(el, "/a.md").getAttribute("aria-selected"), "true");
  });

  it("edits and saves a file; a refused save keeps the text and says why", () => {
    const { el, fake } = show();
    click(row(el, "/a.md"));
    fake.message({ ...file("/a.md"), seq: fake.sent.at(-1).seq });
    click(el.querySelector(".dnb-fv-edit"));
    const area = el.querySelector(".dnb-fv-textarea") as HTMLTextAreaElement;
    assert.equal(area.value, "# Title");
    area.value = "# New";
    press(area, "s", { ctrlKey: true });
    const save = fake.sent.at(-1);
    assert.deepEqual({ ...save, seq: undefined }, { type: "save", path: "/a.md", text: "# New", seq: undefined });
    assert.equal(text(el, ".dnb-fv-save"), "Saving…");
    fake.message({ type: "saved", seq: save.seq, path: "/a.md", error: "Denied by rule /a.md." });
    assert.equal(text(el, ".dnb-fv-editor-error"), "Denied by rule /a.md.");
    assert.equal(area.value, "# New", "nothing typed is lost");
    click(el.querySelector(".dnb-fv-save"));
    const again = fake.sent.at(-1);
    fake.message({ type: "saved", seq: again.seq, path: "/a.md", error: "", file: file("/a.md", { html: "<h1>New</h1>", text: "# New" }) });
    assert.equal(el.getAttribute("data-editing"), null);
    assert.equal(el.querySelector(".dnb-fv-viewer")!.getAttribute("data-editing"), "false");
    assert.equal(text(el, ".dnb-fv-content h1"), "New");
  });

  it("shows a read-only file's reason", () => {
    const { el, fake } = show();
    click(row(el, "/b.py"));
    fake.message({ ...file("/b.py", { kind: "code", editable: false, readonly: "a permission rule denies writes" }),
      seq: fake.sent.at(-1).seq });
    assert.equal(text(el, ".dnb-fv-readonly"), "Read-only: a permission rule denies writes");
    assert.equal(text(el, ".dnb-fv-edit"), "View source");
  });

  it("searches by name or text and opens a hit", () => {
    const { el, fake } = show();
    click(el.querySelector(".dnb-fv-mode-grep"));
    const input = el.querySelector(".dnb-fv-query") as HTMLInputElement;
    assert.equal(input.placeholder, "text to find");
    input.value = "needle";
    press(input, "Enter");
    const ask = fake.sent.at(-1);
    assert.deepEqual({ ...ask, seq: undefined }, { type: "search", mode: "grep", query: "needle", path: "/", seq: undefined });
    fake.message({ type: "results", seq: ask.seq, error: "", mode: "grep", query: "needle", path: "/", total: 1, capped: false,
      results: [{ path: "/a.md", line: 3, text: "a <needle>" }] });
    assert.equal(text(el, ".dnb-fv-results-summary"), "1 line contains “needle”");
    assert.equal(el.querySelector(".dnb-fv-results")!.getAttribute("aria-live"), "polite");
    assert.equal(text(el, ".dnb-fv-hit-text"), "a <needle>");
    click(el.querySelector(".dnb-fv-hit"));
    assert.deepEqual({ ...fake.sent.at(-1), seq: undefined }, { type: "open", path: "/a.md", seq: undefined });
  });

  it("opens a grep hit's file at its line: marked and scrolled to, in code and in Markdown", () => {
    const { el, fake } = show();
    click(el.querySelector(".dnb-fv-mode-grep"));
    const input = el.querySelector(".dnb-fv-query") as HTMLInputElement;
    input.value = "tide";
    press(input, "Enter");
    const ask = fake.sent.at(-1);
    fake.message({ type: "results", seq: ask.seq, error: "", mode: "grep", query: "tide", path: "/", total: 2, capped: false,
      results: [{ path: "/b.py", line: 3, text: "    return tide" }, { path: "/a.md", line: 5, text: "- the **tide** turns" }] });
    const hits = [...el.querySelectorAll(".dnb-fv-hit")];
    assert.equal(hits[0].getAttribute("title"), "/b.py:3");
    const scrolled: string[] = [];
    (globalThis as any).HTMLElement.prototype.scrollIntoView = function () { scrolled.push(this.className); };
    click(hits[0]);
    const open = fake.sent.at(-1);
    assert.deepEqual({ ...open, seq: undefined }, { type: "open", path: "/b.py", seq: undefined });
    fake.message({ ...file("/b.py", { kind: "code", text: "def f():\n    x = 1\n    return tide\n",
      html: '<pre class="dnb-code"><code>def f():\n    x = 1\n    return tide\n</code></pre>' }), seq: open.seq });
    const mark = el.querySelector(".dnb-fv-content pre .dnb-fv-line-mark") as HTMLElement;
    assert.ok(mark, "no mark on the line");
    assert.equal(mark.getAttribute("data-line"), "3");
    const lineHeight = parseFloat(mark.style.height);
    assert.ok(lineHeight > 0);
    assert.equal(parseFloat(mark.style.top), parseFloat(window.getComputedStyle(mark.parentElement! as any).paddingTop || "0") + 2 * lineHeight);
    assert.deepEqual(scrolled, ["dnb-fv-line-mark"]);

    click(hits[1]);
    const md = fake.sent.at(-1);
    fake.message({ ...file("/a.md", { html: "<h1>Tides</h1><p>The tide is high.</p><ul><li>the <strong>tide</strong> turns</li></ul>" }),
      seq: md.seq });
    assert.equal(el.querySelector(".dnb-fv-line-mark"), null);
    assert.deepEqual([...el.querySelectorAll(".dnb-fv-hit-block")].map((n) => n.tagName), ["LI"]);

    click(row(el, "/a.md")); // opened from the tree: no line, no mark
    fake.message({ ...file("/a.md"), seq: fake.sent.at(-1).seq });
    assert.equal(el.querySelector(".dnb-fv-hit-block"), null);
  });

  it("cuts a hit's long path in the middle, the whole path in its title, and keeps the match", () => {
    const { el, fake } = show();
    click(el.querySelector(".dnb-fv-mode-grep"));
    const input = el.querySelector(".dnb-fv-query") as HTMLInputElement;
    input.value = "needle";
    press(input, "Enter");
    const long = "/research/2026/very-long-folder-name-for-the-coast/stations/north-pier-readings.md";
    fake.message({ type: "results", seq: fake.sent.at(-1).seq, error: "", mode: "grep", query: "needle", path: "/", total: 1,
      capped: false, results: [{ path: long, line: 12, text: "the needle" }] });
    const shownPath = text(el, ".dnb-fv-hit-path");
    assert.ok(shownPath.length <= 36 && shownPath.includes("…"), shownPath);
    assert.ok(shownPath.startsWith("/research") && shownPath.endsWith("readings.md"), shownPath);
    assert.equal(el.querySelector(".dnb-fv-hit")!.getAttribute("title"), `${long}:12`);
    assert.equal(text(el, ".dnb-fv-hit-text"), "the needle");
  });

  it("shows what the run changed, on its own tab", () => {
    const { el, fake } = show();
    fake.update({ run_id: "run-2", has_changes: true });
    const tab = el.querySelector(".dnb-fv-tab-changes") as HTMLElement;
    assert.equal(tab.hidden, false);
    click(tab);
    assert.equal(tab.getAttribute("aria-selected"), "true");
    const ask = fake.sent.at(-1);
    assert.equal(ask.type, "changes");
    fake.message({ type: "changes", seq: ask.seq, error: "", run_id: "run-2", status: "done",
      changes: [{ path: "/a.md", kind: "modified", diff: "--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n", clipped: false }] });
    assert.equal(text(el, ".dnb-fv-changes-summary"), "1 file changed in run-2.");
    assert.deepEqual([...el.querySelectorAll(".dnb-fv-line")].map((l) => l.className.split(" ")[1]),
      ["dnb-fv-file-line", "dnb-fv-file-line", "dnb-fv-hunk", "dnb-fv-del", "dnb-fv-add"]);
    click(el.querySelector(".dnb-fv-change-open"));
    assert.equal(el.querySelector(".dnb-fv-tab-files")!.getAttribute("aria-selected"), "true");
    assert.deepEqual({ ...fake.sent.at(-1), seq: undefined }, { type: "open", path: "/a.md", seq: undefined });
  });

  it("refreshes what it shows when the kernel says files changed, once for several", async () => {
    const { fake } = show();
    const before = fake.sent.length;
    fake.message({ type: "changed", paths: ["/a.md"] });
    fake.message({ type: "changed", paths: ["/c.md"] });
    await settle(200);
    const asked = fake.sent.slice(before);
    assert.deepEqual(asked.map((m) => [m.type, m.path]), [["ls", "/"]]);
  });
});
