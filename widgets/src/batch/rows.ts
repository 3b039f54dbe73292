// The batch grid's rows: one table row per input, patched in place (one record per index, DOM
// writes only for the cells whose text changed). Every string is set as text.

import { h, setAttr, setText } from "../lib/dom";
import { fmtElapsed, fmtInt, isObj, num, str } from "../lib/text";
import { shownAs } from "../lib/statuses";
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
}

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
}

export function rowsView(): RowsView {
  const table = h("table", "dnb-batch-grid");
  const head = h("thead");
  const headRow = h("tr");
  for (const name of COLUMNS) {
    const th = h("th", undefined, name);
    th.setAttribute("scope", "col");
    headRow.append(th);
  }
  head.append(headRow);
  const body = h("tbody");
  table.append(head, body);
  const records = new Map<number, Record_>();
  let highest = -1;

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
  }

  return {
    el: table,
    body,
    put(rows: unknown[]): void {
      for (const row of rows) {
        if (!isRow(row)) continue;
        fill(records.get(row.i) || make(row.i), row);
      }
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
  };
}
