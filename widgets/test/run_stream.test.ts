// A long run streaming into its view: a token patches the one text node that grows, not the
// transcript; the items a patch did not change are not even looked at; the header's counts read as
// before.

import "./dom";
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { FakeModel, mount, settle, window } from "./dom";
import view from "../src/run_view";
import { count } from "../src/run/header";
import { fmtInt } from "../src/lib/text";
import type { Item, RunTraits } from "../src/types";

const shown: (() => void)[] = [];
afterEach(() => { for (const dispose of shown.splice(0)) dispose(); });

function transcript(steps: number): Item[] {
  const items: Item[] = [{ kind: "prompt", id: "p", agent: "main", text: "Work through the plan." }];
  for (let i = 0; i < steps; i++) {
    items.push({ kind: "text", id: `m${i}`, agent: "main", text: `step ${i}`, html: `<p>step ${i}</p>` });
    items.push({ kind: "tool", id: `t${i}`, agent: "main", name: "ls", args: "path='/'", args_full: "{}", status: "done",
      result: "a.md", result_full: "a.md" });
  }
  return items;
}

function streaming(steps: number) {
  const items = transcript(steps);
  const fake = new FakeModel<RunTraits>({
    agent: "a", thread_id: "t", status: "running", error: "", items, todos: [],
    progress: { steps, tool_calls: steps, tokens_in: 1000, tokens_out: 10, started_at: 1_700_000_000, elapsed: 5,
      todo_progress: "" },
    pending: [], decisions: [], card_errors: {}, files_changed: [], tree: [], async_tasks: [], async_error: "",
    live_controls: true, stop_hint: "", code_css: "", revision: 0,
  });
  const el = mount();
  shown.push(view.render({ model: fake as any, el }));
  return { fake, el, items };
}

describe("streaming into a long transcript", () => {
  it("a token changes the streaming text node and nothing else in the transcript", async () => {
    const { fake, el, items } = streaming(100);
    const last = { kind: "text", id: "live", agent: "main", text: "The next", html: null } as Item;
    fake.message({ type: "patch", upsert: [last], append_ids: ["live"] });
    const body = el.querySelector('.dnb-transcript [data-id="live"] .dnb-text-body')!;
    const node = body.firstChild as Text;
    assert.equal(node.data, "The next");
    const box = el.querySelector(".dnb-transcript")!;
    const records: MutationRecord[] = [];
    const watcher = new (window as any).MutationObserver((found: MutationRecord[]) => records.push(...found));
    watcher.observe(box, { subtree: true, childList: true, attributes: true, characterData: true });
    fake.message({ type: "patch", upsert: [{ ...last, text: "The next step" }],
      state: { progress: { ...fake.traits.progress!, tokens_out: 11 } } });
    await settle();
    watcher.disconnect();
    assert.equal(body.firstChild, node, "the text node stays");
    assert.equal(node.data, "The next step");
    assert.ok(records.length > 0);
    assert.deepEqual(records.map((r) => [r.type, r.target]), records.map(() => ["characterData", node]),
      "the only change in the transcript is the streaming text");
    assert.equal(box.children.length, items.length + 1);
  });

  it("items a patch did not change are not compared again", () => {
    const { fake, items } = streaming(50);
    let reads = 0;
    const watched = items[7] as Record<string, any>;
    const text = watched.text;
    Object.defineProperty(watched, "text", { get: () => { reads++; return text; }, enumerable: true });
    fake.message({ type: "patch", upsert: [{ kind: "text", id: "live", agent: "main", text: "a", html: null }],
      append_ids: ["live"] });
    for (let i = 0; i < 20; i++) {
      fake.message({ type: "patch", upsert: [{ kind: "text", id: "live", agent: "main", text: `a${"b".repeat(i)}`,
        html: null }] });
    }
    assert.equal(reads, 0, "an item handed back as the same object is skipped");
    // A full sync hands new objects: each is compared (and shown) again.
    fake.update({ items: [...transcript(50).slice(0, 7), { ...watched, text: "changed", html: "<p>changed</p>" } as Item],
      revision: 1 });
    assert.equal(document.querySelector('.dnb-transcript [data-id="m3"] .dnb-text-body')!.textContent, "changed");
  });

  it("the header's counts read as fmtInt writes them", () => {
    for (const value of [0, 1, 999, 1000, 12_345.5, 1_234_567, -2.5, "17", null, "x", Infinity]) {
      assert.equal(count(value), fmtInt(value), String(value));
    }
  });
});
