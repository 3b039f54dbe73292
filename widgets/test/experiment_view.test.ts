// The experiment matrix as anywidget renders it: a row per dataset row and a cell per variant,
// text set as text, sort by a column (again to reverse), filter, a cell click asking for its
// run, Escape closing it, Stop, and the summary.

import "./dom";
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { click, FakeModel, mount, press } from "./dom";
import view, { cellValue } from "../src/experiment_view";

const shown: (() => void)[] = [];
afterEach(() => { for (const dispose of shown.splice(0)) dispose(); });

function cell(v: string, score: string, answer: string, kind = "done") {
  return { v, status: kind, kind, scores: { contains: score }, answer };
}

const ROWS = [
  { r: 0, prompt: "Paris?", cells: [cell("terse", "1.00", "France"), cell("long", "0.00", "Spain")] },
  { r: 1, prompt: "Rome?", cells: [cell("terse", "0.00", "<img src=x onerror=alert(1)>"), cell("long", "1.00", "Italy")] },
  { r: 2, prompt: "Oslo?", cells: [cell("terse", "0.50", "Norway"), cell("long", "–", "", "queued")] },
];

function show(fields: Record<string, unknown> = {}) {
  const fake = new FakeModel<any>({
    head: "Experiment 'capitals': 3 rows × 2 variants × 1 epochs, 5/6 done, running", variants: ["terse", "long"],
    scorers: ["contains"], rows: ROWS, more: [], going: true, detail: "", selected: {}, notice: "",
    summary: { columns: ["variant", "runs"], rows: [["terse", "3"], ["long", "2"]] }, ...fields,
  });
  const el = mount();
  shown.push(view.render({ model: fake as any, el }) as () => void);
  return { fake, el };
}

const order = (el: Element): string[] =>
  [...el.querySelectorAll(".dnb-experiment-row")].map((tr) => tr.querySelector("td b")!.textContent!);
const header = (el: Element, n: number): HTMLElement =>
  el.querySelector(`.dnb-experiment-sort[data-column="${n}"]`) as HTMLElement;

describe("experiment matrix", () => {
  it("shows a cell per row and variant, as text, and asks for the state when it opens", () => {
    const { el, fake } = show();
    assert.deepEqual(fake.sent[0], { type: "hello" });
    assert.deepEqual(order(el), ["0", "1", "2"]);
    const hostile = el.querySelector('[data-row="1"][data-variant="terse"] .dnb-experiment-answer')!;
    assert.equal(hostile.textContent, "<img src=x onerror=alert(1)>");
    assert.equal(el.querySelector("img"), null);
    assert.equal(el.querySelector('[data-row="2"][data-variant="long"]')!.getAttribute("data-status"), "queued");
    assert.deepEqual([...el.querySelectorAll(".dnb-experiment-summary td")].map((td) => td.textContent),
      ["terse", "3", "long", "2"]);
  });

  it("sorts by a variant's score, best first, and again to reverse; the row header restores the order", () => {
    const { el } = show();
    click(header(el, 1));
    assert.deepEqual(order(el), ["0", "2", "1"]);
    assert.equal(header(el, 1).getAttribute("aria-sort"), "descending");
    click(header(el, 1));
    assert.deepEqual(order(el), ["1", "2", "0"]);
    click(header(el, 2));
    assert.deepEqual(order(el), ["1", "0", "2"]); // "–" (no score yet) last
    click(header(el, 0));
    assert.deepEqual(order(el), ["0", "1", "2"]);
  });

  it("filters rows by prompt or answer, and keeps the filter as rows update", () => {
    const { el, fake } = show();
    const find = el.querySelector(".dnb-experiment-filter") as HTMLInputElement;
    find.value = "ital";
    find.dispatchEvent(new Event("input"));
    assert.deepEqual(order(el), ["1"]);
    fake.update({ rows: [...ROWS, { r: 3, prompt: "Italy's capital?", cells: [] }] });
    assert.deepEqual(order(el), ["1", "3"]);
  });

  it("opens a cell's run, closes it with Escape or a second click, and stops", () => {
    const { el, fake } = show();
    click(el.querySelector('[data-row="1"][data-variant="long"]')!);
    assert.deepEqual(fake.sent.at(-1), { type: "open", row: 1, variant: "long" });
    fake.update({ selected: { row: 1, variant: "long" }, detail: "model-1" });
    assert.ok(el.querySelector('[data-row="1"][data-variant="long"]')!.classList.contains("dnb-experiment-selected"));
    press(el.querySelector(".dnb-experiment-grid")!, "Escape");
    assert.deepEqual(fake.sent.at(-1), { type: "close" });
    click(el.querySelector('[data-row="1"][data-variant="long"]')!);
    assert.deepEqual(fake.sent.at(-1), { type: "close" });
    const stop = el.querySelector(".dnb-experiment-stop") as HTMLButtonElement;
    click(stop);
    assert.deepEqual(fake.sent.at(-1), { type: "stop" });
    fake.update({ going: false });
    assert.equal(stop.disabled, true);
  });

  it("reads a cell's first score as a number, anything else last", () => {
    assert.equal(cellValue(cell("a", "0.25", ""), ["contains"]), 0.25);
    assert.equal(cellValue(cell("a", "error", ""), ["contains"]), -Infinity);
    assert.equal(cellValue(undefined, ["contains"]), -Infinity);
  });
});
