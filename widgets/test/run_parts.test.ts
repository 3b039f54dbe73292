// The run view's parts: made from the widget's model, put into the view in the order they show,
// Stop marked as a control that asks the kernel, and the run's error said only when no error item
// of the main transcript says it.

import "./dom";
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { FakeModel, mount } from "./dom";
import { mountRun, runParts } from "../src/run/run_parts";
import type { RunTraits } from "../src/types";

const open: (() => void)[] = [];
afterEach(() => { for (const dispose of open.splice(0)) dispose(); });

function parts(fields: Partial<RunTraits> = {}) {
  const fake = new FakeModel<RunTraits>({
    agent: "a", thread_id: "t", status: "done", error: "", items: [], todos: [], pending: [], decisions: [],
    progress: { steps: 1, tool_calls: 0, tokens_in: 0, tokens_out: 0, started_at: 1_700_000_000, elapsed: 1,
      todo_progress: "" },
    card_errors: {}, files_changed: [], tree: [], async_tasks: [], async_error: "", live_controls: true,
    stop_hint: "", code_css: "", revision: 0, ...fields,
  });
  const el = mount();
  const p = runParts(fake as any, el);
  open.push(() => { p.header.dispose(); p.tree.dispose(); p.timeline.dispose(); p.gate.dispose(); p.model.dispose(); });
  return { p, el, fake };
}

describe("the run view's parts", () => {
  it("go into the view in the order they show", () => {
    const { p, el } = parts();
    mountRun(el, p);
    assert.equal(el.firstElementChild, p.root);
    assert.equal(p.root.className, "deepnb deepnb-run");
    assert.equal(p.root.getAttribute("role"), "region");
    const order = [...p.root.children].map((n) => n.tagName === "STYLE" ? "style" : n.className.split(" ")[0]);
    assert.deepEqual(order, ["style", "dnb-progress", "dnb-given", "dnb-filepeek", "dnb-todos", "dnb-tree",
      "dnb-async", "dnb-transcript-tools", "dnb-turns", "dnb-transcript", "dnb-output", "dnb-questions", "dnb-pending",
      "dnb-decisions", "dnb-files", "dnb-files-peek", "dnb-error", "dnb-compose", "dnb-muted", "dnb-timeline",
      "dnb-panels", "dnb-threads", "dnb-announce"]);
  });

  it("mark Stop as asking the kernel", () => {
    const { p } = parts({ status: "running" });
    assert.ok(p.header.el.querySelector(".dnb-stop")!.hasAttribute("data-asks-kernel"));
  });

  it("draw the items into the main transcript, and say the error only when no item says it", () => {
    const { p, fake } = parts({ error: "boom", items: [{ id: "1", kind: "error", text: "boom" }] as any });
    p.items.render();
    assert.deepEqual([...p.transcript.children].map((n) => n.getAttribute("data-id")), ["1"]);
    assert.equal(p.error.el.hidden, true);
    fake.set("error", "other");
    p.error.render();
    assert.equal(p.error.el.textContent, "Error: other");
  });
});
