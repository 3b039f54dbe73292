// The files a run changed, under its transcript: each changed file a button that opens it in the
// file peek, the writes that did not happen struck through, hidden while there are none.

import "./dom";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeModel } from "./dom";
import { fileLines, filesChangedView } from "../src/run/files_changed";
import type { RunTraits } from "../src/types";

describe("the files changed", () => {
  it("lists the changed files as buttons and the writes not done struck through", () => {
    const fake = new FakeModel<RunTraits>({ files_changed: ["/a.md", "/b <i>.md"], files_not_written: ["/c.md"] });
    const view = filesChangedView(fake as any);
    view.render();
    assert.equal(view.el.className, "dnb-files");
    assert.equal(view.peek.className, "dnb-files-peek");
    assert.equal(view.el.hidden, false);
    assert.equal(view.el.textContent, "Files changed: /a.md, /b <i>.mdNot written: /c.md");
    assert.equal(view.el.querySelector("i"), null, "a path is text, never markup");
    const open = [...view.el.querySelectorAll("code.dnb-file.dnb-file-open")] as HTMLElement[];
    assert.deepEqual(open.map((c) => c.textContent), ["/a.md", "/b <i>.md"]);
    for (const code of open) {
      assert.equal(code.getAttribute("role"), "button");
      assert.equal(code.tabIndex, 0);
      assert.equal(code.title, `Open ${code.textContent}`);
      assert.ok(code.hasAttribute("data-asks-kernel"), "opening a file asks the kernel");
    }
    const struck = view.el.querySelector("s.dnb-file-not-written")!;
    assert.equal(struck.querySelector("code.dnb-file")!.textContent, "/c.md");
    assert.equal(struck.querySelector(".dnb-file-open"), null, "a file not written does not open");
    assert.equal(view.el.querySelectorAll("br").length, 1);
    assert.deepEqual([...view.el.querySelectorAll(".dnb-files-label")].map((n) => n.textContent),
      ["Files changed: ", "Not written: "]);
  });

  it("is hidden while there are none, and reads views saved before `files_not_written`", () => {
    const fake = new FakeModel<RunTraits>({ files_changed: ["/a.md"] });
    const view = filesChangedView(fake as any);
    view.render();
    assert.equal(view.el.hidden, false);
    assert.equal(view.el.textContent, "Files changed: /a.md");
    fake.set("files_changed", []);
    view.render();
    assert.equal(view.el.hidden, true);
    assert.equal(view.el.childNodes.length, 0);
  });

  it("puts a line break only between the two lists", () => {
    const only = fileLines([], ["/x", "/y"]);
    assert.deepEqual(only.map((n) => n.nodeName), ["SPAN", "S", "#text", "S"]);
    assert.equal(fileLines([], []).length, 0);
  });
});
