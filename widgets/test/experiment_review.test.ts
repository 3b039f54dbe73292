// Reviewing an experiment in its matrix: each score's verdict written out beside its colour, an
// epoch strip per cell, the filters (failures only, scorer, variant, status, text) applied at once
// and sent to the kernel, and the sample view: its title, Markdown set as the kernel rendered it,
// every other text as text, previous / next in the matrix's order, the row's epochs and variants,
// Close and Escape (the focus back on the cell), and a person's grade sent and confirmed.

import "./dom";
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { click, FakeModel, mount, press } from "./dom";
import view, { around } from "../src/experiment_view";
import { keepsRow, NO_FILTER, scoreColour, verdictOf } from "../src/experiment/filters";

const shown: (() => void)[] = [];
afterEach(() => { for (const dispose of shown.splice(0)) dispose(); });

const HOSTILE = "<img src=x onerror=alert(1)>";

function cell(v: string, scores: Record<string, string>, epochs?: { s: string; sc: (number | string | null)[] }[]) {
  return { v, status: "2 done", kind: "done", scores, answer: `${v} said`, ...(epochs ? { epochs } : {}) };
}

const ROWS = [
  { r: 0, prompt: "Paris?", cells: [
    cell("a", { judge: "1.00", exact: "1.00" }, [{ s: "done", sc: [1, 1] }, { s: "done", sc: [1, 1] }]),
    cell("b", { judge: "0.50", exact: "0.00" }, [{ s: "done", sc: [1, 0] }, { s: "done", sc: [0, 0] }]),
  ] },
  { r: 1, prompt: "Rome?", cells: [
    cell("a", { judge: "1.00", exact: "1.00" }, [{ s: "done", sc: [1, 1] }, { s: "done", sc: [1, 1] }]),
    cell("b", { judge: "1.00", exact: "error" }, [{ s: "done", sc: [1, "error"] }, { s: "error", sc: [null, null] }]),
  ] },
  { r: 2, prompt: "Oslo?", cells: [
    cell("a", { judge: "1.00", exact: "1.00" }, [{ s: "done", sc: [1, 1] }, { s: "done", sc: [1, 1] }]),
    cell("b", { judge: "1.00", exact: "1.00" }, [{ s: "done", sc: [1, 1] }, { s: "queued", sc: [null, null] }]),
  ] },
];

const SAMPLE = {
  row: 0, variant: "b", epoch: 1, epochs: 2, title: "Row 0 · b · epoch 1", status: "done",
  input: "<p>Paris?</p>", reference: "<p>France</p>", answer: "<p><strong>Spain</strong> &lt;img&gt;</p>",
  output: "", error: "",
  scores: [
    { scorer: "judge", score: 0, text: "0.00", verdict: "fail", comment: `Wrong: ${HOSTILE}`, error: "", human: false },
    { scorer: "exact", score: 1, text: "1.00", verdict: "pass", comment: "", error: "", human: true },
  ],
  tokens: "12 / 3", cost: "$0.0010", time: "0.42 s", cached: 2, gradable: true,
  others: { epochs: ["done", "done"], variants: [["a", "done"], ["b", "done"]] },
};

function show(fields: Record<string, unknown> = {}) {
  const fake = new FakeModel<any>({
    head: "Experiment 'x'", variants: ["a", "b"], scorers: ["judge", "exact"], rows: ROWS, more: [], going: false,
    detail: "", logged: "", selected: {}, sample: {}, threshold: 0.5, notice: "", summary: {}, ...fields,
  });
  const el = mount();
  shown.push(view.render({ model: fake as any, el }) as () => void);
  return { fake, el };
}

const order = (el: Element): number[] =>
  [...el.querySelectorAll(".dnb-experiment-row")].map((tr) => Number(tr.querySelector("td b")!.textContent));
const badges = (el: Element, row: number, variant: string): string[] =>
  [...el.querySelectorAll(`[data-row="${row}"][data-variant="${variant}"] .dnb-experiment-score`)]
    .map((b) => b.textContent!);

