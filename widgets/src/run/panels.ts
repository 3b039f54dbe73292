// The run view's tabs under the transcript: Graph (the agent's graph with the run's path) and
// Step state (one step's state, its diff, Edit and Run from here). Both stay closed until asked
// for, so a run nobody inspects costs the kernel nothing.

import { h, ownKeys, smallButton } from "../lib/dom";
import { str } from "../lib/text";
import { graphTab } from "./graph_tab";
import { asksKernel } from "./kernel_gate";
import type { RunModel } from "./live_model";
import type { PanelMemory } from "./memory";
import { FORKED, stepPanel } from "./step_panel";

export interface Panels {
  el: HTMLElement;
  /** Opens the Step state tab at `step`. */
  openStep(step: number): void;
  renderPath(): void;
  /** The view's thread changed (Run from here went on with a fork): its line shows there. */
  renderThread(): void;
  receive(msg: unknown): boolean;
}

type Tab = "graph" | "state";

/** `mem` keeps the open tab, the drawing and the step shown across the view's renders (its output
 * is displayed again when the run pauses or ends). */
export function panels(model: RunModel, mem: PanelMemory): Panels {
  const el = h("div", "dnb-panels");
  const bar = ownKeys(h("div", "dnb-tabs"));
  bar.setAttribute("role", "tablist");
  bar.setAttribute("aria-label", "Inspect the run");
  const graph = graphTab(model, mem);
  const state = stepPanel(model, mem);
  const tabs: Record<Tab, { button: HTMLButtonElement; panel: HTMLElement }> = {
    graph: { button: asksKernel(smallButton("dnb-tab dnb-tab-graph", "Graph", "The agent's graph, lit as the run goes")), panel: graph.el },
    state: { button: asksKernel(smallButton("dnb-tab dnb-tab-state", "Step state", "A step's state, what it changed, edit and run from there")), panel: state.el },
  };
  let shown: Tab | null = null;
  for (const [name, tab] of Object.entries(tabs) as [Tab, { button: HTMLButtonElement; panel: HTMLElement }][]) {
    tab.button.setAttribute("role", "tab");
    tab.button.setAttribute("aria-selected", "false");
    tab.button.id = `dnb-tab-${name}-${Math.random().toString(36).slice(2, 8)}`;
    tab.panel.setAttribute("role", "tabpanel");
    tab.panel.setAttribute("aria-labelledby", tab.button.id);
    tab.panel.hidden = true;
    tab.button.addEventListener("click", () => select(shown === name ? null : name));
    bar.append(tab.button);
  }
  el.append(bar, graph.el, state.el);

  function select(name: Tab | null, step?: number): void {
    shown = mem.tab = name;
    for (const [key, tab] of Object.entries(tabs) as [Tab, { button: HTMLButtonElement; panel: HTMLElement }][]) {
      tab.panel.hidden = key !== name;
      tab.button.setAttribute("aria-selected", String(key === name));
      tab.button.classList.toggle("dnb-tab-on", key === name);
    }
    if (name === "graph") graph.opened();
    if (name === "state") state.open(step); // without a step: the run's latest, unless one shows
  }

  function openStep(step: number): void {
    select("state", step);
  }

  if (mem.tab) select(mem.tab); // as the view was before it was displayed again

  function renderThread(): void {
    const said = FORKED.get(str(model.get("thread_id")));
    if (!said || mem.said === said) return;
    select("state");
    state.say(said);
  }
  renderThread();

  bar.addEventListener("keydown", (event) => { // the arrow keys move between the tabs
    if (event.key !== "ArrowRight" && event.key !== "ArrowLeft") return;
    const order: Tab[] = ["graph", "state"];
    const next = order[(order.indexOf(shown || "graph") + 1) % order.length];
    select(next);
    tabs[next].button.focus();
  });

  return {
    el,
    openStep,
    renderPath: graph.render,
    renderThread,
    receive(msg) {
      if (!graph.receive(msg) && !state.receive(msg)) return false;
      renderThread(); // Run from here answered: its tab stays open
      return true;
    },
  };
}
