// The batch grid's rows: one table row per input, patched in place (one record per index, DOM
// writes only for the cells whose text changed), sorted by any column (click its header, again to
// reverse; "#" is the inputs' order) and filtered by text. Every string is set as text.

import { h, setAttr, setText } from "../lib/dom";
import { fmtElapsed, fmtInt, isObj, num, str } from "../lib/text";
import { shownAs } from "../lib/statuses";
import { closestIn } from "../lib/view_shell";
import { RUN_STATUS_LABEL } from "../schema";

/** A row as the kernel sends it (deepnb/views/batch/batch_rows.py grid_row). */
export interface Row {
  i: number;
  input: string;
  status: string;
  steps: number;
  tools: number;
  /** The count of tokens in and out in words ("1,200 / 300", "≥ 1,200 / ≥ 300", "unknown"). */
  tokens: string;
  elapsed: number;
  line: string;
  waiting: boolean;
}

export const COLUMNS = ["#", "Input", "Status", "Step", "Tool calls", "Tokens in / out", "Time", "Answer"];

interface Record_ {
  tr: HTMLTableRowElement;
  cells: HTMLTableCellElement[];
  mark: HTMLSpanElement;
  row?: Row;
}

/** How the rows are sorted: by column `column` of COLUMNS (0: the inputs' order). */
export interface Sort {
  column: number;
  descending: boolean;
}

/** The tokens in and out a row's words count together ("1,200 / 300": 1500); -1 where unknown. */
export function tokenCount(words: unknown): number {
  const counts = str(words).match(/\d[\d,]*/g);
  return counts ? counts.reduce((sum, n) => sum + Number(n.replace(/,/g, "")), 0) : -1;
}

/** What a row sorts by in column `column`: a number for the counting columns, else its text. */
export function sortKey(row: Row, column: number): number | string {
  switch (column) {
    case 1: return str(row.input).toLowerCase();
    case 2: return str(row.status);
    case 3: return num(row.steps);
    case 4: return num(row.tools);
    case 5: return tokenCount(row.tokens);
    case 6: return num(row.elapsed);
    case 7: return str(row.line).toLowerCase();
    default: return num(row.i);
  }
}

/** The sort after a click on column `column`'s header: the sorted column again reverses it; another
 * column sorts by itself, counts and times largest first. */
export function nextSort(sort: Sort, column: number): Sort {
  if (column === sort.column) return { column, descending: !sort.descending };
  return { column, descending: column >= 3 && column <= 6 };
}

/** Whether `row` holds `needle` (lower case) in its input or its answer. */
const holds = (row: Row, needle: string): boolean =>
  !needle || str(row.input).toLowerCase().includes(needle) || str(row.line).toLowerCase().includes(needle);

/** Whether `value` has the shape of a row (anything else from the kernel is skipped). */
export function isRow(value: unknown): value is Row {
  return isObj(value) && Number.isInteger(value.i) && num(value.i) >= 0;
}

export interface RowsView {
  el: HTMLTableElement;
  body: HTMLTableSectionElement;
  put(rows: unknown[]): void;
  select(index: number): void;
  count(): number;
  /** Sorts by the column whose header is at `target`; whether there was one. */
  sortOn(target: EventTarget | null): boolean;
  /** Shows only the rows whose input or answer holds `text`; how many are shown. */
  filter(text: string): number;
}

