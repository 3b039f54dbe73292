// The run view's Graph tab and step state panel: the scene the kernel lays out drawn as SVG (every
// name as text), the run's path marked and the running node lit as `graph_path` changes; a
// timeline step's State button opening that step's state with its diff; the slider moving to
// another step; edits of the todos, a file and a tool's result sent with Run from here; a refusal
// said in one line with the edits kept.

import "./dom";
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { click, FakeModel, mount } from "./dom";
import view from "../src/run_view";
import type { RunTraits } from "../src/types";

const HOSTILE = "<img src=x onerror=alert(1)>";
const shown: (() => void)[] = [];
afterEach(() => { for (const dispose of shown.splice(0)) dispose(); });

const bars = [1, 2].map((step) => ({ kind: "model", lane: 0, name: "", start: step - 1, end: step, label: `model call · main · 1.00 s · step ${step}`, step, item: "final" }));

let runs = 0; // each view a run of its own: a run's views share what their tabs showed

function show(fields: Partial<RunTraits> = {}) {
  const fake = new FakeModel<RunTraits>({
    agent: "main", thread_id: `T${++runs}`, status: "running", error: "", items: [], todos: [],
    progress: { steps: 2, tool_calls: 0, tokens_in: 0, tokens_out: 0, started_at: 1_700_000_000, elapsed: 1, todo_progress: "" },
    pending: [], decisions: [], card_errors: {}, files_changed: [], tree: [], async_tasks: [], async_error: "",
    live_controls: true, stop_hint: "", code_css: "", revision: 0,
    timeline: { thread: "T1", lanes: [{ agent: "main", label: "main" }], total: 2, bars, left_out: 0, waited: 0 } as any,
    ...fields,
  });
  const el = mount();
  shown.push(view.render({ model: fake as any, el }));
  fake.sent = [];
  return { el, fake };
}

const node = (id: string, label: string, x: string) => ({ t: "node", id, kind: "node", label, fill: "#fff4d6", x, y: "40.0",
  w: "80.0", h: "30", rx: "5", tx: x, ty: "59.0" });
const SCENE = {
  agent: "main", title: "Agent 'main': 3 nodes, 2 edges", note: "", width: "300", height: "120",
  shapes: [
    { t: "edge", s: "__start__", e: "model", d: "M10,10 L20,20", dash: false, label: "" },
    { t: "edge", s: "model", e: HOSTILE, d: "M20,20 L30,30", dash: true, label: HOSTILE },
    node("__start__", "__start__", "10.0"), node("model", "model", "100.0"), node(HOSTILE, HOSTILE, "200.0"),
  ],
};

const STATE = (step: number, extra: Record<string, unknown> = {}) => ({
  type: "step_state", step, steps: [1, 2], thread: "T1", next: ["tools"], error: "", keys: ["files", "messages", "todos"],
  messages: { start: 0, total: 2, messages: [
    { index: 0, id: "m0", kind: "ai", role: "assistant", text: HOSTILE, content: "", editable: false },
    { index: 1, id: "m1", kind: "tool", role: "tool read_file", text: "June", content: "June", editable: true },
  ] },
  todos: [{ content: "Check the date", status: "in_progress" }], todos_editable: true,
  files: [{ path: "/notes.md", size: 5, binary: false, text: "June\n", whole: true, editable: true }], files_total: 1,
  other: [["n", "2"]],
  diff: { before: `step ${step - 1}`, after: `step ${step}`, messages: [{ kind: "added", role: "tool read_file", text: "June" }],
    todos: [], files: [{ path: "/notes.md", kind: "added", lines: ["+++ b/notes.md", "+June"], more: 0 }], files_more: 0, other: [] },
  ...extra,
});

const q = <T extends Element = HTMLElement>(el: Element, sel: string): T => el.querySelector(sel) as T;

