// The matrix's cells as places: the cell (and epoch) at a click, a cell's element by its key, the
// focus kept across a redraw (on the cell, or on its epoch button); and the samples shown, in the
// matrix's order, which the sample view steps through.

import "./dom";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { matrixCells, samplesOf } from "../src/experiment/matrix_cells";

/** A body with the cells of rows 0 and 1 of variants a and b; row 1's b has an epoch strip. */
function body(): HTMLElement {
  const tbody = document.createElement("tbody");
  tbody.innerHTML = [0, 1].map((r) => `<tr>${["a", "b"].map((v) =>
    `<td class="dnb-experiment-cell" data-row="${r}" data-variant="${v}" tabindex="0"><span class="in">x</span>${
      r === 1 && v === "b" ? '<button data-epoch="0">e0</button><button data-epoch="1">e1</button>' : ""}</td>`).join("")}</tr>`)
    .join("");
  const table = document.createElement("table");
  table.append(tbody);
  document.body.replaceChildren(table);
  return tbody;
}

describe("the matrix's cells", () => {
  it("finds the cell, and the epoch, at a target inside it", () => {
    const tbody = body();
    const cells = matrixCells(tbody);
    assert.deepEqual(cells.cellOf(tbody.querySelector('[data-row="0"][data-variant="b"] .in')), { row: 0, variant: "b" });
    assert.deepEqual(cells.cellOf(tbody.querySelector('[data-epoch="1"]')), { row: 1, variant: "b", epoch: 1 });
    assert.equal(cells.cellOf(tbody.parentElement), null, "outside the body: no cell");
    assert.equal(cells.cellOf(null), null);
    assert.equal(cells.cellAt({ row: 1, variant: "a" }), tbody.querySelector('[data-row="1"][data-variant="a"]'));
    assert.equal(cells.cellAt({ row: 5, variant: "a" }), null);
  });

  it("gives the focus back to the same cell, or its epoch button, once redrawn", () => {
    const tbody = body();
    const cells = matrixCells(tbody);
    assert.equal(cells.focused(), null);
    (tbody.querySelector('[data-epoch="1"]') as HTMLElement).focus();
    const onEpoch = cells.focused()!;
    assert.deepEqual(onEpoch, { key: { row: 1, variant: "b", epoch: 1 }, epoch: true });
    (tbody.querySelector('[data-row="0"][data-variant="a"]') as HTMLElement).focus();
    const onCell = cells.focused()!;
    assert.deepEqual(onCell, { key: { row: 0, variant: "a" }, epoch: false });
    const redrawn = body(); // the same cells, new elements
    const again = matrixCells(redrawn);
    again.refocus(onEpoch);
    assert.equal(document.activeElement, redrawn.querySelector('[data-epoch="1"]'));
    again.refocus(onCell);
    assert.equal(document.activeElement, redrawn.querySelector('[data-row="0"][data-variant="a"]'));
  });
});

describe("the samples shown", () => {
  const cell = (v: string, kind: string, epochs?: string[]) =>
    ({ v, kind, scores: {}, answer: "", ...(epochs ? { epochs: epochs.map((s) => ({ s, sc: [] })) } : {}) });

  it("are each shown row's variants in the columns' order, each one's epochs, the queued left out", () => {
    const rows = [
      { r: 3, cells: [cell("a", "done"), cell("b", "done", ["done", "queued", "error"])] },
      { r: 1, cells: [cell("a", "queued"), cell("b", "done")] },
    ];
    assert.deepEqual(samplesOf(rows, ["b", "a"]), [
      { row: 3, variant: "b", epoch: 0 }, { row: 3, variant: "b", epoch: 2 }, { row: 3, variant: "a", epoch: 0 },
      { row: 1, variant: "b", epoch: 0 },
    ]);
    assert.deepEqual(samplesOf(rows, ["c"]), [], "a variant filtered out, or unknown, has no samples");
  });
});
