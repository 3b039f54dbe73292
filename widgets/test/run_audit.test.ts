// The run view's audit fixes (issue 14): waiting time apart from run time, "Approve all" across
// interrupts, edited arguments, approval cards, todo changes, task cards, the summary card, the
// transcript's search and filters, and what the view announces to assistive technology.

import "./dom";
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { FakeModel, mount } from "./dom";
import view from "../src/run_view";
import { clockText } from "../src/run/header";
import type { RunTraits } from "../src/types";

let runs = 0;
const shown: (() => void)[] = [];
afterEach(() => { for (const dispose of shown.splice(0)) dispose(); });

function traits(fields: Partial<RunTraits> = {}): Partial<RunTraits> {
  return {
    agent: "researcher", thread_id: `a${++runs}`, status: "done", error: "", items: [], todos: [],
    progress: { steps: 3, tool_calls: 2, tokens_in: 1500, tokens_out: 20, started_at: 1_700_000_000, elapsed: 65,
      todo_progress: "" },
    pending: [], decisions: [], card_errors: {}, files_changed: [], tree: [], async_tasks: [], async_error: "",
    live_controls: true, stop_hint: "", code_css: ".x{}", revision: 0, ...fields,
  };
}

export function showRun(fields: Partial<RunTraits> = {}) {
  const fake = new FakeModel<RunTraits>(traits(fields));
  const el = mount();
  const dispose = view.render({ model: fake as any, el });
  shown.push(dispose);
  return { fake, el, dispose };
}

const text = (el: Element, sel: string): string => el.querySelector(sel)!.textContent!;

describe("waiting time is not run time", () => {
  it("says how long the run has waited, apart from its run time", () => {
    assert.equal(clockText(65, 0, 0, "done"), "1m 05s");
    assert.equal(clockText(12, 0, 90, "interrupted"), "12s · waiting 1m 30s");
    assert.equal(clockText(12, 300, 0, "done"), "12s (+ 5m 00s waiting)");
  });

  it("stops the run clock while the run waits, and ticks the wait instead", () => {
    const now = Date.now() / 1000;
    const progress = { steps: 1, tool_calls: 1, tokens_in: 0, tokens_out: 0, started_at: now - 400, elapsed: 12,
      todo_progress: "", waited: 0, waiting_since: now - 90 };
    const { el, fake } = showRun({ status: "interrupted", progress });
    assert.match(text(el, ".dnb-elapsed"), /^12s · waiting 1m 3\ds$/);
    // resumed after the wait: the run time leaves the 388 s of waiting out
    fake.update({ status: "running", progress: { ...progress, elapsed: 12, waited: 388, waiting_since: null } });
    assert.match(text(el, ".dnb-elapsed"), /^1\ds \(\+ 6m 28s waiting\)$/);
  });
});
