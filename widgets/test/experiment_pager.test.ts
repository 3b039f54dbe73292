// The experiment matrix's pager: which rows it shows among the matching ones, Previous / Next asking
// the kernel for the page before or after, off at either end and hidden when every row is shown.

import "./dom";
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { click, FakeModel, mount } from "./dom";
import view from "../src/experiment_view";
import { nextOffset, NO_WINDOW, pageLine, previousOffset, windowOf } from "../src/experiment/pager";

const shown: (() => void)[] = [];
afterEach(() => { for (const dispose of shown.splice(0)) dispose(); });

describe("the pager's arithmetic", () => {
  it("reads the window trait as whole numbers, and anything else as no window", () => {
    assert.deepEqual(windowOf({ offset: 100, shown: 100, total: 10000, page: 100 }),
      { offset: 100, shown: 100, total: 10000, page: 100 });
    assert.deepEqual(windowOf({ offset: -3, shown: "x", total: 2.7, page: null }),
      { offset: 0, shown: 0, total: 2, page: 0 });
    assert.deepEqual(windowOf("nope"), NO_WINDOW);
  });

  it("says which rows are shown of how many, and nothing when all are", () => {
    assert.equal(pageLine({ offset: 100, shown: 100, total: 10000, page: 100 }), "Rows 101–200 of 10,000");
    assert.equal(pageLine({ offset: 9900, shown: 100, total: 10000, page: 100 }), "Rows 9,901–10,000 of 10,000");
    assert.equal(pageLine({ offset: 0, shown: 3, total: 3, page: 100 }), "");
    assert.equal(pageLine({ offset: 0, shown: 0, total: 0, page: 100 }), "");
    assert.equal(pageLine({ offset: 0, shown: 0, total: 5, page: 100 }), "No rows here of 5");
  });

  it("goes a page back and forth, never past either end", () => {
    const middle = { offset: 100, shown: 80, total: 250, page: 100 }; // a page cut short by its size
    assert.equal(previousOffset(middle), 0);
    assert.equal(nextOffset(middle), 180);
    assert.equal(previousOffset({ ...middle, offset: 0 }), null);
    assert.equal(nextOffset({ offset: 200, shown: 50, total: 250, page: 100 }), null);
    assert.equal(previousOffset({ offset: 30, shown: 10, total: 250, page: 100 }), 0);
  });
});

function showView(window: Record<string, number>) {
  const fake = new FakeModel<any>({
    head: "Experiment 'x'", variants: ["a"], scorers: ["exact"], rows: [], more: [], going: false, window,
    detail: "", logged: "", selected: {}, sample: {}, threshold: 0.5, notice: "", summary: {},
  });
  const el = mount();
  shown.push(view.render({ model: fake as any, el }) as () => void);
  const pager = el.querySelector<HTMLElement>(".dnb-experiment-pager")!;
  const button = (cls: string) => el.querySelector<HTMLButtonElement>(cls)!;
  return { fake, el, pager, previous: button(".dnb-experiment-previous"), next: button(".dnb-experiment-next") };
}

describe("the matrix's pager", () => {
  it("asks the kernel for the next page and says which rows it shows", () => {
    const { fake, pager, previous, next } = showView({ offset: 0, shown: 100, total: 250, page: 100 });
    assert.equal(pager.hidden, false);
    assert.equal(pager.querySelector(".dnb-experiment-page")!.textContent, "Rows 1–100 of 250");
    assert.equal(previous.disabled, true);
    click(next);
    assert.deepEqual(fake.sent.at(-1), { type: "page", offset: 100 });
    fake.update({ window: { offset: 200, shown: 50, total: 250, page: 100 } });
    assert.equal(pager.querySelector(".dnb-experiment-page")!.textContent, "Rows 201–250 of 250");
    assert.equal(next.disabled, true);
    click(previous);
    assert.deepEqual(fake.sent.at(-1), { type: "page", offset: 100 });
  });

  it("is hidden when every matching row is shown", () => {
    const { pager } = showView({ offset: 0, shown: 3, total: 3, page: 100 });
    assert.equal(pager.hidden, true);
  });
});
