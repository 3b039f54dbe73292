// deepnb experiment matrix: a row per dataset row, a column per variant, each cell its scores,
// status and the answer's first line; the summary per variant under it; Stop; sort by any
// column (click its header, again to reverse), filter by text; a click on a cell opens that run's
// live view below the matrix, and Escape closes it (anywidget ESM module). Its frame (region,
// notice, Stop, the open run, the kernel's going) is lib/view_shell.ts's, shared with the batch grid.
//
// Security: every string goes into the DOM as text (lib/dom.ts); nothing here sets HTML.
//
// Protocol (deepnb/views/experiment/experiment_live.py): traits head, variants, scorers, rows, more, summary,
// going, detail, selected, notice. The view sends `hello` when it opens, `open {row, variant}`,
// `close` and `stop`.

import type { AnyModel } from "@anywidget/types";
import { detailView, type Manager } from "./batch/detail";
import { h, setAttr, setText } from "./lib/dom";
import { isObj, list, num, str } from "./lib/text";
import {
  closestIn, isActivation, listen, type LiveShell, liveShell, mountShell, openShell, type ShellOptions,
} from "./lib/view_shell";

/** A cell as the kernel sends it (deepnb/views/experiment/experiment_view.py matrix_cell, with its variant). */
export interface Cell {
  v: string; status: string; kind: string; scores: Record<string, string>; answer: string;
}
export interface MatrixRow { r: number; prompt: string; cells: Cell[] }

interface ExperimentTraits {
  head: string;
  variants: string[];
  scorers: string[];
  rows: MatrixRow[];
  more: string[];
  summary: { columns?: string[]; rows?: string[][] };
  going: boolean;
  detail: string;
  selected: { row?: number; variant?: string };
  notice: string;
}

/** A cell of the matrix: its dataset row and variant. */
interface CellKey { row: number; variant: string }

/** What the matrix sends to open a cell's run. */
type OpenCell = { type: "open" } & CellKey;

/** How the matrix is sorted. `by` -1: the dataset's order; 0: the prompt; n > 0: variant n - 1. */
interface Sort { by: number; descending: boolean }

const SHELL: ShellOptions = {
  root: "deepnb deepnb-experiment",
  label: "Experiment",
  head: "dnb-experiment-head",
  notice: "dnb-experiment-notice",
  gone: "The kernel restarted or shut down: the matrix shows the runs as they last were.",
  stop: { cls: "dnb-experiment-stop", label: "■ Stop", title: "Stop every run and drop the queued ones" },
};

/** A cell's first score as a number for sorting (none, "–" or "error" sort last). */
export function cellValue(cell: Cell | undefined, scorers: string[]): number {
  if (!cell) return -Infinity;
  for (const name of scorers) {
    const value = Number.parseFloat(str(cell.scores?.[name]));
    if (Number.isFinite(value)) return value;
  }
  return -Infinity;
}

function isRow(value: unknown): value is MatrixRow {
  return isObj(value) && Number.isInteger(value.r) && Array.isArray(value.cells);
}

/** Whether the cell of `row` and `variant` is the one whose run is open (`selected`). */
function isOpenCell(selected: unknown, row: number, variant: string): boolean {
  return isObj(selected) && selected.row === row && selected.variant === variant;
}

/** The sort after a click on column `column`'s header: the sorted column again reverses it; another
 * column sorts by itself, a variant's scores best first. */
function nextSort(sort: Sort, column: number): Sort {
  const current = sort.by === -1 ? 0 : sort.by;
  if (column === current && !(sort.by === -1 && column === 0)) return { by: sort.by, descending: !sort.descending };
  return { by: column === 0 ? -1 : column, descending: column > 0 };
}

/** The rows whose prompt or an answer holds `filter`, in `sort`'s order (ties in the dataset's). */
function shownRows(rows: MatrixRow[], variants: string[], scorers: string[], filter: string, sort: Sort): MatrixRow[] {
  const needle = filter.trim().toLowerCase();
  const kept = !needle ? rows : rows.filter((row) =>
    [row.prompt, ...row.cells.map((c) => str(c.answer))].some((text) => str(text).toLowerCase().includes(needle)));
  const key = (row: MatrixRow): number | string => {
    if (sort.by <= 0) return sort.by === 0 ? str(row.prompt).toLowerCase() : row.r;
    return cellValue(row.cells.find((c) => c.v === variants[sort.by - 1]), scorers);
  };
  const sign = sort.descending ? -1 : 1;
  return [...kept].sort((a, b) => {
    const ka = key(a), kb = key(b);
    return (ka < kb ? -1 : ka > kb ? 1 : a.r - b.r) * sign;
  });
}

