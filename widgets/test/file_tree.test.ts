// The file tree: entries as WAI-ARIA tree items, folders listed on demand a page at a time,
// keyboard moves, patched in place on refresh.

import "./dom";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { click, mount, press } from "./dom";
import { treeView } from "../src/files/file_tree";
import { fmtSize, parentOf, touches } from "../src/files/format";
import type { Entry, FilesRequest } from "../src/types";

function entry(path: string, fields: Partial<Entry> = {}): Entry {
  const isDir = path.endsWith("/");
  const name = path.replace(/\/$/, "").split("/").pop()!;
  return { path, name, is_dir: isDir, size: isDir ? null : 2048, modified_at: null, mount: "", writable: true, ...fields };
}

function setup() {
  const asked: { message: FilesRequest; reply: (msg: any) => void; seq: string }[] = [];
  const opened: string[] = [];
  let n = 0;
  const tree = treeView((message, reply) => {
    const seq = `s${++n}`;
    asked.push({ message, reply, seq });
    return seq;
  }, (path) => opened.push(path));
  mount().append(tree.el);
  return { tree, asked, opened, el: tree.el };
}

const row = (el: HTMLElement, path: string): HTMLElement => el.querySelector(`.dnb-fv-row[data-path="${path}"]`) as HTMLElement;
const names = (el: HTMLElement): string[] => [...el.querySelectorAll(".dnb-fv-row")].map((r) => r.getAttribute("data-path")!);

