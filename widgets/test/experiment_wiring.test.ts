// The experiment matrix's wiring: the open sample under the matrix (its buttons sending open,
// close and grade, previous and next among the samples shown, the focus going back to the cell it
// was opened from when it closes), and what each trait redraws beside the frame.

import "./dom";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeModel, click, settle } from "./dom";
import { matrixWiring, sampleOpening } from "../src/experiment_view";

const SAMPLE = {
  row: 0, variant: "b", epoch: 1, epochs: 2, title: "Row 0 · b · epoch 1", status: "done", input: "", reference: "",
  answer: "", output: "", error: "", scores: [], tokens: "", cost: "", time: "", cached: 0, gradable: false,
  others: { epochs: ["done", "done"], variants: [["b", "done"]] },
};

describe("the open sample", () => {
  it("sends what its buttons ask, and steps among the samples the matrix shows", () => {
    const fake = new FakeModel<any>({ sample: SAMPLE });
    const sent: unknown[] = [];
    const cell = document.createElement("td");
    const matrix = {
      cellAt: () => cell,
      samples: () => [{ row: 0, variant: "a", epoch: 0 }, { row: 0, variant: "b", epoch: 1 }, { row: 1, variant: "b", epoch: 0 }],
    };
    const opening = sampleOpening(fake as any, (m) => sent.push(m), matrix);
    document.body.replaceChildren(opening.sample.el);
    opening.onSample();
    assert.equal(opening.sample.el.hidden, false);
    click(opening.sample.el.querySelector(".dnb-sample-next"));
    click(opening.sample.el.querySelector(".dnb-sample-prev"));
    click(opening.sample.el.querySelector(".dnb-sample-close"));
    assert.deepEqual(sent, [{ type: "open", row: 1, variant: "b", epoch: 0 }, { type: "open", row: 0, variant: "a", epoch: 0 },
      { type: "close" }]);
  });

  it("gives the focus back to the cell it was opened from once it closes, and only then", async () => {
    const fake = new FakeModel<any>({ sample: {} });
    const cell = document.createElement("td");
    cell.tabIndex = 0;
    const asked: unknown[] = [];
    const opening = sampleOpening(fake as any, () => {}, { cellAt: (key) => { asked.push(key); return cell; }, samples: () => [] });
    document.body.replaceChildren(cell, opening.sample.el);
    opening.opened({ row: 0, variant: "b", epoch: 1 });
    fake.set("sample", SAMPLE);
    opening.onSample();
    await settle();
    assert.deepEqual(asked, [], "opening moves no focus");
    fake.set("sample", {});
    opening.onSample();
    assert.equal(opening.sample.el.hidden, true);
    await settle();
    assert.deepEqual(asked, [{ row: 0, variant: "b", epoch: 1 }]);
    assert.equal(document.activeElement, cell);
    opening.onSample();
    await settle();
    assert.equal(asked.length, 1, "the opener is used once");
  });
});

describe("the matrix's redraws", () => {
  function wired(traits: Record<string, unknown>, gone = false) {
    const fake = new FakeModel<any>(traits);
    const calls: string[] = [];
    const log = (name: string) => (...args: unknown[]) => calls.push(`${name} ${JSON.stringify(args.filter((a) =>
      typeof a !== "function"))}`);
    const title = document.createElement("span");
    const stop = document.createElement("button");
    const wiring = matrixWiring(fake as any, { stop, isGone: () => gone }, {
      title, matrix: { draw: log("draw") }, filters: { offer: log("offer") }, pages: { show: log("pages") },
      summary: { show: log("summary") }, charts: { show: log("charts") }, compared: { show: log("compared") },
      onSample: log("sample"),
    });
    return { fake, calls, title, stop, wiring };
  }

  it("draws the head, Stop, pages, filters, matrix, sample, charts, summary and comparison, in that order", () => {
    const { calls, title, stop, wiring } = wired({ head: "Experiment 'x'", going: true, window: { page: 1 },
      scorers: ["judge"], variants: ["a"], summary: { rows: [] }, charts: [1], comparisons: [2] });
    wiring.draw();
    assert.equal(title.textContent, "Experiment 'x'");
    assert.equal(stop.disabled, false);
    assert.deepEqual(calls, ['pages [{"page":1},false]', 'offer [["judge"],["a"],[]]', "draw []", "sample []",
      "charts [[1]]", 'summary [{"rows":[]}]', "compared [[2]]"]);
  });

  it("turns Stop off once nothing runs or the kernel is gone, and redraws what each trait changes", () => {
    const { calls, stop, wiring } = wired({ head: "h", going: false, scorers: [], variants: ["a", 1] }, true);
    wiring.handlers["change:going"]!();
    assert.equal(stop.disabled, true);
    wiring.handlers["change:variants"]!();
    wiring.handlers["change:threshold"]!();
    wiring.markOpen();
    assert.deepEqual(calls, ['offer [[],["a","1"],[]]', "draw []", "draw []", "draw []", "compared [null]"]);
    assert.deepEqual(Object.keys(wiring.handlers).sort(), ["change:charts", "change:comparisons", "change:fields",
      "change:going", "change:head", "change:more", "change:rows", "change:sample", "change:scorers", "change:summary",
      "change:threshold", "change:variants", "change:window"]);
  });
});
