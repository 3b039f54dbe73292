// Where the run's items are drawn: the main agent's in the main transcript, a subagent's in its
// node of the tree (or the main transcript when the tree has no such node); the final answer
// marked once the run is done; the tools shown over more than one item; the error redrawn after.

import "./dom";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runItems, splitItems } from "../src/run/run_items";
import { type Entry, itemList } from "../src/run/transcript";

const entry = (key: string, kind: string, agent?: string): Entry =>
  ({ key, item: { id: key, kind, text: key, ...(agent ? { agent } : {}) } as any });

describe("the items' places", () => {
  it("splits the main agent's items from the subagents' that have a node", () => {
    const entries = [entry("1", "text", "main"), entry("2", "tool", "main/a"), entry("3", "error"),
      entry("4", "text", "main/b"), entry("5", "text", "main/a")];
    const { main, byNode } = splitItems(entries, (node) => node === "main/a");
    assert.deepEqual(main.map((e) => e.key), ["1", "3", "4"], "an error names no agent; main/b has no node");
    assert.deepEqual([...byNode].map(([node, list]) => [node, list.map((e) => e.key)]), [["main/a", ["2", "5"]]]);
  });
});

function parts(traits: Record<string, unknown>, nodes: string[] = []) {
  const calls: string[] = [];
  const transcript = document.createElement("div");
  const main = itemList(transcript, new Set());
  let treeChanged = false;
  const tree = {
    has: (node: string) => nodes.includes(node),
    syncItems: (groups: Map<string, Entry[]>) => calls.push(`tree ${[...groups.keys()].join(",")}`),
    render: () => { calls.push("tree render"); return treeChanged; },
  };
  const tools = { el: document.createElement("div"), apply: () => calls.push("tools") };
  const timeline = {
    render: () => calls.push("timeline"),
    markSteps: (_: unknown, key: string | null) => calls.push(`steps ${key}`),
  };
  const error = { render: () => calls.push("error") };
  const items = runItems({ get: ((name: string) => traits[name]) as any }, { main, tree, tools, timeline, error } as any);
  return { items, calls, transcript, tools, main, changeTree: (v: boolean) => { treeChanged = v; } };
}

describe("the run's items", () => {
  it("draws the main transcript, the tree's groups, the tools and the error, in that order", () => {
    const p = parts({ status: "running", items: [
      { id: "a", kind: "prompt", text: "hi" }, { id: "b", kind: "text", text: "x", agent: "main/a" },
      { id: "c", kind: "text", text: "y" }] }, ["main/a"]);
    p.items.render();
    assert.deepEqual([...p.transcript.children].map((n) => n.getAttribute("data-id")), ["a", "c"]);
    assert.deepEqual(p.calls, ["steps null", "tree main/a", "tools", "error"]);
    assert.equal(p.tools.el.hidden, false, "two items: the tools show");
    assert.deepEqual([...p.items.groups().keys()], ["main/a"]);
  });

  it("marks the last text of a done run as the final answer, and unmarks it when it is no longer", () => {
    const traits: Record<string, unknown> = { status: "done", items: [{ id: "a", kind: "text", text: "answer" }] };
    const p = parts(traits);
    p.items.render();
    const a = p.transcript.querySelector('[data-id="a"]')!;
    assert.ok(a.classList.contains("dnb-final-answer"));
    assert.equal(a.getAttribute("aria-label"), "Final answer");
    assert.equal(p.tools.el.hidden, true, "one item: no tools");
    assert.ok(p.calls.includes("steps a"), "the timeline's last step points at the answer");
    traits.status = "running";
    p.items.renderFinal();
    assert.equal(a.classList.contains("dnb-final-answer"), false);
    assert.equal(p.calls.at(-1), "steps null");
  });

  it("draws the items again only when the tree's nodes came or went", () => {
    const p = parts({ status: "running", items: [] });
    p.items.renderTree();
    assert.deepEqual(p.calls.splice(0), ["tree render"]);
    p.changeTree(true);
    p.items.renderTree();
    assert.deepEqual(p.calls.splice(0), ["tree render", "steps null", "tree ", "tools", "error"]);
    p.items.renderTimeline();
    assert.deepEqual(p.calls.splice(0), ["timeline", "steps null"]);
  });
});
