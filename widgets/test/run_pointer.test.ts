// Clicks and keys in the run view that no control handles itself: a changed file or a summary's
// file opens in the peek, "Show subagent" reveals its node, "show all" asks for the folded items,
// a tool card's or a subagent's head opens and closes it (not when the click ends a selection).

import "./dom";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { click, press } from "./dom";
import { runPointer } from "../src/run/run_pointer";
import { ITEM_RECS, makeItem } from "../src/run/transcript";

function setup() {
  const root = document.createElement("div");
  document.body.replaceChildren(root);
  const calls: unknown[][] = [];
  const sent: unknown[] = [];
  const filesPeek = document.createElement("div");
  const expanded = new Set<string>();
  const parts = {
    root,
    model: { send: (msg: unknown) => sent.push(msg) },
    tree: { reveal: (id: string) => calls.push(["reveal", id]), toggle: (head: Element) => calls.push(["toggle", head]) },
    peek: { open: (path: string, anchor: unknown) => calls.push(["open", path, anchor]) },
    files: { peek: filesPeek },
    st: { expanded },
  };
  const stop = runPointer(parts as any);
  return { root, calls, sent, filesPeek, expanded, stop };
}

const add = (root: Element, html: string): HTMLElement => {
  const holder = document.createElement("div");
  holder.innerHTML = html;
  root.append(holder);
  return holder.firstElementChild as HTMLElement;
};

describe("the run view's clicks and keys", () => {
  it("opens a changed file in the peek under the list, by click or Enter", () => {
    const s = setup();
    const file = add(s.root, '<code class="dnb-file dnb-file-open" tabindex="0">/a.md</code>');
    click(file);
    press(file, "Enter");
    press(file, "x");
    assert.deepEqual(s.calls, [["open", "/a.md", s.filesPeek], ["open", "/a.md", s.filesPeek]]);
  });

  it("reveals a subagent, opens a summary's file and asks for the folded items", () => {
    const s = setup();
    click(add(s.root, '<button class="dnb-show-subagent" data-node="main/a">→ a</button>'));
    const summary = add(s.root, '<div class="dnb-summary"><button class="dnb-summary-open" data-path="/h.md">open</button></div>');
    click(summary.querySelector("button"));
    const more = add(s.root, '<button class="dnb-expand">show all</button>') as HTMLButtonElement;
    click(more);
    click(add(s.root, '<button class="other" data-node="x">x</button>'));
    assert.deepEqual(s.calls, [["reveal", "main/a"], ["open", "/h.md", summary]]);
    assert.deepEqual(s.sent, [{ type: "expand" }]);
    assert.equal(more.disabled, true);
    assert.equal(more.textContent, "loading…");
  });

  it("opens and closes a tool card from its head, remembering it, and hands a subagent's head to the tree", () => {
    const s = setup();
    const rec = makeItem({ id: "t", kind: "tool", name: "ls", args: "{}", result: "", status: "done" } as any, "t", s.expanded);
    ITEM_RECS.set(rec.el, rec);
    s.root.append(rec.el);
    const head = rec.el.querySelector(".dnb-tool-head") as HTMLElement;
    click(head);
    assert.equal(rec.tool!.open, true);
    assert.ok(s.expanded.has("t"));
    press(head, " ");
    assert.equal(rec.tool!.open, false);
    assert.equal(s.expanded.has("t"), false);
    const node = add(s.root, '<div class="dnb-node-head" tabindex="0">a</div>');
    press(node, "Enter");
    assert.deepEqual(s.calls, [["toggle", node]]);
  });

  it("leaves the head alone when the click ends a selection in it, and stops listening when closed", () => {
    const s = setup();
    const node = add(s.root, '<div class="dnb-node-head">some text</div>');
    const sel = window.getSelection()!;
    sel.selectAllChildren(node);
    click(node);
    sel.removeAllRanges();
    assert.deepEqual(s.calls, []);
    s.stop();
    click(node);
    assert.deepEqual(s.calls, []);
  });
});
