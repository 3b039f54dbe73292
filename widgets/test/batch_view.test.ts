// The batch grid as anywidget renders it: rows from the trait and from live `rows` messages, text
// set as text, the progress line, a row click asking for its run, Stop, and the open run's view.

import "./dom";
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { click, FakeModel, mount, press, type } from "./dom";
import view from "../src/batch_view";

const shown: (() => void)[] = [];
// The clock reads Date.now(): held still, so what it shows doesn't depend on how busy the machine is.
const realNow = Date.now;
const stillNow = realNow();
beforeEach(() => { Date.now = () => stillNow; });
afterEach(() => {
  Date.now = realNow;
  for (const dispose of shown.splice(0)) dispose();
});

function row(i: number, fields: Record<string, unknown> = {}) {
  return { i, input: `q${i}`, status: "queued", steps: 0, tools: 0, tokens: "0 / 0", elapsed: 0, line: "",
    waiting: false, ...fields };
}

const PROGRESS = { queued: 1, running: 1, interrupted: 0, done: 1, error: 0, cancelled: 0, total: 3, ended: 1,
  elapsed: 4, eta: 8 };

function show(fields: Record<string, unknown> = {}) {
  const fake = new FakeModel<any>({
    agent: "grid", total: 3, rows: [row(0, { status: "done", line: "first" }), row(1, { status: "running" }), row(2)],
    progress: PROGRESS, detail: "", selected: -1, notice: "", ...fields,
  });
  const el = mount();
  shown.push(view.render({ model: fake as any, el }) as () => void);
  return { fake, el };
}

const rows = (el: Element): HTMLElement[] => [...el.querySelectorAll(".dnb-batch-row")] as HTMLElement[];
const cells = (tr: Element): string[] => [...tr.querySelectorAll("td")].map((td) => td.textContent || "");

