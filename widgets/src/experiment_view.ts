// deepnb experiment matrix: a row per dataset row, a column group per variant (each cell its
// scores, status and the answer's first line, then a column per structured-output field); under
// it a bar chart per scorer (experiment/charts.ts), the summary per variant and the baseline
// comparison (experiment/comparison.ts); Stop; sort by any column (click its header, again to
// reverse), filter by text; a click on a cell, or on a differing row's answer in the comparison,
// opens that run's live view below the matrix (a run read from the experiment's log: its record,
// read-only), and Escape closes it (anywidget ESM module). Its
// frame (region, notice, Stop, the open run, the kernel's going) is lib/view_shell.ts's, shared
// with the batch grid.
//
// Security: every string goes into the DOM as text (lib/dom.ts); only a logged run's record, escaped
// in Python (deepnb/views/experiment/logged_run.py), is set as HTML (batch/detail.ts).
//
// Protocol (deepnb/views/experiment/experiment_live.py): traits head, variants, scorers, fields,
// rows, more, summary, charts, comparisons, going, detail, logged, selected, notice. The view sends `hello` when it opens, `open {row, variant}`,
// `close` and `stop`.

import type { AnyModel } from "@anywidget/types";
import { detailView, type Manager } from "./batch/detail";
import { chartsView } from "./experiment/charts";
import { comparisonView } from "./experiment/comparison";
import { h, setAttr, setText } from "./lib/dom";
import { isObj, list, num, str } from "./lib/text";
import {
  closestIn, escapeCloses, filterBox, isActivation, listen, type LiveShell, liveShell, mountShell, openShell,
  type ShellOptions,
} from "./lib/view_shell";

/** A cell as the kernel sends it (deepnb/views/experiment/experiment_view.py matrix_cell, with its variant). */
export interface Cell {
  v: string; status: string; kind: string; scores: Record<string, string>; answer: string;
  /** The structured output's fields, in the `fields` trait's order (absent without any). */
  fields?: string[];
}
export interface MatrixRow { r: number; prompt: string; cells: Cell[] }

interface ExperimentTraits {
  head: string;
  variants: string[];
  scorers: string[];
  fields: string[];
  rows: MatrixRow[];
  more: string[];
  summary: { columns?: string[]; rows?: string[][] };
  charts: unknown[];
  comparisons: unknown[];
  going: boolean;
  detail: string;
  logged: string;
  selected: { row?: number; variant?: string };
  notice: string;
}

/** A cell of the matrix: its dataset row and variant. */
interface CellKey { row: number; variant: string }

/** What the matrix sends to open a cell's run. */
type OpenCell = { type: "open" } & CellKey;

/** A column of the matrix: the row, a variant's scores, or a field of a variant's output. */
export type Column =
  | { kind: "row" }
  | { kind: "score"; variant: string }
  | { kind: "field"; variant: string; field: number; label: string };

/** How the matrix is sorted: by the column of key `key` ("" : the dataset's order). */
interface Sort { key: string; descending: boolean }

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

/** The matrix's columns: the row, then per variant its scores and its output's fields. */
export function columnsOf(variants: string[], fields: string[]): Column[] {
  const columns: Column[] = [{ kind: "row" }];
  for (const variant of variants) {
    columns.push({ kind: "score", variant });
    fields.forEach((label, field) => columns.push({ kind: "field", variant, field, label }));
  }
  return columns;
}

/** A column's key, the same however many columns come before it. */
const keyOf = (column: Column): string =>
  column.kind === "row" ? "" : column.kind === "score" ? `s:${column.variant}` : `f:${column.variant}:${column.field}`;

/** The sort after a click on `column`'s header: the sorted column again reverses it; the row column
 * restores the dataset's order; a variant's scores sort best first, a field's values A to Z. */
function nextSort(sort: Sort, column: Column): Sort {
  const key = keyOf(column);
  if (!key) return { key, descending: false };
  if (key === sort.key) return { key, descending: !sort.descending };
  return { key, descending: column.kind === "score" };
}

/** A field's value for sorting: a number when it reads as one, else its text (blank last). */
export function fieldValue(text: unknown): number | string {
  const value = str(text).trim();
  if (!value) return -Infinity;
  const n = Number(value);
  return Number.isFinite(n) ? n : value.toLowerCase();
}

