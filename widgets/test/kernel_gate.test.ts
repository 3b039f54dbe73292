// Every control of the run view meets a gone kernel the same way (src/run/kernel_gate.ts): the test
// renders a view with every control there is, clicks each one while the kernel lives to learn which
// ones ask the kernel, then clicks those again once the kernel is gone: none may send, and each is
// disabled or hidden, or says at itself that the kernel is gone. `MESSAGES` names every message the
// view sends (typed over RunOutgoing: a new message must be named here), and the clicks must have
// sent each one a control sends, so a new control is in the fixture or the test fails.

import "./dom";
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { click, FakeModel, mount, press } from "./dom";
import { GONE_LINE } from "../src/run/kernel_gate";
import view from "../src/run_view";
import type { Item, RunOutgoing, RunStatus, RunTraits } from "../src/types";
import type { PendingRequest } from "../src/schema";

/** Who sends each message: a control the reader uses, or the view by itself. */
const MESSAGES: Record<RunOutgoing["type"], "control" | "view"> = {
  stop: "control", sync: "view", expand: "control", refresh_tasks: "control", open_file: "control",
  threads: "control", show_thread: "control", decide: "control", always: "control", approve_all: "control",
  decide_every: "control", pending_page: "control", answer: "control", fork: "control", follow_up: "control",
  steer: "control", graph: "control", latest_step: "control", step_state: "control", step_messages: "control", step_file: "control",
  run_from: "control",
};

function session() {
  const slots = new Set<(sender: unknown, value: string) => void>();
  return {
    statusChanged: { connect: (fn: any) => slots.add(fn), disconnect: (fn: any) => slots.delete(fn) },
    kernelChanged: { connect() {}, disconnect() {} },
    die: () => slots.forEach((fn) => fn(null, "dead")),
  };
}

const action = (index: number, name: string) => ({ index, name, args: "file_path='/a.md'", args_json: "{\"file_path\": \"/a.md\"}",
  description: "", allowed: ["approve", "edit", "reject", "respond"], preview: null, decision: null });

const PENDING = [
  { id: "I1", agent: "main", actions: [action(0, "write_file"), action(1, "edit_file")] },
  { id: "I2", agent: "main", actions: [action(0, "execute")] },
  { id: "Q1", agent: "main", kind: "question", actions: [], value: "Your name?", value_json: "\"Your name?\"", answer: null },
] as unknown as PendingRequest[];

const ITEMS = [
  { kind: "tool", id: "tool-c1", agent: "main", name: "write_file", args: "file_path='/a.md'", args_full: "{}",
    status: "done", result: "ok", result_full: "ok" },
  { kind: "notice", id: "n1", level: "collapsed", text: "40 steps folded", hidden: 40, expand: true },
  { kind: "summary", id: "s1", agent: "main", messages: 3, cutoff: 0, tokens_before: null, tokens_after: null,
    summary: "s", summary_html: "", file_path: "/h.md" },
] as unknown as Item[];

/** A step's state as the kernel answers the timeline's State button: earlier messages to page in,
 * a file whose whole text comes on Edit, and Run from here. */
const STEP_STATE = { type: "step_state", step: 2, steps: [1, 2], thread: "T", next: ["tools"], error: "", keys: ["files"],
  messages: { start: 3, total: 4, messages: [{ index: 3, id: "m3", kind: "tool", role: "tool ls", text: "a", content: "a", editable: true }] },
  todos: [{ content: "t", status: "pending" }], todos_editable: true,
  files: [{ path: "/big.md", size: 90000, binary: false, text: "b", whole: false, editable: true }], files_total: 1,
  other: [], diff: null };

const THREADS = { type: "threads", error: "", threads: [{ thread_id: "T1", updated_at: "2026-12-01T14:00:00", steps: 4 }] };

const shown: (() => void)[] = [];
afterEach(() => { for (const dispose of shown.splice(0)) dispose(); });

let runs = 0; // each view a run of its own: the view remembers a run's open forms and peek across renders

