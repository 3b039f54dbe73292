// The baseline comparison under the experiment's charts: for each variant against the baseline,
// wins, losses and ties per scorer with the paired test's p, then per scorer the rows where they
// differ on that scorer (a table each, never a sum over scorers), each with both runs' answers
// (with several epochs, those of the epochs that score apart); a click on an answer opens that
// run, as a matrix cell does (the kernel's comparisons come from
// deepnb/views/experiment/baseline.py, computed as runs end).
//
// Security: every string goes into the DOM as text (lib/dom.ts); nothing here sets HTML.

import { h, setAttr } from "../lib/dom";
import { isObj, list, num, str } from "../lib/text";
import { closestIn } from "../lib/view_shell";

/** A run a differing row points at: its dataset row and variant. */
export interface RunKey { row: number; variant: string }

/** A row of header cells, then a row of text cells per row of `rows`. */
function table(cls: string, label: string, columns: string[], rows: HTMLTableRowElement[]): HTMLTableElement {
  const el = h("table", cls);
  el.setAttribute("aria-label", label);
  const head = h("tr");
  for (const name of columns) head.append(h("th", undefined, name));
  el.append(h("thead"), h("tbody"));
  el.tHead!.append(head);
  el.tBodies[0].append(...rows);
  return el;
}

/** An answer of a differing row: a cell that opens its run (`epoch`: the epoch it is, with several). */
function runCell(row: number, variant: string, answer: unknown, epoch: unknown, open: boolean): HTMLTableCellElement {
  const said = str(answer) || "–";
  const td = h("td", "dnb-experiment-diff-run", typeof epoch === "number" ? `(epoch ${epoch}) ${said}` : said);
  if (typeof epoch === "number") setAttr(td, "data-run-epoch", epoch);
  setAttr(td, "data-run-row", row);
  setAttr(td, "data-run-variant", variant);
  td.setAttribute("tabindex", "0");
  td.title = `Open ${variant}'s run of row ${row} below the matrix`;
  td.classList.toggle("dnb-experiment-selected", open);
  return td;
}

/** One variant against the baseline. `isOpen` says whether a run is the one open. */
function comparison(data: unknown, isOpen: (row: number, variant: string) => boolean): HTMLElement {
  const given = isObj(data) ? data : {};
  const a = str(given.a), b = str(given.b);
  const el = h("section", "dnb-experiment-comparison");
  el.setAttribute("aria-label", `${a} against ${b}`);
  el.append(h("div", "dnb-experiment-comparison-title", `${a} against ${b}, per row`));
  const scorerRows = list(given.rows).map((row) => {
    const tr = h("tr");
    for (const text of list(row)) tr.append(h("td", undefined, str(text)));
    return tr;
  });
  el.append(table("dnb-experiment-compared", `${a} against ${b} per scorer`, list(given.columns).map(str), scorerRows));
  const differences = list(given.differences).filter(isObj);
  if (!differences.length) return el;
  const byScorer = new Map<string, Record<string, unknown>[]>();
  for (const d of differences) {
    const scorer = str(d.scorer);
    byScorer.set(scorer, [...(byScorer.get(scorer) ?? []), d]);
  }
  el.append(h("div", "dnb-experiment-comparison-title", "Rows where they differ most, per scorer"));
  for (const [scorer, rows] of byScorer) {
    const diffRows = rows.map((d) => {
      const r = num(d.r);
      const tr = h("tr", "dnb-experiment-diff");
      setAttr(tr, "data-scorer", scorer);
      const first = h("td", "dnb-experiment-prompt");
      first.append(h("b", undefined, String(r)), " ", str(d.prompt));
      first.title = str(d.prompt);
      tr.append(first, h("td", undefined, str(d.difference)),
        runCell(r, a, d.a, d.a_epoch, isOpen(r, a)), runCell(r, b, d.b, d.b_epoch, isOpen(r, b)));
      return tr;
    });
    el.append(table("dnb-experiment-differences", `Rows where they differ on ${scorer}`,
      ["Row", `${scorer}: a − b`, a, b], diffRows));
  }
  return el;
}

export interface ComparisonView {
  el: HTMLElement;
  /** Draws `data` (the `comparisons` trait), marking the open run with `isOpen`. */
  show(data: unknown, isOpen: (row: number, variant: string) => boolean): void;
  /** The run whose answer is at `target`, if any. */
  runOf(target: EventTarget | null): RunKey | null;
}

export function comparisonView(): ComparisonView {
  const el = h("div", "dnb-experiment-comparisons");
  return {
    el,
    show(data, isOpen) {
      const shown = list(data).map((one) => comparison(one, isOpen));
      el.replaceChildren(...shown);
      el.hidden = shown.length === 0;
    },
    runOf(target) {
      const td = closestIn(target, ".dnb-experiment-diff-run", el);
      if (!td) return null;
      return { row: num(td.getAttribute("data-run-row")), variant: str(td.getAttribute("data-run-variant")) };
    },
  };
}