function choose(el: Element, cls: string, value: string): void {
  const select = el.querySelector(cls) as HTMLSelectElement;
  select.value = value;
  select.dispatchEvent(new Event("change"));
}

function open(fake: FakeModel<any>, sample: Record<string, unknown> = SAMPLE): void {
  fake.update({ selected: { row: sample.row, variant: sample.variant, epoch: sample.epoch }, logged: "<div>run</div>",
    sample });
}

describe("experiment matrix: marks, strips and filters", () => {
  it("writes each score's mark and verdict beside its colour, human grades said", () => {
    const { el } = show({ rows: [{ ...ROWS[0], cells: [ROWS[0].cells[0], { ...ROWS[0].cells[1], human: ["exact"] }] }] });
    assert.deepEqual(badges(el, 0, "a"), ["✓ judge 1.00 pass", "✓ exact 1.00 pass"]);
    assert.deepEqual(badges(el, 0, "b"), ["✓ judge 0.50 pass", "✗ exact 0.00 fail (human)"]);
    const fail = el.querySelector('[data-row="0"][data-variant="b"] [data-verdict="fail"]') as HTMLElement;
    assert.ok(fail.style.backgroundColor, "a colour as well as the words");
    const strip = [...el.querySelectorAll('[data-row="0"][data-variant="b"] .dnb-experiment-epoch')];
    assert.deepEqual(strip.map((b) => b.textContent), ["✗ e0", "✗ e1"]); // either scorer failing fails the epoch
    assert.equal(strip[1].getAttribute("aria-label"), "Open row 0, b, epoch 1: done, fail");
  });

  it("reads verdicts and colours from numbers, texts and errors", () => {
    assert.equal(verdictOf(0.5, 0.5), "pass");
    assert.equal(verdictOf("0.49", 0.5), "fail");
    assert.equal(verdictOf("error", 0.5), "error");
    assert.equal(verdictOf("–", 0.5), "");
    assert.equal(verdictOf(null, 0.5), "");
    assert.notEqual(scoreColour(0), scoreColour(1));
    assert.equal(scoreColour("–"), "");
  });

  it("keeps failing rows, by scorer, variant, status and text", () => {
    const scorers = ["judge", "exact"];
    const keeps = (filter: Partial<typeof NO_FILTER>) =>
      ROWS.filter((row) => keepsRow(row, { ...NO_FILTER, ...filter }, scorers, 0.5)).map((row) => row.r);
    assert.deepEqual(keeps({ failures: true }), [0, 1]);
    assert.deepEqual(keeps({ failures: true, scorer: "judge" }), [0, 1]); // row 1's epoch 1 ended in error
    assert.deepEqual(keeps({ failures: true, variant: "a" }), []);
    assert.deepEqual(keeps({ status: "queued" }), [2]);
    assert.deepEqual(keeps({ text: "ROME" }), [1]);
    assert.deepEqual(keeps({ text: "b said", variant: "a" }), []);
  });

  it("filters at once, hides the other variants and scorers, and asks the kernel for every matching row", () => {
    const { el, fake } = show();
    (el.querySelector(".dnb-experiment-failures") as HTMLInputElement).checked = true;
    el.querySelector(".dnb-experiment-failures")!.dispatchEvent(new Event("change"));
    assert.deepEqual(order(el), [0, 1]);
    assert.deepEqual(fake.sent.at(-1), { type: "filter", failures: true, scorer: "", variant: "", status: "", text: "" });
    choose(el, ".dnb-experiment-by-scorer", "exact");
    assert.deepEqual(badges(el, 0, "b"), ["✗ exact 0.00 fail"]);
    choose(el, ".dnb-experiment-by-variant", "a");
    assert.deepEqual(order(el), []);
    assert.deepEqual([...el.querySelectorAll(".dnb-experiment-grid th")].map((th) => th.textContent), ["Row", "a"]);
    assert.deepEqual(fake.sent.at(-1), { type: "filter", failures: true, scorer: "exact", variant: "a", status: "", text: "" });
    choose(el, ".dnb-experiment-by-variant", "");
    (el.querySelector(".dnb-experiment-failures") as HTMLInputElement).checked = false;
    el.querySelector(".dnb-experiment-failures")!.dispatchEvent(new Event("change"));
    choose(el, ".dnb-experiment-by-status", "error");
    assert.deepEqual(order(el), [1]);
    fake.update({ rows: [...ROWS] }); // the kernel's rows: the filter holds
    assert.deepEqual(order(el), [1]);
  });

  it("opens an epoch from a cell's strip, by click or by keyboard", () => {
    const { el, fake } = show();
    click(el.querySelector('[data-row="1"][data-variant="b"] [data-epoch="1"]')!);
    assert.deepEqual(fake.sent.at(-1), { type: "open", row: 1, variant: "b", epoch: 1 });
    press(el.querySelector('[data-row="2"][data-variant="a"]')!, "Enter");
    assert.deepEqual(fake.sent.at(-1), { type: "open", row: 2, variant: "a" });
  });
});

