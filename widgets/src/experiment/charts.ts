// The summary as a bar chart per scorer, under the experiment matrix: a bar per variant for its
// mean, a whisker for its 95 % interval, each value written beside it; a scorer with nothing to
// draw shows why instead. The kernel sends the positions (deepnb/views/experiment/charts.py, the
// same description the static snapshot draws), so the live and the saved chart agree.
//
// Security: every string goes into the DOM as text (lib/dom.ts); positions are numbers, clamped.

import { h } from "../lib/dom";
import { isObj, list, str } from "../lib/text";

/** A bar's `[left, width]` in percent of its track, or null when there is nothing to draw. */
type Span = [number, number] | null;

const percent = (value: unknown): number => {
  const n = typeof value === "number" && Number.isFinite(value) ? value : 0;
  return Math.min(100, Math.max(0, n));
};

/** `value` as a span within the track (anything else: none). */
export function span(value: unknown): Span {
  if (!Array.isArray(value) || value.length !== 2) return null;
  const left = percent(value[0]);
  return [left, Math.min(percent(value[1]), 100 - left)];
}

/** An element placed over `at` of its track. */
function shape(cls: string, at: Span): HTMLElement | null {
  if (!at) return null;
  const el = h("div", cls);
  el.style.left = `${at[0]}%`;
  el.style.width = `${at[1]}%`;
  return el;
}

/** A variant's line: its label, its track with the bar and the whisker, its values. */
function barLine(bar: unknown): HTMLElement {
  const data = isObj(bar) ? bar : {};
  const line = h("div", "dnb-experiment-chart-bar");
  const label = h("span", "dnb-experiment-chart-label", str(data.v));
  label.title = str(data.v);
  const track = h("div", "dnb-experiment-chart-track");
  for (const drawn of [shape("dnb-experiment-chart-fill", span(data.bar)),
    shape("dnb-experiment-chart-whisker", span(data.whisker))]) {
    if (drawn) track.append(drawn);
  }
  line.append(label, track, h("span", "dnb-experiment-chart-value", str(data.value)));
  return line;
}

/** One scorer's chart: its title, then its bars or the note saying why there are none. */
function chart(data: unknown): HTMLElement {
  const given = isObj(data) ? data : {};
  const el = h("div", "dnb-experiment-chart");
  el.setAttribute("role", "figure");
  el.setAttribute("aria-label", `${str(given.scorer)} by variant`);
  el.setAttribute("data-scorer", str(given.scorer));
  el.append(h("div", "dnb-experiment-chart-title", str(given.title)));
  const note = str(given.note);
  if (note) el.append(h("div", "dnb-experiment-chart-note", note));
  else el.append(...list(given.bars).map(barLine));
  return el;
}

/** The charts, hidden while there are none. */
export function chartsView(): { el: HTMLElement; show(data: unknown): void } {
  const el = h("div", "dnb-experiment-charts");
  return {
    el,
    show(data) {
      const charts = list(data).map(chart);
      el.replaceChildren(...charts);
      el.hidden = charts.length === 0;
    },
  };
}
