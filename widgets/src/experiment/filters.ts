// The experiment matrix's filters and its score marks: failures only, one scorer, one variant,
// one status and text in the row's prompt or answers (the view applies them to the rows it holds
// at once, and sends them to the kernel, which picks the matching rows among all the experiment's:
// deepnb/views/experiment/row_filter.py); and what a score says — pass, fail or error — written
// as a mark and a word beside its colour, so no one needs the colour to read it.
//
// Security: every string goes into the DOM as text (lib/dom.ts); nothing here sets HTML.

import { h, ownKeys } from "../lib/dom";
import { isObj, list, str } from "../lib/text";
import { filterBox } from "../lib/view_shell";

/** What the matrix shows ("" : every scorer, variant or status). */
export interface RowFilter { failures: boolean; scorer: string; variant: string; status: string; text: string }

export const NO_FILTER: RowFilter = { failures: false, scorer: "", variant: "", status: "", text: "" };

/** A score's verdict: pass at the threshold or above, fail below, error where its scorer failed. */
export type Verdict = "pass" | "fail" | "error" | "";

/** The mark written before a score, so the verdict reads without its colour. */
export const MARK: Record<Verdict, string> = { pass: "✓", fail: "✗", error: "!", "": "·" };

/** Statuses that are a failure whatever the scores. */
const FAILED = new Set(["error", "cancelled", "interrupted", "unsaved"]);

/** A score's verdict: `value` a number, "error", a text that reads as a number, or nothing. */
export function verdictOf(value: unknown, threshold: number): Verdict {
  if (value === "error") return "error";
  if (value === null || value === undefined || value === "" || value === "–") return "";
  const n = typeof value === "number" ? value : Number.parseFloat(str(value));
  if (!Number.isFinite(n)) return "";
  return n >= threshold ? "pass" : "fail";
}

/** A score's colour on a scale from red (0) through amber to green (1), faint enough for either
 * theme's text to read on it; pass / fail scores (1 or 0) take the scale's ends. */
export function scoreColour(value: unknown): string {
  const n = typeof value === "number" ? value : Number.parseFloat(str(value));
  if (!Number.isFinite(n)) return "";
  const share = Math.max(0, Math.min(1, n));
  return `hsl(${Math.round(share * 120)} 70% 45% / 0.28)`;
}

/** A cell as the filters read it: its kind (status), scores by name and, with several epochs, each
 * epoch's status and scores (in the `scorers` trait's order). */
export interface FilteredCell {
  v: string; kind: string; scores: Record<string, string>; answer: string;
  epochs?: { s: string; sc: (number | string | null)[] }[];
}

/** The runs of a cell as (status, scores by name): each epoch's, or the cell's own with one. */
function runsOf(cell: FilteredCell, scorers: string[]): [string, Record<string, unknown>][] {
  const epochs = list(cell.epochs).filter(isObj);
  if (epochs.length) {
    return epochs.map((e) => [str(e.s), Object.fromEntries(scorers.map((name, n) => [name, list(e.sc)[n]]))]);
  }
  return [[str(cell.kind), isObj(cell.scores) ? cell.scores : {}]];
}

/** Whether a run of `cell` failed: its status, or a score of `judged` below `threshold` or in error. */
export function cellFails(cell: FilteredCell, scorers: string[], judged: string[], threshold: number): boolean {
  return runsOf(cell, scorers).some(([status, scores]) =>
    FAILED.has(status) || judged.some((name) => ["fail", "error"].includes(verdictOf(scores[name], threshold))));
}

/** The statuses of `cell`'s runs. */
export const cellStatuses = (cell: FilteredCell, scorers: string[]): string[] =>
  runsOf(cell, scorers).map(([status]) => status);

/** Whether a row is shown under `filter`: its cells of the filtered variant (all without one) have a
 * failure on the filtered scorer (all without one), a run of the status, and the text is in the
 * prompt or an answer. */
export function keepsRow(
  row: { prompt: string; cells: FilteredCell[] }, filter: RowFilter, scorers: string[], threshold: number,
): boolean {
  const cells = list(row.cells).filter((c) => !filter.variant || str(c.v) === filter.variant);
  const judged = filter.scorer ? [filter.scorer] : scorers;
  if (filter.failures && !cells.some((c) => cellFails(c, scorers, judged, threshold))) return false;
  if (filter.status && !cells.some((c) => cellStatuses(c, scorers).includes(filter.status))) return false;
  const needle = filter.text.trim().toLowerCase();
  if (!needle) return true;
  return [row.prompt, ...cells.map((c) => c.answer)].some((text) => str(text).toLowerCase().includes(needle));
}

export interface FilterBar {
  el: HTMLElement;
  /** The filter as the controls say it. */
  value(): RowFilter;
  /** The choices each list offers (the options kept where they still exist). */
  offer(scorers: string[], variants: string[], statuses: string[]): void;
}

const STATUSES = ["queued", "running", "waiting", "scoring", "retrying", "done", "error", "cancelled", "interrupted"];

/** An option of a select. */
function option(label: string, value: string): HTMLOptionElement {
  const node = h("option", undefined, label);
  node.value = value;
  return node;
}

/** A labelled select of "every …" then `names`. */
function choice(cls: string, label: string, every: string): HTMLSelectElement {
  const select = ownKeys(h("select", cls));
  select.setAttribute("aria-label", label);
  select.append(option(every, ""));
  return select;
}

function fill(select: HTMLSelectElement, names: string[]): void {
  const kept = select.value;
  const every = select.options[0];
  select.replaceChildren(every, ...names.map((name) => option(name, name)));
  select.value = names.includes(kept) ? kept : "";
}

/** The filter controls: Failures only, Scorer, Variant, Status and the text box. `changed` is
 * called with the new filter on every change. */
export function filterBar(changed: (filter: RowFilter) => void): FilterBar {
  const el = h("div", "dnb-experiment-filters");
  el.setAttribute("role", "group");
  el.setAttribute("aria-label", "Filters");
  const failures = ownKeys(h("input", "dnb-experiment-failures"));
  failures.type = "checkbox";
  const failuresLabel = h("label", "dnb-experiment-check");
  failuresLabel.append(failures, " Failures only");
  const scorer = choice("dnb-experiment-by-scorer", "Scorer", "every scorer");
  const variant = choice("dnb-experiment-by-variant", "Variant", "every variant");
  const status = choice("dnb-experiment-by-status", "Status", "any status");
  fill(status, STATUSES);
  const find = filterBox("dnb-experiment-filter", "Filter rows by their prompt or answers");
  el.append(failuresLabel, scorer, variant, status, find);
  const value = (): RowFilter =>
    ({ failures: failures.checked, scorer: scorer.value, variant: variant.value, status: status.value, text: find.value });
  for (const control of [failures, scorer, variant, status]) control.addEventListener("change", () => changed(value()));
  find.addEventListener("input", () => changed(value()));
  return {
    el,
    value,
    offer(scorers, variants, statuses) {
      fill(scorer, scorers);
      fill(variant, variants);
      fill(status, [...new Set([...STATUSES, ...statuses])]);
    },
  };
}
