// The run's error under its transcript ("Error: …"), shown only when no error item of the main
// transcript already says it (the run's error also arrives as an error item).

import { h, setText, show } from "../lib/dom";
import { str } from "../lib/text";
import type { Read } from "./live_model";
import type { ItemRecord } from "./record";

export interface RunErrorView { el: HTMLElement; render(): void }

/** The line to show for `error`, or "" when none is due (no error, or an item says it). */
export function errorLine(error: string, records: Iterable<ItemRecord>): string {
  if (error === "") return "";
  for (const rec of records) if (rec.kind === "error" && rec.f.text === error) return "";
  return `Error: ${error}`;
}

/** `records()` gives the main transcript's items as drawn. */
export function runErrorView(model: { get: Read }, records: () => Iterable<ItemRecord>): RunErrorView {
  const el = h("div", "dnb-error dnb-run-error");

  function render(): void {
    const line = errorLine(str(model.get("error")), records());
    show(el, line !== "");
    setText(el, line);
  }

  return { el, render };
}