describe("the Graph tab", () => {
  it("asks for the drawing once, draws every name as text, and lights the path as it changes", () => {
    const { el, fake } = show();
    const tab = q<HTMLButtonElement>(el, ".dnb-tab-graph");
    assert.equal(tab.getAttribute("role"), "tab");
    click(tab);
    assert.deepEqual(fake.sent, [{ type: "graph" }]);
    assert.equal(tab.getAttribute("aria-selected"), "true");
    fake.message({ type: "graph", scene: SCENE, error: "" });
    const svg = q(el, ".dnb-graph-drawing svg");
    assert.ok(svg && !el.querySelector(".dnb-graph-drawing img"), "a hostile name is text, not an element");
    const labels = [...svg.querySelectorAll("g.dnb-node text")].map((t) => t.textContent);
    assert.deepEqual(labels, ["__start__", "model", HOSTILE]);
    fake.update({ graph_path: { active: ["model"], visits: { __start__: 1, model: 1 }, edges: [["__start__", "model", 1]], tools: {}, failed: null } });
    const at = (id: string) => [...svg.querySelectorAll<SVGGElement>("g.dnb-node")].find((g) => g.getAttribute("data-node") === id)!;
    assert.ok(at("model").classList.contains("dnb-active") && at("model").classList.contains("dnb-visited"));
    assert.equal(at("model").getAttribute("aria-current"), "step");
    assert.ok(!at(HOSTILE).classList.contains("dnb-visited"));
    const taken = [...svg.querySelectorAll(".dnb-edge.dnb-taken")];
    assert.equal(taken.length, 1);
    assert.equal(q(el, ".dnb-graph-running").textContent, "Running now: model");
    fake.update({ graph_path: { active: ["tools"], visits: { __start__: 1, model: 2, tools: 1 }, edges: [], tools: { tools: ["ls"] }, failed: null } });
    assert.ok(!at("model").classList.contains("dnb-active"));
    assert.equal(q(el, ".dnb-graph-running").textContent, "Running now: tools (ls)");
    click(tab); // closed, then opened again: no second ask
    click(tab);
    assert.deepEqual(fake.sent, [{ type: "graph" }]);
    const again = view.render({ model: fake as any, el }); // displayed again (the run paused or ended)
    shown.push(again);
    assert.equal(q(el, ".dnb-tab-graph").getAttribute("aria-selected"), "true");
    assert.equal(el.querySelectorAll(".dnb-graph-drawing svg g.dnb-node").length, 3);
    assert.deepEqual(fake.sent.filter((m) => m.type === "graph"), [{ type: "graph" }]); // drawn from what it kept
  });

  it("says why there is no drawing, and asks again when opened again", () => {
    const { el, fake } = show();
    click(q(el, ".dnb-tab-graph"));
    fake.message({ type: "graph", error: "Agent 'main''s graph is too large to draw here: bench.draw_graph() draws it." });
    assert.match(q(el, ".dnb-graph-said").textContent!, /too large/);
    click(q(el, ".dnb-tab-graph"));
    click(q(el, ".dnb-tab-graph"));
    assert.deepEqual(fake.sent, [{ type: "graph" }, { type: "graph" }]);
  });
});