describe("batch grid", () => {
  it("shows a row per input and asks the kernel for every row when it opens", () => {
    const { el, fake } = show();
    assert.deepEqual(rows(el).map((r) => r.getAttribute("data-status")), ["done", "running", "queued"]);
    assert.deepEqual(cells(rows(el)[0]), ["0", "q0", "done", "0", "0", "0 / 0", "0s", "first"]);
    assert.deepEqual(fake.sent[0], { type: "hello" });
    assert.match(el.querySelector(".dnb-batch-counts")!.textContent!, /^1 of 3 runs ended \(1 running, 1 queued, 1 done\)$/);
    assert.match(el.querySelector(".dnb-batch-clock")!.textContent!, /^4s · about 8s left$/);
  });

  it("patches rows from live messages, in index order, text as text", () => {
    const { el, fake } = show();
    const hostile = "<img src=x onerror=alert(1)>";
    fake.message({ type: "rows", rows: [row(1, { status: "interrupted", waiting: true, steps: 2, tokens: "1,200 / 30",
      line: hostile })], progress: { ...PROGRESS, running: 0, interrupted: 1 } });
    const second = rows(el)[1];
    assert.equal(second.getAttribute("data-status"), "interrupted");
    assert.equal(cells(second)[7], hostile);
    assert.equal(el.querySelector("img"), null);
    assert.equal((second.querySelector(".dnb-batch-wait") as HTMLElement).hidden, false);
    assert.equal(cells(second)[5], "1,200 / 30");
    fake.message({ type: "rows", rows: [row(5, { status: "queued" }), { i: "bad" }, "junk"] });
    assert.deepEqual(rows(el).map((r) => r.getAttribute("data-index")), ["0", "1", "2", "5"]);
  });

  it("asks for a row's run on a click or Enter, and closes it on a second click", () => {
    const { el, fake } = show();
    click(rows(el)[1].querySelector("td"));
    assert.deepEqual(fake.sent.at(-1), { type: "open", index: 1 });
    fake.update({ selected: 1 });
    assert.equal(rows(el)[1].getAttribute("aria-selected"), "true");
    click(rows(el)[1]);
    assert.deepEqual(fake.sent.at(-1), { type: "close" });
    press(rows(el)[2], "Enter");
    assert.deepEqual(fake.sent.at(-1), { type: "open", index: 2 });
  });

  it("stops every run, and disables Stop once nothing runs", () => {
    const { el, fake } = show();
    const stop = el.querySelector(".dnb-batch-stop") as HTMLButtonElement;
    assert.equal(stop.disabled, false);
    click(stop);
    assert.deepEqual(fake.sent.at(-1), { type: "stop" });
    fake.update({ progress: { ...PROGRESS, running: 0, queued: 0, cancelled: 2, ended: 3 } });
    assert.equal(stop.disabled, true);
  });

  it("sorts by any column, again to reverse, keeps the order as rows change, and '#' restores it", () => {
    const { el, fake } = show({ rows: [row(0, { steps: 2, line: "b" }), row(1, { steps: 5, line: "c" }), row(2, { steps: 1, line: "a" })] });
    const order = (): string[] => rows(el).map((r) => r.getAttribute("data-index") || "");
    const header = (name: string): HTMLElement =>
      [...el.querySelectorAll("th")].find((th) => th.textContent === name) as HTMLElement;
    click(header("Step"));
    assert.deepEqual(order(), ["1", "0", "2"]); // counts: largest first
    assert.equal(header("Step").getAttribute("aria-sort"), "descending");
    click(header("Step"));
    assert.deepEqual(order(), ["2", "0", "1"]);
    fake.message({ type: "rows", rows: [row(2, { steps: 9, line: "a" }), row(3, { steps: 3 })] });
    assert.deepEqual(order(), ["0", "3", "1", "2"]); // still ascending by step, new and changed rows placed
    press(header("Answer"), "Enter");
    assert.deepEqual(order(), ["3", "2", "0", "1"]); // text: A to Z, the empty answer first
    click(header("#"));
    assert.deepEqual(order(), ["0", "1", "2", "3"]);
    assert.equal(header("#").getAttribute("aria-sort"), "ascending");
    assert.equal(header("Answer").getAttribute("aria-sort"), "none");
    assert.equal(fake.sent.filter((m: any) => m.type === "open").length, 0); // a header opens no run
  });

  it("filters rows by their input or answer, case aside, and shows them all again when cleared", () => {
    const { el, fake } = show({ rows: [row(0, { input: "Tide pools", line: "" }), row(1, { line: "About TIDES." }), row(2)] });
    const find = el.querySelector(".dnb-batch-filter") as HTMLInputElement;
    const visible = (): string[] => rows(el).filter((r) => !r.hidden).map((r) => r.getAttribute("data-index") || "");
    type(find, "tide");
    assert.deepEqual(visible(), ["0", "1"]);
    assert.equal(find.title, "2 of 3 rows hold it");
    fake.message({ type: "rows", rows: [row(3, { line: "no match" }), row(4, { input: "tidy tide" })] });
    assert.deepEqual(visible(), ["0", "1", "4"]); // rows arriving later are filtered too
    type(find, "");
    assert.deepEqual(visible(), ["0", "1", "2", "3", "4"]);
  });

  it("sorts tokens by their count, unknown ones last", () => {
    const { el } = show({ rows: [row(0, { tokens: "unknown" }), row(1, { tokens: "1,200 / 300" }), row(2, { tokens: "≥ 20 / ≥ 5" })] });
    click([...el.querySelectorAll("th")].find((th) => th.textContent === "Tokens in / out") as HTMLElement);
    assert.deepEqual(rows(el).map((r) => r.getAttribute("data-index")), ["1", "2", "0"]);
  });

  it("closes the open run on Escape, and only when one is open", () => {
    const { el, fake } = show();
    press(rows(el)[0], "Escape");
    assert.equal(fake.sent.filter((m: any) => m.type === "close").length, 0);
    fake.update({ selected: 0, detail: "model-1" });
    press(rows(el)[0], "Escape");
    assert.deepEqual(fake.sent.at(-1), { type: "close" });
  });

  it("shows a refused request's notice", () => {
    const { el, fake } = show();
    fake.update({ notice: "Row 2 has no run yet (queued)." });
    assert.equal(el.querySelector(".dnb-batch-notice")!.textContent, "Row 2 has no run yet (queued).");
  });
});
