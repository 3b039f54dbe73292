// The decision log under the approval cards: one line per decision made, folded; the run's memory
// keeps it open over to a re-displayed view.

import { h, setText, show } from "../lib/dom";
import { isObj, list } from "../lib/text";
import type { DecisionEntry } from "../types";
import { logEntry } from "./approval_card";
import type { Read } from "./live_model";
import type { RunMemory } from "./memory";

export interface DecisionLog {
  el: HTMLDetailsElement;
  render(): void;
  dispose(): void;
}

/** The log of the decisions `read("decisions")` lists. */
export function decisionLog(read: Read, st: RunMemory): DecisionLog {
  const el = h("details", "dnb-decisions");
  const summary = h("summary", "dnb-decisions-summary");
  const entries = h("ol", "dnb-decision-list");
  el.append(summary, entries);
  el.open = st.logOpen;
  const onToggle = (): void => { st.logOpen = el.open; };
  el.addEventListener("toggle", onToggle);

  function render(): void {
    const decisions = list(read("decisions")).filter(isObj) as DecisionEntry[];
    show(el, decisions.length > 0);
    setText(summary, `Decisions (${decisions.length})`);
    entries.replaceChildren(...decisions.map(logEntry));
  }

  return { el, render, dispose: () => el.removeEventListener("toggle", onToggle) };
}
