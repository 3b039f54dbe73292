// The experiment matrix as anywidget renders it: a row per dataset row and a cell per variant,
// text set as text, sort by a column (again to reverse), filter, a cell click asking for its
// run, Escape closing it, Stop, and the summary; structured-output fields as columns; a bar chart
// per scorer; the baseline comparison, whose differing rows open their runs.

import "./dom";
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { click, FakeModel, mount, press } from "./dom";
import view, { cellValue, columnsOf, fieldValue } from "../src/experiment_view";
import { span } from "../src/experiment/charts";

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

  it("shows a logged run's record below the matrix, Escape closes it, and a live run replaces it", () => {
    const { el, fake } = show({ logged: "" });
    const record = '<div class="dnb-logged-run"><div class="dnb-head">Run (row 0, terse, epoch 0): done</div></div>';
    fake.update({ selected: { row: 0, variant: "terse" }, logged: record });
    assert.equal(el.querySelector(".dnb-logged .dnb-head")!.textContent, "Run (row 0, terse, epoch 0): done");
    assert.ok(el.querySelector('[data-row="0"][data-variant="terse"]')!.classList.contains("dnb-experiment-selected"));
    press(el.querySelector(".dnb-experiment-grid")!, "Escape");
    assert.deepEqual(fake.sent.at(-1), { type: "close" });
    fake.update({ selected: {}, logged: "" });
    assert.equal(el.querySelector(".dnb-logged"), null); // closed: nothing left below the matrix
    fake.update({ selected: { row: 0, variant: "terse" }, logged: record });
    fake.update({ logged: "", detail: "model-1" });
    assert.equal(el.querySelector(".dnb-logged"), null); // the live run's view takes its place
  });

  it("reads a cell's first score as a number, anything else last", () => {
    assert.equal(cellValue(cell("a", "0.25", ""), ["contains"]), 0.25);
    assert.equal(cellValue(cell("a", "error", ""), ["contains"]), -Infinity);
    assert.equal(cellValue(undefined, ["contains"]), -Infinity);
  });
});

const FIELDED = [
  { r: 0, prompt: "Paris?", cells: [{ ...cell("terse", "1.00", "France"), fields: ["10", "<b>sure</b>"] }] },
  { r: 1, prompt: "Rome?", cells: [{ ...cell("terse", "0.00", "Italy"), fields: ["9", "unsure"] }] },
  { r: 2, prompt: "Oslo?", cells: [{ ...cell("terse", "0.50", "Norway"), fields: ["", "maybe"] }] },
];

describe("structured-output fields as columns", () => {
  it("adds a column per field to each variant's group, as text", () => {
    const { el } = show({ variants: ["terse"], fields: ["age", "verdict"], rows: FIELDED });
    const heads = [...el.querySelectorAll(".dnb-experiment-grid th")].map((th) => th.textContent);
    assert.deepEqual(heads, ["Row", "terse", "terse · age", "terse · verdict"]);
    const row0 = el.querySelectorAll(".dnb-experiment-row")[0];
    assert.deepEqual([...row0.querySelectorAll(".dnb-experiment-field")].map((td) => td.textContent), ["10", "<b>sure</b>"]);
    assert.equal(row0.querySelector(".dnb-experiment-field b"), null);
    assert.equal(columnsOf(["a", "b"], ["x"]).length, 5);
  });

  it("sorts by a field (numbers as numbers, A to Z first) and filters by its values", () => {
    const { el, fake } = show({ variants: ["terse"], fields: ["age", "verdict"], rows: FIELDED });
    click(header(el, 2));
    assert.deepEqual(order(el), ["2", "1", "0"]); // blank first going up: 9 < 10 numerically
    assert.equal(header(el, 2).getAttribute("aria-sort"), "ascending");
    click(header(el, 2));
    assert.deepEqual(order(el), ["0", "1", "2"]);
    click(header(el, 3));
    assert.deepEqual(order(el), ["0", "2", "1"]); // "<b>sure</b>", "maybe", "unsure"
    const find = el.querySelector(".dnb-experiment-filter") as HTMLInputElement;
    find.value = "UNSURE";
    find.dispatchEvent(new Event("input"));
    assert.deepEqual(order(el), ["1"]);
    fake.update({ fields: [] }); // the sorted column is gone: the dataset's order, still filtered
    assert.deepEqual(order(el), ["1"]);
    assert.equal(el.querySelectorAll(".dnb-experiment-field").length, 0);
  });

  it("reads a field as a number when it is one", () => {
    assert.equal(fieldValue(" 2.5 "), 2.5);
    assert.equal(fieldValue("Yes"), "yes");
    assert.equal(fieldValue(""), -Infinity);
  });
});

const CHARTS = [
  {
    scorer: "contains", title: "contains: mean and 95 % interval, scale 0.00 to 1.00", note: "",
    bars: [
      { v: "terse", value: "0.50 [0.10, 0.90] n=3", bar: [0, 50], whisker: [10, 80] },
      { v: "<img src=x onerror=alert(1)>", value: "2 errors", bar: null, whisker: null },
      { v: "wild", value: "1.00", bar: [90, 400], whisker: "no" },
    ],
  },
  { scorer: "judge", title: "judge: mean", note: "Every score is an error (4): nothing to chart.", bars: [] },
];