/** A view of a run in `status` with every control the run view has, its kernel alive. */
function showAll(status: RunStatus) {
  const s = session();
  const fake = new FakeModel<RunTraits>({
    agent: "main", thread_id: `T${++runs}`, status, error: "", items: ITEMS, todos: [],
    progress: { steps: 2, tool_calls: 1, tokens_in: 1, tokens_out: 1, started_at: 1_700_000_000, elapsed: 1, todo_progress: "" },
    pending: PENDING, decisions: [], card_errors: {}, files_changed: ["/a.md"], tree: [],
    async_tasks: [{ task_id: "k1", agent_name: "researcher", thread_id: "T9", run_id: "r1", status: "running",
      created_at: "", last_checked_at: "", last_updated_at: "" }], async_error: "",
    pending_page: { page: 0, pages: 2, first: 1, last: 3, cards: 6, undecided: 6, approvable: 6, rejectable: 6 },
    timeline: { lanes: [{ agent: "main", label: "main" }], total: 2,
      bars: [{ kind: "tool", lane: 0, name: "write_file", start: 0, end: 1, label: "write_file", step: 2, item: "tool-c1" }] },
    live_controls: true, stop_hint: "", code_css: "", revision: 0,
  });
  fake.widget_manager = { context: { sessionContext: s } };
  const el = mount();
  shown.push(view.render({ model: fake as any, el }));
  fake.message(THREADS); // the thread list's buttons (as the kernel's answer to the toggle brings them)
  fake.message(STEP_STATE); // the state panel's controls (as the kernel's answer to a State button brings them)
  for (const box of el.querySelectorAll<HTMLTextAreaElement>("textarea")) box.value = "hello";
  fake.sent = [];
  return { el, fake, die: s.die };
}

const controlsOf = (el: Element): HTMLElement[] =>
  [...el.querySelectorAll<HTMLElement>("button, [role=button], textarea")];

function use(control: HTMLElement): void {
  if (control.tagName === "TEXTAREA") press(control, "Enter");
  else click(control);
}

const named = (control: Element): string =>
  `<${control.tagName.toLowerCase()} class="${control.className}">${(control.textContent || "").slice(0, 40)}`;

describe("the run view's controls once the kernel is gone", () => {
  it("each control that asks the kernel is off or says so, and none sends", () => {
    const sent = new Set<string>();
    for (const status of ["running", "interrupted", "done"] as RunStatus[]) {
      const count = controlsOf(showAll(status).el).length;
      for (let i = 0; i < count; i++) {
        const alive = showAll(status);
        const name = named(controlsOf(alive.el)[i]);
        use(controlsOf(alive.el)[i]);
        const types = alive.fake.sent.map((m) => String(m.type));
        if (!types.length) continue; // a control of the view itself: opens, closes, filters
        types.forEach((type) => sent.add(type));

        const dead = showAll(status);
        dead.die();
        const control = controlsOf(dead.el)[i];
        assert.equal(named(control), name, "the same control in both views");
        use(control);
        assert.deepEqual(dead.fake.sent, [], `${named(control)} sent once the kernel was gone`);
        const next = control.nextElementSibling;
        const says = next !== null && next.classList.contains("dnb-gone-line") && next.textContent === GONE_LINE;
        const off = (control as HTMLButtonElement).disabled === true || control.closest("[hidden]") !== null;
        assert.ok(says || off, `${named(control)} (${types.join(", ")}) neither is off nor says the kernel is gone`);
      }
    }
    const byControls = Object.entries(MESSAGES).filter(([, who]) => who === "control").map(([type]) => type).sort();
    assert.deepEqual([...sent].sort(), byControls, "every message a control sends was sent by a control here");
  });

  it("a fork chip and a file link say it at themselves, and their own handlers never run", () => {
    const { el, fake, die } = showAll("done");
    die();
    const chip = el.querySelector<HTMLButtonElement>(".dnb-step-fork")!;
    click(chip);
    assert.equal(chip.nextElementSibling!.textContent, GONE_LINE);
    assert.equal(chip.disabled, false); // not left "Forking…"
    const link = el.querySelector<HTMLElement>(".dnb-file-open")!;
    press(link, "Enter");
    assert.equal(link.nextElementSibling!.textContent, GONE_LINE);
    assert.equal((el.querySelector(".dnb-filepeek") as HTMLElement).hidden, true); // no "Loading…" forever
    assert.equal(link.getAttribute("aria-disabled"), "true");
    assert.equal(el.querySelector(".deepnb-run")!.getAttribute("data-kernel"), "gone");
    assert.deepEqual(fake.sent, []);
  });
});
