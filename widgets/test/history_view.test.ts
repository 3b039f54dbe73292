// The history view as anywidget renders it: a row per step with its text as text, a step's State
// opening the read-only step state panel (the diff against the step before, no Run from here), the
// slider marking its row, a refusal said in the panel, and a kernel that is gone sending nothing.

import "./dom";
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { click, FakeModel, mount } from "./dom";
import view, { headLine, stepRows } from "../src/history_view";

const HOSTILE = "<img src=x onerror=alert(1)>";
const shown: (() => void)[] = [];
afterEach(() => {
  for (const dispose of shown.splice(0)) dispose();
});

const ROWS = [
  { step: 1, did: "asked: plan a trip", saved: "2026-12-07 10:00:00", checkpoint: "c1" },
  { step: 2, did: `read_file(/notes.md) ${HOSTILE}`, saved: "2026-12-07 10:00:01", checkpoint: "c2" },
  { step: 3, did: "answered", saved: "2026-12-07 10:00:02", checkpoint: "c3" },
];

function show(fields: Record<string, unknown> = {}) {
  const fake = new FakeModel<any>({ agent: "main", thread_id: "T1", steps: ROWS, steps_total: 3, ...fields });
  const el = mount();
  shown.push(view.render({ model: fake as any, el }) as () => void);
  return { fake, el };
}

const STATE = (step: number, extra: Record<string, unknown> = {}) => ({
  type: "step_state", step, steps: [1, 2, 3], thread: "T1", next: ["tools"], error: "", keys: ["files", "messages", "todos"],
  messages: { start: 0, total: 1, messages: [
    { index: 0, id: "m0", kind: "tool", role: "tool read_file", text: HOSTILE, content: "", editable: false },
  ] },
  todos: [{ content: "Check the date", status: "in_progress" }], todos_editable: false,
  files: [{ path: "/notes.md", size: 5, binary: false, text: "June\n", whole: true, editable: false }], files_total: 1,
  other: [],
  diff: { before: `step ${step - 1}`, after: `step ${step}`, messages: [{ kind: "added", role: "tool read_file", text: HOSTILE }],
    todos: [], files: [{ path: "/notes.md", kind: "added", lines: ["+++ b/notes.md", "+June"], more: 0 }], files_more: 0, other: [] },
  ...extra,
});

const q = <T extends Element = HTMLElement>(el: Element, sel: string): T => el.querySelector(sel) as T;
const rows = (el: Element): HTMLElement[] => [...el.querySelectorAll(".dnb-history-row")] as HTMLElement[];

describe("the history view", () => {
  it("shows a row per step, every text as text", () => {
    const { el } = show();
    assert.deepEqual(rows(el).map((r) => r.getAttribute("data-step")), ["1", "2", "3"]);
    assert.equal(q(rows(el)[1], ".dnb-history-did").textContent, `read_file(/notes.md) ${HOSTILE}`);
    assert.equal(el.querySelector("img"), null);
    assert.equal(q(el, ".dnb-history-head").textContent, "History of thread T1 · agent main · 3 steps");
    assert.equal(q(el, ".dnb-step-panel").hidden, true);
  });

  it("opens a step's state and what it changed, read only, and says how to fork there", () => {
    const { el, fake } = show();
    click(q(rows(el)[1], ".dnb-history-state"));
    assert.deepEqual(fake.sent, [{ type: "step_state", step: 2 }]);
    assert.equal(rows(el)[1].getAttribute("aria-selected"), "true");
    fake.message(STATE(2));
    const panel = q(el, ".dnb-step-panel");
    assert.equal(panel.hidden, false);
    assert.match(q(panel, ".dnb-step-diff").textContent!, /What it changed \(from step 1 to step 2\)/);
    assert.ok(q(panel, ".dnb-step-diff").textContent!.includes(HOSTILE));
    assert.equal(el.querySelector("img"), null);
    assert.equal(panel.querySelector(".dnb-step-edit-file"), null);
    assert.equal(q(panel, ".dnb-step-foot").hidden, true); // no Run from here
    assert.equal(q(el, ".dnb-history-fork").textContent!.startsWith("Fork at this step: %deepagent fork T1 --at 2 "), true);
  });

  it("follows the slider: the step it shows is the open row", () => {
    const { el, fake } = show();
    click(q(rows(el)[0], ".dnb-history-state"));
    fake.message(STATE(1));
    const slider = q<HTMLInputElement>(el, ".dnb-step-slider");
    slider.value = "2";
    slider.dispatchEvent(new (el.ownerDocument.defaultView as any).Event("change"));
    assert.deepEqual(fake.sent.at(-1), { type: "step_state", step: 3 });
    fake.message(STATE(3));
    assert.deepEqual(rows(el).map((r) => r.getAttribute("aria-selected")), ["false", "false", "true"]);
    assert.match(q(el, ".dnb-history-fork").textContent!, /--at 3 /);
  });

  it("says where files the state does not keep live, in place of 'No files.'", () => {
    const { el, fake } = show();
    click(q(rows(el)[0], ".dnb-history-state"));
    const note = "This agent keeps its files in a FilesystemBackend, not in its state: no step keeps them.";
    fake.message(STATE(1, { files: [], files_total: 0, files_note: note }));
    assert.equal(q(el, ".dnb-step-files-note").textContent, note);
    assert.ok(!q(el, ".dnb-step-panel").textContent!.includes("No files."));
  });

  it("says a refusal in the panel", () => {
    const { el, fake } = show();
    click(q(rows(el)[2], ".dnb-history-state"));
    fake.message({ type: "step_state", step: 3, error: "Step 3 is not a step of this history: pick one of its rows." });
    assert.equal(q(el, ".dnb-step-said").textContent, "Step 3 is not a step of this history: pick one of its rows.");
  });

  it("counts the steps the rows leave out, and reads only well-formed rows", () => {
    assert.equal(headLine("main", "T1", 2, 500),
      "History of thread T1 · agent main · 500 steps (the latest 2 here; print the history for every one)");
    assert.equal(headLine("main", "T1", 1, 1), "History of thread T1 · agent main · 1 step");
    assert.deepEqual(stepRows([ROWS[0], "junk", null]), [{ step: 1, did: "asked: plan a trip", saved: "2026-12-07 10:00:00" }]);
  });
});