describe("the bar chart per scorer", () => {
  it("draws a bar and a whisker per variant, values beside them, or says why it cannot", () => {
    const { el, fake } = show({ charts: CHARTS });
    const [contains, judge] = [...el.querySelectorAll(".dnb-experiment-chart")] as HTMLElement[];
    assert.equal(contains.querySelector(".dnb-experiment-chart-title")!.textContent, CHARTS[0].title);
    const bars = [...contains.querySelectorAll(".dnb-experiment-chart-bar")];
    assert.equal(bars.length, 3);
    const fill = bars[0].querySelector(".dnb-experiment-chart-fill") as HTMLElement;
    const whisker = bars[0].querySelector(".dnb-experiment-chart-whisker") as HTMLElement;
    assert.deepEqual([fill.style.left, fill.style.width, whisker.style.left, whisker.style.width], ["0%", "50%", "10%", "80%"]);
    assert.equal(bars[0].querySelector(".dnb-experiment-chart-value")!.textContent, "0.50 [0.10, 0.90] n=3");
    assert.equal(bars[1].querySelector(".dnb-experiment-chart-label")!.textContent, "<img src=x onerror=alert(1)>");
    assert.equal(bars[1].querySelector(".dnb-experiment-chart-fill"), null);
    assert.equal(el.querySelector("img"), null);
    assert.equal((bars[2].querySelector(".dnb-experiment-chart-fill") as HTMLElement).style.width, "10%");
    assert.equal(bars[2].querySelector(".dnb-experiment-chart-whisker"), null);
    assert.equal(judge.querySelector(".dnb-experiment-chart-note")!.textContent, CHARTS[1].note);
    assert.equal(judge.querySelectorAll(".dnb-experiment-chart-bar").length, 0);
    fake.update({ charts: [] });
    assert.equal((el.querySelector(".dnb-experiment-charts") as HTMLElement).hidden, true);
  });

  it("keeps a span within its track", () => {
    assert.deepEqual(span([-5, 30]), [0, 30]);
    assert.deepEqual(span([70, 50]), [70, 30]);
    assert.equal(span("x"), null);
  });
});

const COMPARISON = {
  a: "long", b: "terse", columns: ["scorer", "pairs", "long wins", "losses", "ties", "mean difference", "p (Wilcoxon)"],
  rows: [["contains", "3", "1", "1", "1", "0.00", "1.000"]],
  differences: [
    { r: 1, scorer: "contains", prompt: "Rome?", difference: "+1.00", a: "Italy", b: "<img src=x onerror=alert(1)>" },
    { r: 0, scorer: "contains", prompt: "Paris?", difference: "-1.00", a: "Spain", b: "France" },
  ],
};

describe("the baseline comparison", () => {
  it("shows wins, losses, ties and p per scorer, and the rows that differ most as text", () => {
    const { el } = show({ comparisons: [COMPARISON] });
    const section = el.querySelector(".dnb-experiment-comparison")!;
    assert.equal(section.querySelector(".dnb-experiment-comparison-title")!.textContent, "long against terse, per row");
    assert.deepEqual([...section.querySelectorAll(".dnb-experiment-compared td")].map((td) => td.textContent),
      COMPARISON.rows[0]);
    const diffs = [...section.querySelectorAll(".dnb-experiment-diff")];
    assert.equal(diffs.length, 2);
    assert.equal(diffs[0].querySelectorAll(".dnb-experiment-diff-run")[1].textContent, "<img src=x onerror=alert(1)>");
    assert.equal(el.querySelector("img"), null);
  });

  it("lists the differing rows in a table per scorer, headed by that scorer, with the epochs shown", () => {
    const differences = [
      { r: 0, scorer: "exact", difference: "+1.00", a: "A0", b: "B0", a_epoch: 1, b_epoch: 0 },
      { r: 2, scorer: "judge", difference: "-0.50", a: "A2", b: "B2", a_epoch: 0, b_epoch: 2 },
      { r: 1, scorer: "exact", difference: "+0.50", a: "A1", b: "B1", a_epoch: 0, b_epoch: 1 },
    ];
    const { el } = show({ comparisons: [{ ...COMPARISON, differences }] });
    const tables = [...el.querySelectorAll(".dnb-experiment-differences")];
    assert.deepEqual(tables.map((t) => t.getAttribute("aria-label")),
      ["Rows where they differ on exact", "Rows where they differ on judge"]);
    assert.deepEqual([...tables[0].querySelectorAll("th")].map((th) => th.textContent), ["Row", "exact: a − b", "long", "terse"]);
    assert.deepEqual([...tables[0].querySelectorAll(".dnb-experiment-diff")].map((tr) => tr.getAttribute("data-scorer")), ["exact", "exact"]);
    const judged = tables[1].querySelectorAll(".dnb-experiment-diff-run");
    assert.deepEqual([...judged].map((td) => td.textContent), ["(epoch 0) A2", "(epoch 2) B2"]);
    assert.equal(judged[1].getAttribute("data-run-epoch"), "2");
  });

  it("opens a differing row's run on a click or Enter, marks it, and hides without comparisons", () => {
    const { el, fake } = show({ comparisons: [COMPARISON] });
    const answer = (n: number, side: number) =>
      el.querySelectorAll(".dnb-experiment-diff")[n].querySelectorAll(".dnb-experiment-diff-run")[side] as HTMLElement;
    click(answer(0, 0));
    assert.deepEqual(fake.sent.at(-1), { type: "open", row: 1, variant: "long" });
    press(answer(1, 1), "Enter");
    assert.deepEqual(fake.sent.at(-1), { type: "open", row: 0, variant: "terse" });
    fake.update({ selected: { row: 0, variant: "terse" }, detail: "model-2" });
    assert.ok(answer(1, 1).classList.contains("dnb-experiment-selected"));
    assert.ok(el.querySelector('.dnb-experiment-cell[data-row="0"][data-variant="terse"]')!.classList.contains("dnb-experiment-selected"));
    click(answer(1, 1));
    assert.deepEqual(fake.sent.at(-1), { type: "close" });
    fake.update({ comparisons: [] });
    assert.equal((el.querySelector(".dnb-experiment-comparisons") as HTMLElement).hidden, true);
  });
});
