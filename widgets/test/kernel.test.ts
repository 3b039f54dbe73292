// A view knows when its kernel is gone: after a restart or shutdown the run view's cards are
// disabled and say how to get them back, Stop goes, nothing more is sent, and a closed comm's
// "Cannot send" is never thrown at the user.

import "./dom";
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { click, FakeModel, mount } from "./dom";
import { watchKernel } from "../src/lib/kernel";
import view from "../src/run_view";
import type { RunTraits } from "../src/types";

function signal<T>() {
  const slots = new Set<(sender: unknown, value: T) => void>();
  return {
    connect: (fn: (sender: unknown, value: T) => void) => slots.add(fn),
    disconnect: (fn: (sender: unknown, value: T) => void) => slots.delete(fn),
    emit: (value: T) => slots.forEach((fn) => fn(null, value)),
    size: () => slots.size,
  };
}

function session() {
  return { statusChanged: signal<string>(), kernelChanged: signal<{ oldValue?: unknown } | null>() };
}

const shown: (() => void)[] = [];
afterEach(() => { for (const dispose of shown.splice(0)) dispose(); });

function showRun(sessionContext: ReturnType<typeof session>, fields: Partial<RunTraits>) {
  const fake = new FakeModel<RunTraits>({
    agent: "main", thread_id: "T1", status: "interrupted", error: "", items: [], todos: [],
    progress: { steps: 1, tool_calls: 1, tokens_in: 1, tokens_out: 1, started_at: 1_700_000_000, elapsed: 1,
      todo_progress: "" },
    pending: [{ id: "I1", agent: "main", actions: [{ index: 0, name: "write_file", args: "file_path='/a.md'",
      args_json: "{}", description: "", allowed: ["approve", "reject"], preview: null, decision: null }] }],
    decisions: [], card_errors: {}, files_changed: [], tree: [], async_tasks: [], async_error: "",
    live_controls: true, stop_hint: "", code_css: "", revision: 0, ...fields,
  });
  fake.widget_manager = { context: { sessionContext } };
  const el = mount();
  shown.push(view.render({ model: fake as any, el }));
  return { fake, el };
}

describe("kernel gone", () => {
  it("hears once that the kernel restarted or shut down, and stops listening when told", () => {
    const s = session();
    let heard = 0;
    const stop = watchKernel({ widget_manager: { context: { sessionContext: s } } }, () => heard++);
    s.statusChanged.emit("busy");
    assert.equal(heard, 0);
    s.statusChanged.emit("restarting");
    s.kernelChanged.emit({ oldValue: {} });
    assert.equal(heard, 1);
    stop();
    assert.equal(s.statusChanged.size() + s.kernelChanged.size(), 0);
    assert.doesNotThrow(() => watchKernel({}, () => heard++)()); // no notebook session: not watched
  });

  it("disables the cards with how to get them back, and sends nothing", () => {
    const s = session();
    const { el, fake } = showRun(s, {});
    const approve = el.querySelector<HTMLButtonElement>('.dnb-approval button[data-act="approve"]')!;
    assert.equal(approve.disabled, false);
    s.statusChanged.emit("restarting");
    assert.equal(el.querySelector(".dnb-pending-title")!.textContent,
      "kernel restarted — %deepagent approvals -t T1 brings these back");
    for (const button of el.querySelectorAll<HTMLButtonElement>(".dnb-pending button")) assert.equal(button.disabled, true);
    click(approve);
    assert.deepEqual(fake.sent, []);
  });

  it("hides Stop when the kernel shuts down", () => {
    const s = session();
    const { el } = showRun(s, { status: "running", pending: [] });
    const controls = el.querySelector<HTMLElement>(".dnb-controls")!;
    assert.equal(controls.hidden, false);
    s.kernelChanged.emit({ oldValue: {} });
    assert.equal(controls.hidden, true);
  });

  it("a running view whose kernel is gone says so and stops its clock", (t) => {
    let now = 1_700_000_000_000 + 10_000; // 10 s into the run
    t.mock.method(Date, "now", () => now);
    const s = session();
    const { el } = showRun(s, { status: "running", pending: [],
      progress: { steps: 1, tool_calls: 1, tokens_in: 1, tokens_out: 1, started_at: 1_700_000_000, elapsed: 9,
        todo_progress: "" } });
    const pill = el.querySelector<HTMLElement>(".dnb-status")!;
    const elapsed = el.querySelector<HTMLElement>(".dnb-elapsed")!;
    assert.equal(pill.textContent, "running");
    assert.equal(elapsed.textContent, "10.0 s");
    now += 5_000;
    s.statusChanged.emit("dead");
    assert.equal(pill.textContent, "kernel gone");
    assert.equal(pill.getAttribute("data-status"), "gone");
    assert.equal(el.querySelector(".deepnb-run")!.getAttribute("data-kernel"), "gone");
    assert.equal(elapsed.textContent, "15.0 s");
    now += 60_000; // a minute later the clock still says when the kernel went
    s.statusChanged.emit("idle");
    assert.equal(elapsed.textContent, "15.0 s");
  });

  it("a finished run keeps its own status when the kernel goes", () => {
    const s = session();
    const { el } = showRun(s, { status: "done", pending: [] });
    s.statusChanged.emit("dead");
    assert.equal(el.querySelector(".dnb-status")!.textContent, "done");
  });

  it("never throws a closed comm's error at the user", () => {
    const { el, fake } = showRun(session(), { status: "running", pending: [] });
    fake.send = () => { throw new Error("Cannot send"); };
    assert.doesNotThrow(() => click(el.querySelector(".dnb-stop")));
  });
});
