// deepnb experiment matrix: a row per dataset row, a column group per variant (each cell its
// scores, each coloured by its verdict and written with a mark and a word, its status, the answer's
// first line and, with several epochs, a strip of them; then a column per structured-output
// field); under it a bar chart per scorer (experiment/charts.ts), the summary per variant and the
// baseline comparison (experiment/comparison.ts); Stop; sort by any column (click its header,
// again to reverse); filters (experiment/filters.ts: failures only, scorer, variant, status,
// text; the kernel picks the matching rows from every row, a page at a time: experiment/pager.ts
// says which and goes to the page before or after); a click on a cell (or an epoch of its strip, or a differing row's answer in the
// comparison) opens that sample's view (experiment/sample.ts: where a person grades it too) with
// the run's live view below it (a run read from the experiment's log: its record, read-only), and
// Escape or Close closes them, focus going back to the cell (anywidget ESM module). Its
// frame (region, notice, Stop, the open run, the kernel's going) is lib/view_shell.ts's, shared
// with the batch grid; its cells as places (at a click, by key, the focus kept) and the samples it
// shows in order are experiment/matrix_cells.ts's.
//
// Security: every string goes into the DOM as text (lib/dom.ts); only a logged run's record, escaped
// in Python (deepnb/views/experiment/logged_run.py), is set as HTML (batch/detail.ts).
//
// Protocol (deepnb/views/experiment/experiment_live.py): traits head, variants, scorers, fields,
// rows, more, window, summary, charts, comparisons, going, detail, logged, selected, sample,
// threshold, notice. The view sends `hello` when it opens, `open {row, variant, epoch?}`, `close`,
// `stop`, `grade {row, variant, epoch, scorer, score, comment}`, `filter {failures, scorer, variant,
// status, text}` and `page {offset}`.

import type { AnyModel } from "@anywidget/types";
import { detailView, type Manager } from "./batch/detail";
import { chartsView } from "./experiment/charts";
import { comparisonView } from "./experiment/comparison";
import {
  filterBar, type FilteredCell, keepsRow, MARK, NO_FILTER, type RowFilter, scoreColour, verdictOf,
} from "./experiment/filters";
import { type CellKey, matrixCells, samplesOf } from "./experiment/matrix_cells";
import { pager } from "./experiment/pager";
import { type Grade, type SampleKey, type SampleView, sampleView } from "./experiment/sample";
import { h, setAttr, setText } from "./lib/dom";
import { isObj, list, num, str } from "./lib/text";
import {
  closestIn, escapeCloses, isActivation, listen, listenToModel, type LiveShell, liveShell, type LiveWiring, mountShell,
  openShell, type ShellMessage, type ShellOptions,
} from "./lib/view_shell";

/** A cell as the kernel sends it (deepnb/views/experiment/experiment_view.py matrix_cell, with its variant). */
export interface Cell extends FilteredCell {
  v: string; status: string; kind: string; scores: Record<string, string>; answer: string;
  /** The structured output's fields, in the `fields` trait's order (absent without any). */
  fields?: string[];
  /** The scorers whose score a person set. */
  human?: string[];
}
export interface MatrixRow { r: number; prompt: string; cells: Cell[] }

interface ExperimentTraits {
  head: string;
  variants: string[];
  scorers: string[];
  fields: string[];
  rows: MatrixRow[];
  more: string[];
  window: { offset?: number; shown?: number; total?: number; page?: number };
  summary: { columns?: string[]; rows?: string[][] };
  charts: unknown[];
  comparisons: unknown[];
  going: boolean;
  detail: string;
  logged: string;
  selected: { row?: number; variant?: string; epoch?: number };
  sample: Record<string, unknown>;
  threshold: number;
  notice: string;
}

/** What the matrix sends to open a cell's run. */
type OpenCell = { type: "open" } & CellKey;
/** A person's grade of the open sample. */
type GradeMessage = { type: "grade" } & Grade;
/** The matrix's filters, for the kernel to pick the matching rows from every row. */
type FilterMessage = { type: "filter" } & RowFilter;
/** The page of rows to show, by its first row's place among the matching rows. */
type PageMessage = { type: "page"; offset: number };

