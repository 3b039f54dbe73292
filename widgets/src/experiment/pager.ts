// The experiment matrix's pager: which rows it shows among those that match its filters ("Rows
// 101–200 of 10,000") and Previous / Next, which ask the kernel for the page before or after. The
// matrix holds one page of rows at a time; the kernel picks it from every row of the experiment
// (the `window` trait and the `page` message: deepnb/views/experiment/experiment_live.py).
//
// Security: every string goes into the DOM as text (lib/dom.ts); nothing here sets HTML.

import { h, setText, show, smallButton } from "../lib/dom";
import { fmtInt, isObj, num } from "../lib/text";

/** The page shown: where it starts among the matching rows, how many it shows, of how many, and
 * how many rows a page holds at most. */
export interface RowWindow { offset: number; shown: number; total: number; page: number }

export const NO_WINDOW: RowWindow = { offset: 0, shown: 0, total: 0, page: 0 };

/** The `window` trait read as a RowWindow (whole numbers of 0 or more; NO_WINDOW for anything else). */
export function windowOf(value: unknown): RowWindow {
  if (!isObj(value)) return NO_WINDOW;
  const whole = (field: unknown): number => Math.max(0, Math.floor(num(field)));
  return { offset: whole(value.offset), shown: whole(value.shown), total: whole(value.total), page: whole(value.page) };
}

/** What the pager says of `w` ("" when every matching row is shown). */
export function pageLine(w: RowWindow): string {
  if (w.offset === 0 && w.shown >= w.total) return "";
  if (!w.shown) return `No rows here of ${fmtInt(w.total)}`;
  return `Rows ${fmtInt(w.offset + 1)}–${fmtInt(w.offset + w.shown)} of ${fmtInt(w.total)}`;
}

/** The first row of the page before `w` (null at the first page). */
export function previousOffset(w: RowWindow): number | null {
  return w.offset > 0 ? Math.max(0, w.offset - Math.max(1, w.page || w.shown)) : null;
}

/** The first row of the page after `w` (null at the last page). */
export function nextOffset(w: RowWindow): number | null {
  const after = w.offset + w.shown;
  return w.shown > 0 && after < w.total ? after : null;
}

export interface Pager {
  el: HTMLElement;
  /** Shows the `window` trait; the buttons are off where there is no page to go to, or no kernel. */
  show(window: unknown, gone: boolean): void;
}

/** The pager; `go(offset)` asks for the page that starts at `offset`. */
export function pager(go: (offset: number) => void): Pager {
  const el = h("div", "dnb-experiment-pager");
  el.setAttribute("role", "group");
  el.setAttribute("aria-label", "Pages of rows");
  const said = h("span", "dnb-experiment-page");
  said.setAttribute("aria-live", "polite");
  const previous = smallButton("dnb-btn dnb-experiment-previous", "◀ Previous", "The page of rows before");
  const next = smallButton("dnb-btn dnb-experiment-next", "Next ▶", "The page of rows after");
  el.append(previous, said, next);
  let shown = NO_WINDOW;
  previous.addEventListener("click", () => {
    const offset = previousOffset(shown);
    if (offset !== null) go(offset);
  });
  next.addEventListener("click", () => {
    const offset = nextOffset(shown);
    if (offset !== null) go(offset);
  });
  show(el, false);
  return {
    el,
    show(window, gone) {
      shown = windowOf(window);
      const line = pageLine(shown);
      setText(said, line);
      show(el, Boolean(line));
      previous.disabled = gone || previousOffset(shown) === null;
      next.disabled = gone || nextOffset(shown) === null;
    },
  };
}
