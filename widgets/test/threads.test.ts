// The run view's thread switcher: the list asked for when opened, a click asks for one thread's
// latest state and shows it read-only, a late or stale reply is dropped, nothing is sent once the
// kernel is gone.

import "./dom";
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { click, FakeModel, mount } from "./dom";
import view from "../src/run_view";
import { GONE_LINE } from "../src/run/kernel_gate";
import type { RunTraits } from "../src/types";

const shown: (() => void)[] = [];
afterEach(() => { for (const dispose of shown.splice(0)) dispose(); });

function showRun(sessionContext?: unknown) {
  const fake = new FakeModel<RunTraits>({
    agent: "main", thread_id: "T2", status: "done", error: "", items: [], todos: [],
    progress: { steps: 1, tool_calls: 0, tokens_in: 1, tokens_out: 1, started_at: 1_700_000_000, elapsed: 1, todo_progress: "" },
    pending: [], decisions: [], card_errors: {}, files_changed: [], tree: [], async_tasks: [], async_error: "",
    live_controls: true, stop_hint: "", code_css: "", revision: 0,
  });
  if (sessionContext) fake.widget_manager = { context: { sessionContext } };
  const el = mount();
  shown.push(view.render({ model: fake as any, el }));
  return { fake, el };
}

const LIST = { type: "threads", error: "", threads: [
  { thread_id: "T2", updated_at: "2026-12-01T14:00:00", steps: 4 },
  { thread_id: "T1", updated_at: "2026-11-30T09:00:00", steps: 7 },
] };

describe("thread switcher", () => {
  it("lists the agent's threads when opened and shows one read-only", () => {
    const { el, fake } = showRun();
    const toggle = el.querySelector(".dnb-threads-toggle")!;
    assert.equal((el.querySelector(".dnb-threads-panel") as HTMLElement).hidden, true);
    click(toggle);
    assert.deepEqual(fake.sent.at(-1), { type: "threads" });
    assert.equal(toggle.getAttribute("aria-expanded"), "true");
    fake.message(LIST);
    const picks = [...el.querySelectorAll(".dnb-thread-pick")];
    assert.deepEqual(picks.map((p) => p.getAttribute("data-thread")), ["T2", "T1"]);
    assert.match(picks[0].textContent!, /T2 · 4 steps · 2026-12-01 14:00:00 · this run/);
    assert.doesNotMatch(picks[1].textContent!, /this run/);

    click(picks[1]);
    assert.deepEqual(fake.sent.at(-1), { type: "show_thread", thread_id: "T1" });
    fake.message({ type: "thread", thread_id: "T0", html: "<p>stale</p>", messages: 1, error: "" }); // not asked for
    assert.equal(el.querySelector(".dnb-thread-shown-body")!.textContent, "");
    fake.message({ type: "thread", thread_id: "T1", html: "<div class=\"dnb-prompt\">› plan it</div>", messages: 6, error: "" });
    assert.equal(el.querySelector(".dnb-thread-shown-title")!.textContent,
      "Thread T1 — latest state, read-only (6 messages)");
    assert.equal(el.querySelector(".dnb-thread-shown-body .dnb-prompt")!.textContent, "› plan it");
    assert.equal(fake.get("thread_id"), "T2"); // the view's own run is unchanged

    click(el.querySelector(".dnb-thread-close"));
    assert.equal((el.querySelector(".dnb-thread-shown") as HTMLElement).hidden, true);
  });

  it("shows the kernel's refusal as text", () => {
    const { el, fake } = showRun();
    click(el.querySelector(".dnb-threads-toggle"));
    fake.message(LIST);
    click(el.querySelectorAll(".dnb-thread-pick")[1]);
    fake.message({ type: "thread", thread_id: "T1", html: "", messages: 0, error: "Agent 'main' has no thread 'T1'." });
    assert.equal(el.querySelector(".dnb-thread-shown-body .dnb-error")!.textContent, "Agent 'main' has no thread 'T1'.");
  });

  it("asks nothing once the kernel is gone", () => {
    const slots = new Set<(s: unknown, v: string) => void>();
    const signal = { connect: (fn: any) => slots.add(fn), disconnect: (fn: any) => slots.delete(fn) };
    const { el, fake } = showRun({ statusChanged: signal, kernelChanged: { connect() {}, disconnect() {} } });
    slots.forEach((fn) => fn(null, "dead"));
    const toggle = el.querySelector(".dnb-threads-toggle")!;
    click(toggle);
    assert.deepEqual(fake.sent, []);
    assert.equal(toggle.nextElementSibling!.textContent, GONE_LINE); // said at the button
    assert.equal((el.querySelector(".dnb-threads-panel") as HTMLElement).hidden, true);
  });
});