export function rowsView(): RowsView {
  const table = h("table", "dnb-batch-grid");
  const head = h("thead");
  const headRow = h("tr");
  const headers = COLUMNS.map((name, column) => {
    const th = h("th", "dnb-batch-sort", name);
    th.setAttribute("scope", "col");
    th.setAttribute("data-column", String(column));
    th.setAttribute("tabindex", "0");
    th.setAttribute("data-lm-suppress-shortcuts", "true");
    th.title = column === 0 ? "Sort in the inputs' order" : `Sort by ${name.toLowerCase()} (again to reverse)`;
    headRow.append(th);
    return th;
  });
  head.append(headRow);
  const body = h("tbody");
  table.append(head, body);
  const records = new Map<number, Record_>();
  let highest = -1;
  let sort: Sort = { column: 0, descending: false };
  let needle = "";

  function markSort(): void {
    headers.forEach((th, column) => {
      const on = column === sort.column;
      th.setAttribute("aria-sort", !on ? "none" : sort.descending ? "descending" : "ascending");
    });
  }

  /** Puts the rows in `sort`'s order (ties in the inputs' order). */
  function reorder(): void {
    const sign = sort.descending ? -1 : 1;
    const sorted = [...records.values()].sort((a, b) => {
      if (!a.row || !b.row) return a.row ? -1 : b.row ? 1 : 0;
      const x = sortKey(a.row, sort.column);
      const y = sortKey(b.row, sort.column);
      return (x < y ? -sign : x > y ? sign : 0) || num(a.row.i) - num(b.row.i);
    });
    body.append(...sorted.map((record) => record.tr));
  }

  function showFiltered(record: Record_): void {
    record.tr.hidden = !!record.row && !holds(record.row, needle);
  }
  markSort();

  function make(index: number): Record_ {
    const tr = h("tr", "dnb-batch-row");
    tr.setAttribute("data-index", String(index));
    tr.setAttribute("tabindex", "0");
    tr.setAttribute("data-lm-suppress-shortcuts", "true");
    tr.title = "Open this run's view below the grid";
    const cells = COLUMNS.map((_, n) => h("td", n === 0 || (n >= 3 && n <= 6) ? "dnb-num" : undefined));
    const mark = h("span", "dnb-batch-wait", "needs approval");
    mark.hidden = true;
    tr.append(...cells);
    const record = { tr, cells, mark };
    // rows mostly arrive in order; one that does not goes before the first row after it
    let next: HTMLTableRowElement | null = null;
    if (index < highest) {
      let best = Infinity;
      for (const [i, other] of records) if (i > index && i < best) { best = i; next = other.tr; }
    }
    body.insertBefore(tr, next);
    records.set(index, record);
    highest = Math.max(highest, index);
    return record;
  }

  function fill(record: Record_, row: Row): void {
    const [n, input, status, steps, tools, tokens, time, answer] = record.cells;
    setText(n, String(row.i));
    setText(input, str(row.input));
    input.title = str(row.input);
    const st = str(row.status);
    setAttr(record.tr, "data-status", st);
    setText(status, shownAs(RUN_STATUS_LABEL, st, st)); // "queued" is no run status: shown as it is
    if (row.waiting) {
      if (record.mark.parentNode !== status) status.append(" ", record.mark);
    }
    record.mark.hidden = !row.waiting;
    setText(steps, fmtInt(row.steps));
    setText(tools, fmtInt(row.tools));
    setText(tokens, str(row.tokens));
    setText(time, st === "queued" ? "" : fmtElapsed(row.elapsed));
    setText(answer, str(row.line));
    answer.title = str(row.line);
    record.row = row;
    showFiltered(record);
  }

  return {
    el: table,
    body,
    put(rows: unknown[]): void {
      let any = false;
      for (const row of rows) {
        if (!isRow(row)) continue;
        fill(records.get(row.i) || make(row.i), row);
        any = true;
      }
      if (any && sort.column !== 0) reorder(); // a changed row may move
    },
    select(index: number): void {
      for (const [i, record] of records) {
        const on = i === index;
        record.tr.classList.toggle("dnb-batch-selected", on);
        if (on) record.tr.setAttribute("aria-selected", "true");
        else record.tr.removeAttribute("aria-selected");
      }
    },
    count: () => records.size,
    sortOn(target) {
      const th = closestIn(target, ".dnb-batch-sort", head);
      if (!th) return false;
      sort = nextSort(sort, num(th.getAttribute("data-column")));
      markSort();
      reorder();
      return true;
    },
    filter(text) {
      needle = text.trim().toLowerCase();
      let shown = 0;
      for (const record of records.values()) {
        showFiltered(record);
        if (!record.tr.hidden) shown += 1;
      }
      return shown;
    },
  };
}