describe("the step state panel", () => {
  it("opens a timeline step's state with its diff, and the slider moves to another step", () => {
    const { el, fake } = show();
    const state = [...el.querySelectorAll<HTMLButtonElement>(".dnb-tl-state")];
    assert.equal(state.length, 2);
    click(state[1]);
    assert.deepEqual(fake.sent, [{ type: "step_state", step: 2 }]);
    assert.equal(q(el, ".dnb-tab-state").getAttribute("aria-selected"), "true");
    fake.message(STATE(2));
    const panel = q(el, ".dnb-step-panel");
    assert.equal(panel.hidden, false);
    assert.match(q(panel, ".dnb-step-where").textContent!, /^2 of 2 · thread T1 · next: tools$/);
    assert.match(q(panel, ".dnb-step-diff").textContent!, /from step 1 to step 2/);
    assert.deepEqual([...panel.querySelectorAll(".dnb-step-diff .dnb-diff-line")].map((l) => l.className.trim()),
      ["dnb-diff-line dnb-muted", "dnb-diff-line dnb-add"]);
    assert.equal(q(panel, ".dnb-step-message .dnb-step-text").textContent, HOSTILE); // text, not markup
    assert.equal(panel.querySelector(".dnb-step-message img"), null);
    const slider = q<HTMLInputElement>(panel, ".dnb-step-slider");
    assert.equal(slider.value, "1");
    slider.value = "0";
    slider.dispatchEvent(new Event("change"));
    assert.deepEqual(fake.sent.at(-1), { type: "step_state", step: 1 });
    fake.message(STATE(1, { files: [{ path: "/notes.md", size: 4, binary: false, text: "May\n", whole: true, editable: true }] }));
    assert.equal(q(panel, ".dnb-step-file-text").textContent, "May\n"); // the files as that step left them
  });

  it("sends the edits with Run from here, keeps them when refused, and says the new thread", () => {
    const { el, fake } = show();
    click(q(el, ".dnb-tab-state")); // the tab by itself: the run's latest step
    assert.deepEqual(fake.sent, [{ type: "latest_step" }]);
    fake.message(STATE(2));
    const panel = q(el, ".dnb-step-panel");
    click(q(panel, ".dnb-step-edit-file"));
    const file = q<HTMLTextAreaElement>(panel, ".dnb-step-file .dnb-step-editor");
    file.value = "May\n";
    file.dispatchEvent(new Event("input"));
    click(q(panel, ".dnb-step-edit-message"));
    const result = q<HTMLTextAreaElement>(panel, ".dnb-step-message .dnb-step-editor");
    result.value = "May";
    result.dispatchEvent(new Event("input"));
    const todo = q<HTMLInputElement>(panel, ".dnb-step-todo-text");
    todo.value = "Check the month";
    todo.dispatchEvent(new Event("input"));
    click(q(panel, ".dnb-step-todo-add"));
    const added = [...panel.querySelectorAll<HTMLInputElement>(".dnb-step-todo-text")][1];
    added.value = "Write it down";
    added.dispatchEvent(new Event("input"));
    assert.equal(q(panel, ".dnb-step-result").textContent, "3 edits to run from step 2");
    fake.sent = [];
    const run = q<HTMLButtonElement>(panel, ".dnb-run-from");
    click(run);
    assert.deepEqual(fake.sent, [{ type: "run_from", step: 2, edits: [
      { kind: "todos", todos: [{ content: "Check the month", status: "in_progress" }, { content: "Write it down", status: "pending" }] },
      { kind: "file", path: "/notes.md", text: "May\n" },
      { kind: "message", id: "m1", text: "May" },
    ] }]);
    assert.equal(run.disabled, true);
    fake.message({ type: "ran_from", step: 2, error: "Agent 'main' has no state key 'todos': its keys are files, messages." });
    assert.equal(run.disabled, false);
    const said = q(panel, ".dnb-step-result");
    assert.ok(said.classList.contains("dnb-error"));
    assert.equal(said.textContent, "Agent 'main' has no state key 'todos': its keys are files, messages.");
    assert.equal(q<HTMLTextAreaElement>(panel, ".dnb-step-file .dnb-step-editor").value, "May\n"); // nothing lost
    fake.sent = [];
    click(run);
    assert.equal(fake.sent[0].edits.length, 3);
    fake.message({ type: "ran_from", step: 2, thread_id: "T2", from_thread: "T1", error: "" });
    assert.equal(said.textContent, "Running on thread T2, forked from step 2 of thread T1 with your edits (that thread is untouched).");
  });

  it("asks for a large file in full before editing it, and for earlier messages", () => {
    const { el, fake } = show();
    click(q(el, ".dnb-tab-state"));
    fake.message(STATE(2, {
      files: [{ path: "/big.md", size: 90000, binary: false, text: "head", whole: false, editable: true }],
      messages: { start: 20, total: 21, messages: [{ index: 20, id: "m20", kind: "ai", role: "assistant", text: "Done.", content: "Done.", editable: true }] },
    }));
    const panel = q(el, ".dnb-step-panel");
    fake.sent = [];
    click(q(panel, ".dnb-step-edit-file"));
    assert.deepEqual(fake.sent, [{ type: "step_file", step: 2, path: "/big.md" }]);
    fake.message({ type: "step_file", step: 2, path: "/big.md", text: "the whole text", whole: true, editable: true, error: "" });
    assert.equal(q<HTMLTextAreaElement>(panel, ".dnb-step-file .dnb-step-editor").value, "the whole text");
    click(q(panel, ".dnb-step-earlier"));
    assert.deepEqual(fake.sent.at(-1), { type: "step_messages", step: 2, before: 20 });
    fake.message({ type: "step_messages", step: 2, start: 0, total: 21, error: "",
      messages: [{ index: 19, id: "m19", kind: "human", role: "user", text: "Earlier", content: "", editable: false }] });
    assert.deepEqual([...panel.querySelectorAll(".dnb-step-message .dnb-step-text")].map((t) => t.textContent), ["Earlier", "Done."]);
    assert.equal(q(panel, ".dnb-step-earlier").hidden, true);
  });
});
