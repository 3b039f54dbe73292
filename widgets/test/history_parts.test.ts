// The history view's parts: a step's row (its text as text, its State button asking the kernel),
// the table of steps with its columns named, the read-only step state panel, and the rows that
// follow the open step (marked, with the line that says how to fork there).

import "./dom";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeModel } from "./dom";
import { historyRows, readOnlyPanel, stepRow, stepsTable } from "../src/history_view";

const HOSTILE = "<img src=x onerror=alert(1)>";

describe("a step's row", () => {
  it("shows the step, what it did and when it was saved as text, and a State button for the step", () => {
    const tr = stepRow({ step: 4, did: `read ${HOSTILE}`, saved: "2026-12-07 10:00:00" }, 4);
    assert.equal(tr.className, "dnb-history-row");
    assert.equal(tr.getAttribute("data-step"), "4");
    assert.equal(tr.getAttribute("aria-selected"), "true");
    assert.deepEqual([...tr.querySelectorAll("td")].map((td) => td.className), ["dnb-history-step", "dnb-history-did",
      "dnb-history-saved", ""]);
    assert.equal(tr.querySelector(".dnb-history-did")!.textContent, `read ${HOSTILE}`);
    assert.equal(tr.querySelector("img"), null);
    const state = tr.querySelector("button.dnb-history-state")!;
    assert.equal(state.textContent, "State");
    assert.equal(state.getAttribute("data-step"), "4");
    assert.ok(state.hasAttribute("data-asks-kernel"));
    assert.equal(stepRow({ step: 3, did: "", saved: "" }, 4).getAttribute("aria-selected"), "false");
  });
});

describe("the table of steps", () => {
  it("names its columns and takes the rows in its body, inside the scroller", () => {
    const { scroller, body } = stepsTable();
    assert.equal(scroller.className, "dnb-history-scroll");
    assert.deepEqual([...scroller.querySelectorAll("thead th")].map((th) => th.textContent),
      ["step", "what it did", "saved (UTC)", ""]);
    assert.equal(body.tagName, "TBODY");
    assert.equal(scroller.querySelector("table.dnb-history-table > tbody"), body);
  });
});

describe("the read-only step state panel", () => {
  it("is hidden until a step opens, has no Run from here, and asks the kernel for the step", () => {
    const fake = new FakeModel<any>({});
    const panel = readOnlyPanel(fake as any);
    assert.equal(panel.el.hidden, true);
    assert.equal(panel.el.querySelector(".dnb-step-said")!.textContent,
      "Click a step's State to see the state it left and what it changed.");
    panel.open(2);
    assert.deepEqual(fake.sent.map((m) => [m.type, m.step]), [["step_state", 2]]);
    assert.ok(panel.receive({ type: "step_state", step: 2, steps: [1, 2], thread: "T1", next: [], error: "", keys: [],
      messages: { start: 0, total: 0, messages: [] }, todos: [], files: [], files_total: 0, other: [], diff: null }));
    assert.equal((panel.el.querySelector(".dnb-step-foot") as HTMLElement).hidden, true, "no Run from here");
  });

  it("sends nothing, and does not throw, once the kernel is gone", () => {
    const fake = new FakeModel<any>({});
    fake.send = () => { throw new Error("closed"); };
    const warn = console.warn;
    console.warn = () => {};
    try {
      assert.doesNotThrow(() => readOnlyPanel(fake as any).open(1));
    } finally {
      console.warn = warn;
    }
  });
});

describe("the history's rows", () => {
  function rows(fields: Record<string, unknown>) {
    const fake = new FakeModel<any>({ agent: "main", thread_id: "T1", steps_total: 9, ...fields });
    const head = document.createElement("div");
    const body = document.createElement("tbody");
    const fork = document.createElement("div");
    fork.hidden = true;
    return { fake, head, body, fork, rows: historyRows(fake as any, head, body, fork) };
  }

  it("draws the head line and a row per step, the malformed left out", () => {
    const r = rows({ steps: [{ step: 1, did: "a", saved: "s" }, "junk", { step: 2, did: "b", saved: "t" }] });
    r.rows.draw();
    assert.equal(r.head.textContent, "History of thread T1 · agent main · 9 steps (the latest 2 here; print the history for every one)");
    assert.deepEqual([...r.body.children].map((tr) => tr.getAttribute("data-step")), ["1", "2"]);
    assert.equal(r.rows.open(), -1);
    assert.equal(r.fork.hidden, true);
  });

  it("marks the open step's row, says how to fork there, and keeps it marked when redrawn", () => {
    const r = rows({ steps: [{ step: 1, did: "a", saved: "s" }, { step: 2, did: "b", saved: "t" }] });
    r.rows.draw();
    r.rows.select(2);
    const selected = () => [...r.body.children].map((tr) => tr.getAttribute("aria-selected"));
    assert.deepEqual(selected(), ["false", "true"]);
    assert.equal(r.rows.open(), 2);
    assert.equal(r.fork.hidden, false);
    assert.match(r.fork.textContent!, /^Fork at this step: %deepagent fork T1 --at 2 /);
    r.fake.set("steps", [{ step: 2, did: "b", saved: "t" }, { step: 3, did: "c", saved: "u" }]);
    r.rows.draw();
    assert.deepEqual(selected(), ["true", "false"]);
  });
});