/** The score a cell passes at, as the kernel says it. */
const thresholdOf = (model: AnyModel<ExperimentTraits>): number => {
  const given = Number(model.get("threshold"));
  return Number.isFinite(given) ? given : 0.5;
};

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

/** Whether the cell of `row` and `variant` (and `epoch`, when given) is the one whose run is open
 * (`selected`). */
function isOpenCell(selected: unknown, row: number, variant: string, epoch?: number): boolean {
  return isObj(selected) && selected.row === row && selected.variant === variant
    && (epoch === undefined || num(selected.epoch) === epoch);
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

/** The rows `filter` keeps (its text in the prompt, an answer or a field), in `sort`'s order (ties in
 * the dataset's). */
export function shownRows(
  rows: MatrixRow[], columns: Column[], scorers: string[], filter: RowFilter, sort: Sort, threshold = 0.5,
): MatrixRow[] {
  const needle = filter.text.trim().toLowerCase();
  const kept = rows.filter((row) => keepsRow(row, { ...filter, text: "" }, scorers, threshold)
    && (!needle || rowTexts(row).some((text) => str(text).toLowerCase().includes(needle))));
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

/** A score of a cell: its mark, scorer, value and verdict as text ("✓ exact 1.00 pass"), coloured by
 * the value, "(human)" where a person set it. */
export function scoreBadge(name: string, text: string, threshold: number, human: boolean): HTMLSpanElement {
  const verdict = verdictOf(text, threshold);
  const badge = h("span", "dnb-experiment-score",
    `${MARK[verdict]} ${name} ${text || "–"}${verdict ? ` ${verdict}` : ""}${human ? " (human)" : ""}`);
  badge.setAttribute("data-verdict", verdict || "none");
  const colour = scoreColour(text);
  if (colour) badge.style.backgroundColor = colour;
  return badge;
}

/** A cell's epoch strip: a button per epoch, its verdict's mark and colour, opening that epoch. */
function epochStrip(row: number, variant: string, cell: Cell, scorers: string[], judged: string[], threshold: number,
  selected: unknown): HTMLElement | null {
  const epochs = list(cell.epochs).filter(isObj);
  if (epochs.length < 2) return null;
  const strip = h("div", "dnb-experiment-epochs");
  strip.setAttribute("role", "group");
  strip.setAttribute("aria-label", `Row ${row}, ${variant}: epochs`);
  epochs.forEach((epoch, n) => {
    const scores = list(epoch.sc);
    const verdicts = judged.map((name) => verdictOf(scores[scorers.indexOf(name)], threshold));
    const verdict = verdicts.includes("error") ? "error" : verdicts.includes("fail") ? "fail"
      : verdicts.includes("pass") ? "pass" : "";
    const status = str(epoch.s);
    const button = h("button", "dnb-experiment-epoch", `${MARK[verdict]} e${n}`);
    button.type = "button";
    button.setAttribute("data-epoch", String(n));
    button.setAttribute("data-verdict", verdict || "none");
    button.setAttribute("aria-label", `Open row ${row}, ${variant}, epoch ${n}: ${status}${verdict ? `, ${verdict}` : ""}`);
    button.title = button.getAttribute("aria-label")!;
    if (isOpenCell(selected, row, variant, n)) button.setAttribute("aria-current", "true");
    strip.append(button);
  });
  return strip;
}

/** The cell of `variant` in `row`: its scores (those of `judged`), status, epochs and answer (queued
 * while it has no `cell`). */
function variantCell(
  row: MatrixRow, variant: string, cell: Cell | undefined, scorers: string[], judged: string[], threshold: number,
  selected: unknown,
): HTMLTableCellElement {
  const td = h("td", "dnb-experiment-cell");
  td.setAttribute("data-row", String(row.r));
  td.setAttribute("data-variant", variant);
  td.setAttribute("tabindex", "0");
  td.title = "Open this sample, and its run below it";
  setAttr(td, "data-status", cell ? str(cell.kind) : "queued");
  td.classList.toggle("dnb-experiment-selected", isOpenCell(selected, row.r, variant));
  if (cell) {
    const human = list(cell.human).map(str);
    const scores = h("div", "dnb-experiment-scores");
    scores.append(...judged.map((name) =>
      scoreBadge(name, str(cell.scores?.[name]), threshold, human.includes(name))));
    td.append(scores, h("div", "dnb-experiment-status", str(cell.status)));
    const strip = epochStrip(row.r, variant, cell, scorers, judged, threshold, selected);
    if (strip) td.append(strip);
    td.append(h("div", "dnb-experiment-answer", str(cell.answer)));
  }
  return td;
}

/** A dataset row of the matrix: its prompt, then per variant its cell and its fields' values. */
function matrixRow(
  row: MatrixRow, columns: Column[], scorers: string[], judged: string[], threshold: number, selected: unknown,
): HTMLTableRowElement {
  const tr = h("tr", "dnb-experiment-row");
  tr.append(promptCell(row));
  for (const column of columns) {
    if (column.kind === "row") continue;
    const cell = row.cells.find((c) => c.v === column.variant);
    if (column.kind === "score") {
      tr.append(variantCell(row, column.variant, cell, scorers, judged, threshold, selected));
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
  /** The cell at `target` (with the epoch of its strip's button there), if any. */
  cellOf(target: EventTarget | null): CellKey | null;
  /** The cell element of `key`, if it is shown. */
  cellAt(key: CellKey): HTMLElement | null;
  /** Sorts by the column whose header is at `target`; whether there was one. */
  sortOn(target: EventTarget | null): boolean;
  /** Shows only the rows `filter` keeps. */
  filter(filter: RowFilter): void;
  /** The samples shown, in the matrix's order: each shown row's variants, each one's epochs. */
  samples(): SampleKey[];
}

function matrixView(model: AnyModel<ExperimentTraits>): MatrixView {
  let sort: Sort = { key: "", descending: false };
  let columns: Column[] = [{ kind: "row" }];
  let filter: RowFilter = NO_FILTER;
  let shown: MatrixRow[] = [];
  const el = h("div", "dnb-experiment-scroll");
  const table = h("table", "dnb-experiment-grid");
  const thead = h("thead");
  const tbody = h("tbody");
  table.append(thead, tbody);
  el.append(table);
  const more = h("div", "dnb-experiment-more");
  const cells = matrixCells(tbody);

  function draw(): void {
    const scorers = list(model.get("scorers")).map(str);
    const selected = model.get("selected");
    const threshold = thresholdOf(model);
    const variants = list(model.get("variants")).map(str).filter((v) => !filter.variant || v === filter.variant);
    const judged = filter.scorer && scorers.includes(filter.scorer) ? [filter.scorer] : scorers;
    columns = columnsOf(variants, list(model.get("fields")).map(str));
    thead.replaceChildren(headerRow(columns, sort, judged[0]));
    shown = shownRows(list(model.get("rows")).filter(isRow), columns, scorers, filter, sort, threshold);
    const focused = cells.focused(); // redrawn as runs end: the keyboard's place is kept
    tbody.replaceChildren(...shown.map((row) => matrixRow(row, columns, scorers, judged, threshold, selected)));
    if (focused) cells.refocus(focused);
    const notes = list(model.get("more")).map(str);
    setText(more, notes.map((note) => `… ${note}`).join("\n"));
  }

  return {
    el,
    more,
    draw,
    cellOf: cells.cellOf,
    cellAt: cells.cellAt,
    samples: () => samplesOf(shown, columns.flatMap((c) => (c.kind === "score" ? [c.variant] : []))),
    sortOn(target) {
      const th = closestIn(target, ".dnb-experiment-sort", thead);
      if (!th) return false;
      const column = columns[num(th.getAttribute("data-column"))];
      if (!column) return false;
      sort = nextSort(sort, column);
      draw();
      return true;
    },
    filter(given) {
      filter = given;
      draw();
    },
  };
}

/** Clicks and keys anywhere in the view: a header sorts, a cell (or an epoch of its strip, or a
 * differing row's answer in the comparison, found by `runOf`) opens its sample (the open one:
 * closes it), Escape closes the open sample and run and gives the focus back to its cell. Returns
 * what removes the listeners. */
function matrixControls(
  model: AnyModel<ExperimentTraits>, shell: LiveShell<OpenCell>, matrix: MatrixView,
  runOf: (target: EventTarget | null) => CellKey | null, opened: (cell: CellKey) => void,
): (() => void)[] {
  const open = (cell: CellKey): void => {
    const same = isOpenCell(model.get("selected"), cell.row, cell.variant, cell.epoch);
    opened(cell);
    shell.toggle(same, { type: "open", ...cell });
  };
  const target = (event: Event): boolean => {
    if (matrix.sortOn(event.target)) return true;
    const cell = matrix.cellOf(event.target) ?? runOf(event.target);
    if (cell) open(cell);
    return Boolean(cell);
  };
  const onKey = (event: KeyboardEvent): void => {
    if (event.key === "Escape") {
      if (escapeCloses(event, model, shell) || !keyOfSelected(model)) return;
      event.preventDefault();
      event.stopPropagation();
      shell.send({ type: "close" });
      return;
    }
    if (!isActivation(event)) return;
    const acts = closestIn(event.target, ".dnb-experiment-sort, .dnb-experiment-cell, .dnb-experiment-diff-run",
      shell.root);
    if (!acts) return; // a button, a box or a list of the view: its own keys
    event.preventDefault();
    event.stopPropagation();
    target(event);
  };
  return [
    listen(shell.root, "click", (event) => { target(event); }),
    listen(shell.root, "keydown", onKey),
  ];
}

/** The open sample, from `selected`. */
function keyOfSelected(model: AnyModel<ExperimentTraits>): SampleKey | null {
  const selected = model.get("selected");
  if (!isObj(selected) || !Number.isInteger(selected.row)) return null;
  return { row: num(selected.row), variant: str(selected.variant), epoch: num(selected.epoch) };
}

/** The samples before and after `key` among `samples` (null at either end, or when it is not there). */
export function around(samples: SampleKey[], key: SampleKey): { prev: SampleKey | null; next: SampleKey | null } {
  const at = samples.findIndex((s) => s.row === key.row && s.variant === key.variant && s.epoch === key.epoch);
  if (at < 0) return { prev: null, next: null };
  return { prev: samples[at - 1] ?? null, next: samples[at + 1] ?? null };
}

/** The messages of the matrix beside the frame's own: a grade, the filters, a page. */
type OtherMessage = GradeMessage | FilterMessage | PageMessage;

/** The open sample under the matrix, and the cell it was opened from, where the focus goes back
 * when it closes. */
export interface SampleOpening {
  sample: SampleView;
  /** The `sample` trait changed: shows it (closed: the focus goes back to its cell). */
  onSample(): void;
  /** A cell was opened (from a click or a key). */
  opened(cell: CellKey): void;
}

export function sampleOpening(
  model: AnyModel<ExperimentTraits>, send: (message: OpenCell | { type: "close" } | GradeMessage) => void,
  matrix: Pick<MatrixView, "cellAt" | "samples">,
): SampleOpening {
  let opener: CellKey | null = null; // the cell a sample was opened from, where Close puts the focus back
  const sample = sampleView({
    open: (key) => send({ type: "open", ...key }),
    close: () => send({ type: "close" }),
    grade: (grade) => send({ type: "grade", ...grade }),
    around: (key) => around(matrix.samples(), key),
  });
  return {
    sample,
    onSample() {
      const wasOpen = sample.key();
      sample.show(model.get("sample"));
      if (wasOpen && !sample.key() && opener) { // closed: the focus goes back where it came from,
        const cell = opener; // once the matrix is drawn again (its `selected` comes in the same message)
        opener = null;
        queueMicrotask(() => matrix.cellAt(cell)?.focus());
      }
    },
    opened: (cell) => { opener = cell; },
  };
}

/** The parts of the view that follow the model beside the frame. */
export interface MatrixParts {
  title: HTMLElement;
  matrix: Pick<MatrixView, "draw">;
  filters: { offer(scorers: string[], variants: string[], statuses: string[]): void };
  pages: { show(window: unknown, gone: boolean): void };
  summary: { show(data: unknown): void };
  charts: { show(data: unknown): void };
  compared: { show(data: unknown, isOpen: (row: number, variant: string) => boolean): void };
  onSample(): void;
}

/** What the matrix draws from its traits. */
export function matrixWiring(
  model: AnyModel<ExperimentTraits>, shell: Pick<LiveShell<OpenCell>, "stop" | "isGone">, parts: MatrixParts,
): Omit<LiveWiring<ExperimentTraits>, "undo"> {
  const { title, matrix, filters, pages, summary, charts, compared, onSample } = parts;
  const offer = (): void => filters.offer(list(model.get("scorers")).map(str), list(model.get("variants")).map(str), []);
  const onHead = (): void => {
    setText(title, str(model.get("head")));
    shell.stop.disabled = shell.isGone() || !model.get("going");
  };
  const onWindow = (): void => pages.show(model.get("window"), shell.isGone());
  const onSummary = (): void => summary.show(model.get("summary"));
  const onCharts = (): void => charts.show(model.get("charts"));
  const onComparisons = (): void =>
    compared.show(model.get("comparisons"), (row, variant) => isOpenCell(model.get("selected"), row, variant));
  return {
    handlers: {
      "change:head": onHead,
      "change:going": onHead,
      "change:rows": matrix.draw,
      "change:variants": () => { offer(); matrix.draw(); },
      "change:scorers": () => { offer(); matrix.draw(); },
      "change:threshold": matrix.draw,
      "change:sample": onSample,
      "change:fields": matrix.draw,
      "change:more": matrix.draw,
      "change:window": onWindow,
      "change:summary": onSummary,
      "change:charts": onCharts,
      "change:comparisons": onComparisons,
    },
    draw() {
      onHead();
      onWindow();
      offer();
      matrix.draw();
      onSample();
      onCharts();
      onSummary();
      onComparisons();
    },
    markOpen() {
      matrix.draw();
      onComparisons();
    },
  };
}

function render({ model, el }: { model: AnyModel<ExperimentTraits>; el: HTMLElement }): () => void {
  const shell = liveShell<ExperimentTraits, OpenCell, Manager>(model, SHELL, detailView);
  const title = h("span", "dnb-experiment-title");
  const matrix = matrixView(model);
  // The frame (lib/view_shell.ts) types the messages it sends itself and the view's `open`; the
  // matrix's other two (MATRIX_MESSAGES in experiment_live.py) go through the same send.
  const send = (message: ShellMessage<OpenCell> | OtherMessage): void => shell.send(message as ShellMessage<OpenCell>);
  const filters = filterBar((filter) => {
    matrix.filter(filter);
    send({ type: "filter", ...filter }); // the kernel picks the matching rows from every row
  });
  const pages = pager((offset) => send({ type: "page", offset }));
  const summary = summaryView();
  const charts = chartsView();
  const compared = comparisonView();
  const { sample, onSample, opened } = sampleOpening(model, send, matrix);
  mountShell(el, shell, [title], [filters.el, pages.el, matrix.el, matrix.more, charts.el, summary.el, compared.el]);
  matrix.more.after(sample.el, shell.panel.el); // the sample, then its run, right under the matrix
  return openShell(model, shell, {
    ...matrixWiring(model, shell, { title, matrix, filters, pages, summary, charts, compared, onSample }),
    undo: [
      ...matrixControls(model, shell, matrix, compared.runOf, opened),
      listenToModel(model, { "change:notice": () => sample.refused(str(model.get("notice"))) }),
    ],
  });
}

export default { render };
