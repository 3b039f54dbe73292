// deepnb experiment matrix: a row per dataset row, a column per variant, each cell its scores,
// status and the answer's first line; the summary per variant under it; Stop; sort by any
// column (click its header, again to reverse), filter by text; a click on a cell opens that run's
// live view below the matrix, and Escape closes it (anywidget ESM module).
//
// Security: every string goes into the DOM as text (lib/dom.ts); nothing here sets HTML.
//
// Protocol (deepnb/views/experiment/experiment_live.py): traits head, variants, scorers, rows, more, summary,
// going, detail, selected, notice. The view sends `hello` when it opens, `open {row, variant}`,
// `close` and `stop`.

import type { AnyModel } from "@anywidget/types";
import { detailView, type Manager } from "./batch/detail";
import { h, setAttr, setText, smallButton } from "./lib/dom";
import { sendIfLive, watchKernel } from "./lib/kernel";
import { type NotebookManager, saveViewsAsSnapshots } from "./lib/saved_snapshots";
import { isObj, list, num, str } from "./lib/text";

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

const GONE = "The kernel restarted or shut down: the matrix shows the runs as they last were.";

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

function render({ model, el }: { model: AnyModel<ExperimentTraits>; el: HTMLElement }): () => void {
  const manager = (model as { widget_manager?: NotebookManager & Manager }).widget_manager;
  saveViewsAsSnapshots(manager);
  let gone = false;
  let sortBy = -1; // -1: the dataset's order; 0: the prompt; n > 0: variant n - 1
  let descending = false;
  let filter = "";
  const root = h("div", "deepnb deepnb-experiment");
  root.setAttribute("role", "region");
  root.setAttribute("aria-label", "Experiment");
  const head = h("div", "dnb-experiment-head");
  const title = h("span", "dnb-experiment-title");
  const find = h("input", "dnb-experiment-filter");
  find.type = "search";
  find.placeholder = "Filter rows";
  find.setAttribute("aria-label", "Filter rows by their prompt or answers");
  find.setAttribute("data-lm-suppress-shortcuts", "true");
  const stop = smallButton("dnb-experiment-stop", "■ Stop", "Stop every run and drop the queued ones");
  head.append(title, find, stop);
  const notice = h("div", "dnb-experiment-notice");
  notice.setAttribute("role", "status");
  const scroller = h("div", "dnb-experiment-scroll");
  const table = h("table", "dnb-experiment-grid");
  const thead = h("thead");
  const tbody = h("tbody");
  table.append(thead, tbody);
  scroller.append(table);
  const more = h("div", "dnb-experiment-more");
  const summary = h("table", "dnb-experiment-summary");
  summary.setAttribute("aria-label", "Summary per variant");
  const detail = detailView(() => manager);
  root.append(head, notice, scroller, more, summary, detail.el);
  el.replaceChildren(root);

  const send = (message: Record<string, unknown>): void => {
    if (gone || !sendIfLive(() => model.send(message))) setText(notice, GONE);
  };

  function headers(variants: string[]): void {
    const tr = h("tr");
    const names = ["Row", ...variants];
    names.forEach((name, n) => {
      const th = h("th", "dnb-experiment-sort", name);
      th.setAttribute("scope", "col");
      th.setAttribute("data-column", String(n));
      th.setAttribute("tabindex", "0");
      const on = sortBy === n || (sortBy === -1 && n === 0);
      th.setAttribute("aria-sort", !on ? "none" : descending ? "descending" : "ascending");
      th.title = n === 0 ? "Sort by row" : `Sort by ${name}'s ${list(model.get("scorers"))[0] ?? "score"}`;
      tr.append(th);
    });
    thead.replaceChildren(tr);
  }

  function shownRows(): MatrixRow[] {
    const variants = list(model.get("variants")).map(str);
    const scorers = list(model.get("scorers")).map(str);
    const needle = filter.trim().toLowerCase();
    let rows = list(model.get("rows")).filter(isRow);
    if (needle) {
      rows = rows.filter((row) =>
        [row.prompt, ...row.cells.map((c) => str(c.answer))].some((text) => str(text).toLowerCase().includes(needle)));
    }
    const key = (row: MatrixRow): number | string => {
      if (sortBy <= 0) return sortBy === 0 ? str(row.prompt).toLowerCase() : row.r;
      return cellValue(row.cells.find((c) => c.v === variants[sortBy - 1]), scorers);
    };
    const sign = descending ? -1 : 1;
    return [...rows].sort((a, b) => {
      const ka = key(a), kb = key(b);
      return (ka < kb ? -1 : ka > kb ? 1 : a.r - b.r) * sign;
    });
  }

  function onRows(): void {
    const variants = list(model.get("variants")).map(str);
    const scorers = list(model.get("scorers")).map(str);
    const selected = model.get("selected");
    headers(variants);
    const body: HTMLTableRowElement[] = [];
    for (const row of shownRows()) {
      const tr = h("tr", "dnb-experiment-row");
      const first = h("td", "dnb-experiment-prompt");
      first.append(h("b", undefined, String(row.r)), " ", row.prompt);
      first.title = str(row.prompt);
      tr.append(first);
      for (const variant of variants) {
        const cell = row.cells.find((c) => c.v === variant);
        const td = h("td", "dnb-experiment-cell");
        td.setAttribute("data-row", String(row.r));
        td.setAttribute("data-variant", variant);
        td.setAttribute("tabindex", "0");
        td.title = "Open this run's view below the matrix";
        setAttr(td, "data-status", cell ? str(cell.kind) : "queued");
        const on = isObj(selected) && selected.row === row.r && selected.variant === variant;
        td.classList.toggle("dnb-experiment-selected", on);
        if (cell) {
          const scores = scorers.map((name) => `${name} ${str(cell.scores?.[name]) || "–"}`).join(" · ");
          td.append(h("div", "dnb-experiment-scores", scores), h("div", "dnb-experiment-status", str(cell.status)),
            h("div", "dnb-experiment-answer", str(cell.answer)));
        }
        tr.append(td);
      }
      body.push(tr);
    }
    tbody.replaceChildren(...body);
    const notes = list(model.get("more")).map(str);
    setText(more, notes.map((note) => `… ${note}`).join("\n"));
  }

  function onSummary(): void {
    const data = model.get("summary");
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
    summary.replaceChildren(...trs);
    summary.hidden = trs.length === 0;
  }

  function onHead(): void {
    setText(title, str(model.get("head")));
    stop.disabled = gone || !model.get("going");
  }
  function onNotice(): void {
    setText(notice, str(model.get("notice")));
  }
  function onDetail(): void {
    onRows();
    void detail.show(str(model.get("detail")));
  }

  function cellOf(target: EventTarget | null): { row: number; variant: string } | null {
    const node = target as Element | null;
    const td = node && node.closest ? node.closest(".dnb-experiment-cell") : null;
    if (!td || !tbody.contains(td)) return null;
    return { row: num(td.getAttribute("data-row")), variant: str(td.getAttribute("data-variant")) };
  }
  function open(cell: { row: number; variant: string }): void {
    const selected = model.get("selected");
    const same = isObj(selected) && selected.row === cell.row && selected.variant === cell.variant;
    send(same ? { type: "close" } : { type: "open", row: cell.row, variant: cell.variant });
  }
  function sortOn(target: EventTarget | null): boolean {
    const node = target as Element | null;
    const th = node && node.closest ? node.closest(".dnb-experiment-sort") : null;
    if (!th || !thead.contains(th)) return false;
    const column = num(th.getAttribute("data-column"));
    const current = sortBy === -1 ? 0 : sortBy;
    if (column === current && !(sortBy === -1 && column === 0)) descending = !descending;
    else { sortBy = column === 0 ? -1 : column; descending = column > 0; } // scores: best first
    onRows();
    return true;
  }
  function onClick(event: Event): void {
    if (sortOn(event.target)) return;
    const cell = cellOf(event.target);
    if (cell) open(cell);
  }
  function onKey(event: KeyboardEvent): void {
    if (event.key === "Escape") {
      if (str(model.get("detail"))) {
        event.preventDefault();
        event.stopPropagation();
        send({ type: "close" });
      }
      return;
    }
    if (event.key !== "Enter" && event.key !== " ") return;
    if (event.target === find) return;
    event.preventDefault();
    event.stopPropagation();
    if (sortOn(event.target)) return;
    const cell = cellOf(event.target);
    if (cell) open(cell);
  }
  function onFilter(): void {
    filter = find.value;
    onRows();
  }
  function onStop(): void {
    stop.disabled = true;
    send({ type: "stop" });
  }

  const handlers: Record<string, (...args: any[]) => void> = {
    "change:head": onHead,
    "change:going": onHead,
    "change:rows": onRows,
    "change:variants": onRows,
    "change:scorers": onRows,
    "change:more": onRows,
    "change:summary": onSummary,
    "change:detail": onDetail,
    "change:selected": onDetail,
    "change:notice": onNotice,
  };
  onHead();
  onRows();
  onSummary();
  onNotice();
  void detail.show(str(model.get("detail")));
  for (const [name, handler] of Object.entries(handlers)) model.on(name, handler);
  root.addEventListener("click", onClick);
  root.addEventListener("keydown", onKey);
  find.addEventListener("input", onFilter);
  stop.addEventListener("click", onStop);
  const unwatch = watchKernel(model, () => {
    gone = true;
    stop.disabled = true;
    setText(notice, GONE);
  });
  send({ type: "hello" });

  return () => {
    for (const [name, handler] of Object.entries(handlers)) model.off(name, handler);
    root.removeEventListener("click", onClick);
    root.removeEventListener("keydown", onKey);
    find.removeEventListener("input", onFilter);
    stop.removeEventListener("click", onStop);
    detail.dispose();
    unwatch();
  };
}

export default { render };
