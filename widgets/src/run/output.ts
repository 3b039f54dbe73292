// A run's structured output (`run.output`): a small key/value table under the transcript, filled
// when the run ends. The static snapshot draws the same table (deepnb/views/run/output_table.py).

import { h, show } from "../lib/dom";
import { list, str } from "../lib/text";
import type { RunModel } from "./live_model";

export interface OutputView { el: HTMLElement; render(): void }

export function outputView(model: RunModel): OutputView {
  const el = h("div", "dnb-output");
  el.setAttribute("role", "region");
  el.setAttribute("aria-label", "Structured output");
  const table = h("table", "dnb-output-table");
  el.append(h("span", "dnb-final-label", "Output"), table);

  function render(): void {
    const rows = list(model.get("output")).map((row) => {
      const [key, value] = list(row);
      const tr = h("tr");
      const th = h("th", "", str(key));
      th.setAttribute("scope", "row");
      tr.append(th, h("td", "", str(value)));
      return tr;
    });
    table.replaceChildren(...rows);
    show(el, rows.length > 0);
  }

  return { el, render };
}