describe("experiment sample view", () => {
  it("shows the sample: title, Markdown as rendered, every other text as text", () => {
    const { el, fake } = show();
    const sample = el.querySelector(".dnb-experiment-sample") as HTMLElement;
    assert.equal(sample.hidden, true);
    open(fake);
    assert.equal(sample.hidden, false);
    const title = sample.querySelector(".dnb-sample-title")!;
    assert.equal(title.textContent, "Row 0 · b · epoch 1");
    assert.equal(document.activeElement, title); // opens at its top, the focus on its title
    assert.equal(sample.querySelector(".dnb-sample-answer strong")!.textContent, "Spain");
    assert.equal(sample.querySelector(".dnb-sample-reference .dnb-md")!.textContent, "France");
    const judge = sample.querySelector('.dnb-sample-scores tr[data-scorer="judge"]')!;
    assert.equal(judge.querySelector(".dnb-sample-comment")!.textContent, `Wrong: ${HOSTILE}`);
    assert.equal(sample.querySelector("img"), null);
    assert.equal(judge.querySelector(".dnb-experiment-score")!.textContent, "✗ 0.00 fail");
    assert.ok(sample.querySelector('.dnb-sample-scores tr[data-scorer="exact"] .dnb-sample-human'));
    assert.deepEqual([...sample.querySelectorAll(".dnb-sample-measures dd")].map((dd) => dd.textContent),
      ["done", "12 / 3", "$0.0010", "0.42 s", "⟲ 2 model calls"]);
    // the sample view follows the matrix; the run below it stays
    assert.ok(sample.nextElementSibling!.classList.contains("dnb-batch-detail"));
  });

  it("goes to the previous and next sample in the matrix's order, and to the row's epochs and variants", () => {
    const { el, fake } = show();
    open(fake);
    const sample = el.querySelector(".dnb-experiment-sample")!;
    click(sample.querySelector(".dnb-sample-next")!);
    assert.deepEqual(fake.sent.at(-1), { type: "open", row: 1, variant: "a", epoch: 0 });
    click(sample.querySelector(".dnb-sample-prev")!);
    assert.deepEqual(fake.sent.at(-1), { type: "open", row: 0, variant: "b", epoch: 0 });
    click(sample.querySelector('.dnb-sample-epochs [data-open-epoch="0"]')!);
    assert.deepEqual(fake.sent.at(-1), { type: "open", row: 0, variant: "b", epoch: 0 });
    click(sample.querySelector('.dnb-sample-variants [data-open-variant="a"]')!);
    assert.deepEqual(fake.sent.at(-1), { type: "open", row: 0, variant: "a", epoch: 1 });
    assert.equal(sample.querySelector('.dnb-sample-variants [aria-current="true"]')!.textContent, "b");
    const keys = [{ row: 0, variant: "a", epoch: 0 }, { row: 0, variant: "a", epoch: 1 }];
    assert.deepEqual(around(keys, keys[0]), { prev: null, next: keys[1] });
    assert.deepEqual(around(keys, { row: 9, variant: "a", epoch: 0 }), { prev: null, next: null });
  });

  it("skips queued epochs and respects the filters in its order", () => {
    const { el, fake } = show();
    open(fake, { ...SAMPLE, row: 2, variant: "b", epoch: 0, title: "Row 2 · b · epoch 0" });
    const next = el.querySelector(".dnb-sample-next") as HTMLButtonElement;
    assert.equal(next.disabled, true); // row 2, b, epoch 1 is queued: nothing after
  });

  it("closes with Close or Escape, the focus going back to the cell it came from", () => {
    const { el, fake } = show();
    const td = el.querySelector('[data-row="0"][data-variant="b"]') as HTMLElement;
    press(td, "Enter");
    open(fake);
    const sample = el.querySelector(".dnb-experiment-sample") as HTMLElement;
    press(sample.querySelector(".dnb-sample-title")!, "Escape");
    assert.deepEqual(fake.sent.at(-1), { type: "close" });
    click(sample.querySelector(".dnb-sample-close")!);
    assert.deepEqual(fake.sent.at(-1), { type: "close" });
    fake.update({ selected: {}, logged: "", sample: {} });
    assert.equal(sample.hidden, true);
    return new Promise<void>((done) => queueMicrotask(() => {
      assert.equal(document.activeElement, el.querySelector('[data-row="0"][data-variant="b"]'));
      done();
    }));
  });

  it("sends a person's grade, says when it is saved, and refuses a score that is no number", () => {
    const { el, fake } = show();
    open(fake);
    const form = el.querySelector(".dnb-sample-grade")!;
    const scorer = form.querySelector(".dnb-sample-grade-scorer") as HTMLSelectElement;
    assert.deepEqual([...scorer.options].map((o) => o.value), ["judge", "exact", "human"]);
    assert.equal(scorer.value, "human");
    const score = form.querySelector(".dnb-sample-grade-score") as HTMLInputElement;
    const status = form.querySelector(".dnb-sample-grade-status")!;
    const sent = fake.sent.length;
    click(form.querySelector(".dnb-sample-grade-save")!);
    assert.equal(fake.sent.length, sent); // no score: nothing sent
    assert.match(status.textContent!, /score is a number/);
    scorer.value = "judge";
    click(form.querySelector(".dnb-sample-grade-pass")!);
    (form.querySelector(".dnb-sample-grade-comment") as HTMLTextAreaElement).value = `fine ${HOSTILE}`;
    click(form.querySelector(".dnb-sample-grade-save")!);
    assert.deepEqual(fake.sent.at(-1),
      { type: "grade", row: 0, variant: "b", epoch: 1, scorer: "judge", score: 1, comment: `fine ${HOSTILE}` });
    assert.match(status.textContent!, /Saving judge = 1/);
    const graded = { ...SAMPLE, scores: [{ ...SAMPLE.scores[0], score: 1, text: "1.00", verdict: "pass", human: true,
      comment: `fine ${HOSTILE}` }, SAMPLE.scores[1]] };
    fake.update({ sample: graded });
    assert.equal(status.textContent, "Saved: judge = 1.00 (human).");
    assert.equal(el.querySelector(".dnb-sample-grade-scorer") , scorer); // the same form: nothing typed is lost
    score.value = "0";
    click(form.querySelector(".dnb-sample-grade-save")!);
    fake.update({ notice: "Run (0, 'b', 1) has no answer to grade (it is scoring): grade it once it is done." });
    assert.match(status.textContent!, /^Not saved: Run \(0/);
  });

  it("cannot grade a run that has not ended", () => {
    const { el, fake } = show();
    open(fake, { ...SAMPLE, gradable: false, status: "running" });
    assert.equal((el.querySelector(".dnb-sample-grade-save") as HTMLButtonElement).disabled, true);
    assert.match(el.querySelector(".dnb-sample-grade-status")!.textContent!, /has not ended/);
  });
});