describe("file tree", () => {
  it("formats sizes and paths", () => {
    assert.equal(fmtSize(null), "");
    assert.equal(fmtSize(512), "512 B");
    assert.equal(fmtSize(1536), "1.5 kB");
    assert.equal(fmtSize(3 * 1024 * 1024), "3.0 MB");
    assert.equal(parentOf("/a/b.md"), "/a/");
    assert.equal(parentOf("/a/"), "/");
    assert.equal(touches("/a/", "/a/b.md"), true);
    assert.equal(touches("/a/", "/b.md"), false);
    assert.equal(touches("/a/", "/"), true);
  });

  it("renders entries as tree items, one tab stop", () => {
    const { tree, el } = setup();
    tree.fill(tree.root, { entries: [entry("/docs/"), entry("/notes.md", { writable: false })], offset: 0, total: 2 });
    assert.equal(el.getAttribute("role"), "tree");
    assert.deepEqual(names(el), ["/docs/", "/notes.md"]);
    const docs = row(el, "/docs/");
    assert.equal(docs.getAttribute("role"), "treeitem");
    assert.equal(docs.getAttribute("aria-expanded"), "false");
    assert.equal(docs.getAttribute("aria-level"), "1");
    assert.equal(docs.getAttribute("tabindex"), "0");
    const notes = row(el, "/notes.md");
    assert.equal(notes.getAttribute("tabindex"), "-1");
    assert.equal(notes.querySelector(".dnb-fv-size")!.textContent, "2.0 kB");
    assert.equal((notes.querySelector(".dnb-fv-lock") as HTMLElement).hidden, false, "read-only file");
    assert.equal(notes.hasAttribute("aria-expanded"), false);
  });

  it("shows file names as text, bidi controls escaped", () => {
    const { tree, el } = setup();
    tree.fill(tree.root, { entries: [entry("/x.md", { name: "<img src=x onerror=alert(1)>\u202egpj.md" })], offset: 0, total: 1 });
    assert.equal(el.querySelector("img"), null);
    assert.equal(el.querySelector(".dnb-fv-name")!.textContent, "<img src=x onerror=alert(1)>\\u202egpj.md");
  });

  it("lists a folder when it is first opened, and opens files", () => {
    const { tree, el, asked, opened } = setup();
    tree.fill(tree.root, { entries: [entry("/docs/"), entry("/a.md")], offset: 0, total: 2 });
    click(row(el, "/docs/"));
    assert.deepEqual(asked.map((a) => a.message), [{ type: "ls", path: "/docs/", offset: 0, limit: 200 }]);
    assert.equal(el.querySelector(".dnb-fv-loading")!.textContent, "Loading…");
    asked[0].reply({ type: "listing", seq: asked[0].seq, error: "", path: "/docs/", entries: [entry("/docs/b.md")], offset: 0, total: 1 });
    assert.deepEqual(names(el), ["/docs/", "/docs/b.md", "/a.md"]);
    assert.equal(row(el, "/docs/b.md").getAttribute("aria-level"), "2");
    assert.equal(el.querySelector(".dnb-fv-loading"), null);
    click(row(el, "/docs/b.md"));
    assert.deepEqual(opened, ["/docs/b.md"]);
    click(row(el, "/docs/"));
    assert.equal(row(el, "/docs/").getAttribute("aria-expanded"), "false");
    click(row(el, "/docs/"));
    assert.equal(asked.length, 1, "a folder listed once is not asked for again on reopening");
  });

  it("says why a folder could not be listed, and when it is empty", () => {
    const { tree, el, asked } = setup();
    tree.fill(tree.root, { entries: [entry("/a/"), entry("/b/")], offset: 0, total: 2 });
    click(row(el, "/a/"));
    asked[0].reply({ seq: asked[0].seq, error: "Denied by rule /a/**." });
    assert.equal(el.querySelector(".dnb-fv-error")!.textContent, "Denied by rule /a/**.");
    click(row(el, "/b/"));
    asked[1].reply({ seq: asked[1].seq, error: "", entries: [], offset: 0, total: 0 });
    assert.equal(el.querySelector(".dnb-fv-empty-folder")!.textContent, "(empty)");
  });

  it("pages a long folder with Show more", () => {
    const { tree, el, asked } = setup();
    tree.fill(tree.root, { entries: [entry("/1.md"), entry("/2.md")], offset: 0, total: 1500 });
    const more = el.querySelector(".dnb-fv-more") as HTMLButtonElement;
    assert.equal(more.textContent, "Show more (2 of 1,500 shown)");
    click(more);
    assert.deepEqual(asked[0].message, { type: "ls", path: "/", offset: 2, limit: 200 });
    asked[0].reply({ seq: asked[0].seq, error: "", entries: [entry("/2.md"), entry("/3.md")], offset: 2, total: 3 });
    assert.deepEqual(names(el), ["/1.md", "/2.md", "/3.md"]);
    assert.equal(el.querySelector(".dnb-fv-more-item"), null);
  });

  it("patches entries in place on refresh and drops the gone ones", () => {
    const { tree, el, asked } = setup();
    tree.fill(tree.root, { entries: [entry("/a.md"), entry("/b.md")], offset: 0, total: 2 });
    const a = row(el, "/a.md");
    tree.refresh(["/b.md"]);
    assert.deepEqual(asked[0].message, { type: "ls", path: "/", offset: 0, limit: 200 });
    asked[0].reply({ seq: asked[0].seq, error: "", entries: [entry("/a.md", { size: 10 }), entry("/c.md")], offset: 0, total: 2 });
    assert.deepEqual(names(el), ["/a.md", "/c.md"]);
    assert.equal(row(el, "/a.md"), a, "an entry keeps its row");
    assert.equal(a.querySelector(".dnb-fv-size")!.textContent, "10 B");
  });

  it("moves with the arrow keys and opens folders with ArrowRight", () => {
    const { tree, el, asked } = setup();
    tree.fill(tree.root, { entries: [entry("/d/"), entry("/a.md"), entry("/b.md")], offset: 0, total: 3 });
    press(row(el, "/d/"), "ArrowDown");
    assert.equal(document.activeElement, row(el, "/a.md"));
    assert.equal(row(el, "/a.md").getAttribute("tabindex"), "0");
    assert.equal(row(el, "/d/").getAttribute("tabindex"), "-1");
    press(row(el, "/a.md"), "End");
    assert.equal(document.activeElement, row(el, "/b.md"));
    press(row(el, "/b.md"), "Home");
    assert.equal(document.activeElement, row(el, "/d/"));
    press(row(el, "/d/"), "ArrowRight");
    assert.equal(row(el, "/d/").getAttribute("aria-expanded"), "true");
    assert.equal(asked.length, 1);
  });

  it("marks the selected file", () => {
    const { tree, el } = setup();
    tree.fill(tree.root, { entries: [entry("/a.md"), entry("/b.md")], offset: 0, total: 2 });
    tree.select("/b.md");
    assert.equal(row(el, "/b.md").getAttribute("aria-selected"), "true");
    assert.equal(row(el, "/a.md").hasAttribute("aria-selected"), false);
  });
});