/** The header row: "Row" and a column per variant, each sorting by itself, marked with `sort`.
 * `scorer` is the first scorer's name, what a variant's column sorts by. */
function headerRow(variants: string[], sort: Sort, scorer: unknown): HTMLTableRowElement {
  const tr = h("tr");
  const names = ["Row", ...variants];
  names.forEach((name, n) => {
    const th = h("th", "dnb-experiment-sort", name);
    th.setAttribute("scope", "col");
    th.setAttribute("data-column", String(n));
    th.setAttribute("tabindex", "0");
    const on = sort.by === n || (sort.by === -1 && n === 0);
    th.setAttribute("aria-sort", !on ? "none" : sort.descending ? "descending" : "ascending");
    th.title = n === 0 ? "Sort by row" : `Sort by ${name}'s ${scorer ?? "score"}`;
    tr.append(th);
  });
  return tr;
}

/** A row's first cell: its number and its prompt. */
function promptCell(row: MatrixRow): HTMLTableCellElement {
  const first = h("td", "dnb-experiment-prompt");
  first.append(h("b", undefined, String(row.r)), " ", row.prompt);
  first.title = str(row.prompt);
  return first;
}

/** The cell of `variant` in `row`: its scores, status and answer (queued while it has no `cell`). */
function variantCell(
  row: MatrixRow, variant: string, cell: Cell | undefined, scorers: string[], open: boolean,
): HTMLTableCellElement {
  const td = h("td", "dnb-experiment-cell");
  td.setAttribute("data-row", String(row.r));
  td.setAttribute("data-variant", variant);
  td.setAttribute("tabindex", "0");
  td.title = "Open this run's view below the matrix";
  setAttr(td, "data-status", cell ? str(cell.kind) : "queued");
  td.classList.toggle("dnb-experiment-selected", open);
  if (cell) {
    const scores = scorers.map((name) => `${name} ${str(cell.scores?.[name]) || "–"}`).join(" · ");
    td.append(h("div", "dnb-experiment-scores", scores), h("div", "dnb-experiment-status", str(cell.status)),
      h("div", "dnb-experiment-answer", str(cell.answer)));
  }
  return td;
}

/** A dataset row of the matrix: its prompt, then a cell per variant. */
function matrixRow(row: MatrixRow, variants: string[], scorers: string[], selected: unknown): HTMLTableRowElement {
  const tr = h("tr", "dnb-experiment-row");
  tr.append(promptCell(row));
  for (const variant of variants) {
    const cell = row.cells.find((c) => c.v === variant);
    tr.append(variantCell(row, variant, cell, scorers, isOpenCell(selected, row.r, variant)));
  }
  return tr;
}

/** The summary's rows: a header row of its `columns`, then a row per variant. */
function summaryRows(data: unknown): HTMLTableRowElement[] {
  const columns = isObj(data) ? list(data.columns).map(str) : [];
  const rows = isObj(data) ? list(data.rows) : [];
  const trs: HTMLTableRowElement[] = [];
  if (columns.length) {
    const tr = h("tr");
    for (const name of columns) tr.append(h("th", undefined, name));
    trs.push(tr);
  }
  for (const row of rows) {
    const tr = h("tr");
    for (const text of list(row)) tr.append(h("td", undefined, str(text)));
    trs.push(tr);
  }
  return trs;
}

/** The summary per variant: a table, hidden while it has no rows. */
function summaryView(): { el: HTMLTableElement; show(data: unknown): void } {
  const el = h("table", "dnb-experiment-summary");
  el.setAttribute("aria-label", "Summary per variant");
  return {
    el,
    show(data) {
      const trs = summaryRows(data);
      el.replaceChildren(...trs);
      el.hidden = trs.length === 0;
    },
  };
}

/** The box that filters the matrix's rows by text. */
function filterBox(): HTMLInputElement {
  const find = h("input", "dnb-experiment-filter");
  find.type = "search";
  find.placeholder = "Filter rows";
  find.setAttribute("aria-label", "Filter rows by their prompt or answers");
  find.setAttribute("data-lm-suppress-shortcuts", "true");
  return find;
}