/** Numbers before texts, each in their own order. */
function compareKeys(a: number | string, b: number | string): number {
  if (typeof a !== typeof b) return typeof a === "number" ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The texts a row's filter looks in: its prompt, each answer and each field's value. */
const rowTexts = (row: MatrixRow): string[] =>
  [row.prompt, ...row.cells.flatMap((c) => [str(c.answer), ...list(c.fields).map(str)])];

/** The rows whose prompt, an answer or a field holds `filter`, in `sort`'s order (ties in the
 * dataset's). */
function shownRows(rows: MatrixRow[], columns: Column[], scorers: string[], filter: string, sort: Sort): MatrixRow[] {
  const needle = filter.trim().toLowerCase();
  const kept = !needle ? rows : rows.filter((row) => rowTexts(row).some((text) => str(text).toLowerCase().includes(needle)));
  const column = columns.find((c) => keyOf(c) === sort.key) ?? columns[0];
  const key = (row: MatrixRow): number | string => {
    if (column.kind === "row") return row.r;
    const cell = row.cells.find((c) => c.v === column.variant);
    return column.kind === "score" ? cellValue(cell, scorers) : fieldValue(list(cell?.fields)[column.field]);
  };
  const sign = sort.descending ? -1 : 1;
  return [...kept].sort((a, b) => (compareKeys(key(a), key(b)) || a.r - b.r) * sign);
}

/** The header row: "Row", then per variant its name and its fields, each sorting by itself,
 * marked with `sort`. `scorer` is the first scorer's name, what a variant's column sorts by. */
function headerRow(columns: Column[], sort: Sort, scorer: unknown): HTMLTableRowElement {
  const tr = h("tr");
  columns.forEach((column, n) => {
    const name = column.kind === "row" ? "Row" : column.kind === "score" ? column.variant : `${column.variant} · ${column.label}`;
    const th = h("th", column.kind === "field" ? "dnb-experiment-sort dnb-experiment-field-head" : "dnb-experiment-sort", name);
    th.setAttribute("scope", "col");
    th.setAttribute("data-column", String(n));
    th.setAttribute("tabindex", "0");
    const on = keyOf(column) === sort.key;
    th.setAttribute("aria-sort", !on ? "none" : sort.descending ? "descending" : "ascending");
    th.title = column.kind === "row" ? "Sort by row"
      : column.kind === "score" ? `Sort by ${name}'s ${scorer ?? "score"}` : `Sort by ${name}`;
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

/** A dataset row of the matrix: its prompt, then per variant its cell and its fields' values. */
function matrixRow(row: MatrixRow, columns: Column[], scorers: string[], selected: unknown): HTMLTableRowElement {
  const tr = h("tr", "dnb-experiment-row");
  tr.append(promptCell(row));
  for (const column of columns) {
    if (column.kind === "row") continue;
    const cell = row.cells.find((c) => c.v === column.variant);
    if (column.kind === "score") {
      tr.append(variantCell(row, column.variant, cell, scorers, isOpenCell(selected, row.r, column.variant)));
    } else {
      const value = str(list(cell?.fields)[column.field]);
      const td = h("td", "dnb-experiment-field", value);
      td.title = value;
      tr.append(td);
    }
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
  let sort: Sort = { key: "", descending: false };
  let columns: Column[] = [{ kind: "row" }];
  let filter = "";
  const el = h("div", "dnb-experiment-scroll");
  const table = h("table", "dnb-experiment-grid");
  const thead = h("thead");
  const tbody = h("tbody");
  table.append(thead, tbody);
  el.append(table);
  const more = h("div", "dnb-experiment-more");

  function draw(): void {
    const scorers = list(model.get("scorers")).map(str);
    const selected = model.get("selected");
    columns = columnsOf(list(model.get("variants")).map(str), list(model.get("fields")).map(str));
    thead.replaceChildren(headerRow(columns, sort, list(model.get("scorers"))[0]));
    const rows = shownRows(list(model.get("rows")).filter(isRow), columns, scorers, filter, sort);
    tbody.replaceChildren(...rows.map((row) => matrixRow(row, columns, scorers, selected)));
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
      const column = columns[num(th.getAttribute("data-column"))];
      if (!column) return false;
      sort = nextSort(sort, column);
      draw();
      return true;
    },
    filter(text) {
      filter = text;
      draw();
    },
  };
}

/** Clicks and keys anywhere in the view: a header sorts, a cell (or a differing row's answer in the
 * comparison, found by `runOf`) opens its run (the open one: closes it), Escape closes the open
 * run; typing in `find` filters. Returns what removes the listeners. */
function matrixControls(
  model: AnyModel<ExperimentTraits>, shell: LiveShell<OpenCell>, matrix: MatrixView, find: HTMLInputElement,
  runOf: (target: EventTarget | null) => CellKey | null,
): (() => void)[] {
  const open = (cell: CellKey): void => {
    const same = isOpenCell(model.get("selected"), cell.row, cell.variant);
    shell.toggle(same, { type: "open", row: cell.row, variant: cell.variant });
  };
  const press = (target: EventTarget | null): void => {
    if (matrix.sortOn(target)) return;
    const cell = matrix.cellOf(target) ?? runOf(target);
    if (cell) open(cell);
  };
  const onKey = (event: KeyboardEvent): void => {
    if (event.key === "Escape") {
      escapeCloses(event, model, shell);
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
  const find = filterBox("dnb-experiment-filter", "Filter rows by their prompt or answers");
  const matrix = matrixView(model);
  const summary = summaryView();
  const charts = chartsView();
  const compared = comparisonView();
  mountShell(el, shell, [title, find], [matrix.el, matrix.more, charts.el, summary.el, compared.el]);
  const onHead = (): void => {
    setText(title, str(model.get("head")));
    shell.stop.disabled = shell.isGone() || !model.get("going");
  };
  const onSummary = (): void => summary.show(model.get("summary"));
  const onCharts = (): void => charts.show(model.get("charts"));
  const onComparisons = (): void =>
    compared.show(model.get("comparisons"), (row, variant) => isOpenCell(model.get("selected"), row, variant));
  const markOpen = (): void => {
    matrix.draw();
    onComparisons();
  };
  return openShell(model, shell, {
    handlers: {
      "change:head": onHead,
      "change:going": onHead,
      "change:rows": matrix.draw,
      "change:variants": matrix.draw,
      "change:scorers": matrix.draw,
      "change:fields": matrix.draw,
      "change:more": matrix.draw,
      "change:summary": onSummary,
      "change:charts": onCharts,
      "change:comparisons": onComparisons,
    },
    draw() {
      onHead();
      matrix.draw();
      onCharts();
      onSummary();
      onComparisons();
    },
    markOpen,
    undo: matrixControls(model, shell, matrix, find, compared.runOf),
  });
}

export default { render };