interface MatrixView {
  /** The scrolling table, and the notes on what it leaves out (under it). */
  el: HTMLElement;
  more: HTMLElement;
  /** Draws the matrix from the traits, sorted and filtered as asked. */
  draw(): void;
  /** The cell at `target`, if any. */
  cellOf(target: EventTarget | null): CellKey | null;
  /** Sorts by the column whose header is at `target`; whether there was one. */
  sortOn(target: EventTarget | null): boolean;
  /** Shows only the rows holding `text`. */
  filter(text: string): void;
}

function matrixView(model: AnyModel<ExperimentTraits>): MatrixView {
  let sort: Sort = { by: -1, descending: false };
  let filter = "";
  const el = h("div", "dnb-experiment-scroll");
  const table = h("table", "dnb-experiment-grid");
  const thead = h("thead");
  const tbody = h("tbody");
  table.append(thead, tbody);
  el.append(table);
  const more = h("div", "dnb-experiment-more");

  function draw(): void {
    const variants = list(model.get("variants")).map(str);
    const scorers = list(model.get("scorers")).map(str);
    const selected = model.get("selected");
    thead.replaceChildren(headerRow(variants, sort, list(model.get("scorers"))[0]));
    const rows = shownRows(list(model.get("rows")).filter(isRow), variants, scorers, filter, sort);
    tbody.replaceChildren(...rows.map((row) => matrixRow(row, variants, scorers, selected)));
    const notes = list(model.get("more")).map(str);
    setText(more, notes.map((note) => `… ${note}`).join("\n"));
  }

  return {
    el,
    more,
    draw,
    cellOf(target) {
      const td = closestIn(target, ".dnb-experiment-cell", tbody);
      return td ? { row: num(td.getAttribute("data-row")), variant: str(td.getAttribute("data-variant")) } : null;
    },
    sortOn(target) {
      const th = closestIn(target, ".dnb-experiment-sort", thead);
      if (!th) return false;
      sort = nextSort(sort, num(th.getAttribute("data-column")));
      draw();
      return true;
    },
    filter(text) {
      filter = text;
      draw();
    },
  };
}

/** Clicks and keys anywhere in the view: a header sorts, a cell opens its run (the open one: closes
 * it), Escape closes the open run; typing in `find` filters. Returns what removes the listeners. */
function matrixControls(
  model: AnyModel<ExperimentTraits>, shell: LiveShell<OpenCell>, matrix: MatrixView, find: HTMLInputElement,
): (() => void)[] {
  const open = (cell: CellKey): void => {
    const same = isOpenCell(model.get("selected"), cell.row, cell.variant);
    shell.toggle(same, { type: "open", row: cell.row, variant: cell.variant });
  };
  const press = (target: EventTarget | null): void => {
    if (matrix.sortOn(target)) return;
    const cell = matrix.cellOf(target);
    if (cell) open(cell);
  };
  const onKey = (event: KeyboardEvent): void => {
    if (event.key === "Escape") {
      if (str(model.get("detail"))) {
        event.preventDefault();
        event.stopPropagation();
        shell.send({ type: "close" });
      }
      return;
    }
    if (!isActivation(event)) return;
    if (event.target === find) return;
    event.preventDefault();
    event.stopPropagation();
    press(event.target);
  };
  return [
    listen(shell.root, "click", (event) => press(event.target)),
    listen(shell.root, "keydown", onKey),
    listen(find, "input", () => matrix.filter(find.value)),
  ];
}

function render({ model, el }: { model: AnyModel<ExperimentTraits>; el: HTMLElement }): () => void {
  const shell = liveShell<ExperimentTraits, OpenCell, Manager>(model, SHELL, detailView);
  const title = h("span", "dnb-experiment-title");
  const find = filterBox();
  const matrix = matrixView(model);
  const summary = summaryView();
  mountShell(el, shell, [title, find], [matrix.el, matrix.more, summary.el]);
  const onHead = (): void => {
    setText(title, str(model.get("head")));
    shell.stop.disabled = shell.isGone() || !model.get("going");
  };
  const onSummary = (): void => summary.show(model.get("summary"));
  return openShell(model, shell, {
    handlers: {
      "change:head": onHead,
      "change:going": onHead,
      "change:rows": matrix.draw,
      "change:variants": matrix.draw,
      "change:scorers": matrix.draw,
      "change:more": matrix.draw,
      "change:summary": onSummary,
    },
    draw() {
      onHead();
      matrix.draw();
      onSummary();
    },
    markOpen: matrix.draw,
    undo: matrixControls(model, shell, matrix, find),
  });
}

export default { render };
