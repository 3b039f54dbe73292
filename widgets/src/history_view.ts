// deepnb history: a thread's steps as rows (the step, what it did, when it was saved), each with a
// State button that opens the step state panel below them, as the run view's timeline does: the
// state as that step left it and what it changed against the step before, with a slider across
// the thread's steps. The panel here only reads; the line under it says how to fork at the step
// (anywidget ESM module).
//
// Security: every string goes into the DOM as text (lib/dom.ts); nothing here sets HTML.
//
// Protocol (deepnb/views/history_live.py): the traits `agent`, `thread_id`, `steps` ({step, did,
// saved, checkpoint}, the newest that fit) and `steps_total`; the panel sends `step_state`,
// `step_messages`, `step_file` and `latest_step`, and each reply comes back as a message.

import type { AnyModel } from "@anywidget/types";
import { h, setText, smallButton } from "./lib/dom";
import { sendIfLive, watchKernel } from "./lib/kernel";
import { isObj, list, num, str } from "./lib/text";
import { listen, listenToModel, undoAll } from "./lib/view_shell";
import { asksKernel, kernelGate } from "./run/kernel_gate";
import type { PanelMemory } from "./run/memory";
import { type StepPanel, stepPanel } from "./run/step_panel";
import type { RunOutgoing } from "./types";

export interface HistoryTraits {
  agent: string;
  thread_id: string;
  steps: unknown[];
  steps_total: number;
}

export interface StepRow {
  step: number;
  did: string;
  saved: string;
}

/** The rows the `steps` trait holds, the malformed left out. */
export function stepRows(steps: unknown): StepRow[] {
  return list(steps).filter(isObj).map((row) => ({ step: num(row.step), did: str(row.did), saved: str(row.saved) }));
}

/** The head line: the thread, its agent, and how many of its steps the rows show. */
export function headLine(agent: string, thread: string, shown: number, total: number): string {
  const steps = `${total} step${total === 1 ? "" : "s"}`;
  const left = total > shown ? ` (the latest ${shown} here; print the history for every one)` : "";
  return `History of thread ${thread} · agent ${agent} · ${steps}${left}`;
}

/** The line under an open step: how to fork the thread there. */
export const forkLine = (thread: string, step: number): string =>
  `Fork at this step: %deepagent fork ${thread} --at ${step} (add --update VAR to change the state first), ` +
  "or use Run from here on the panel of the run that wrote it.";

/** A step's row: its number, what it did, when it was saved, and its State button (marked selected
 * when it is the `open` step). */
export function stepRow(row: StepRow, open: number): HTMLTableRowElement {
  const tr = h("tr", "dnb-history-row");
  tr.setAttribute("data-step", String(row.step));
  tr.setAttribute("aria-selected", String(row.step === open));
  const state = asksKernel(smallButton("dnb-btn dnb-history-state", "State", `The state step ${row.step} left, and what it changed`));
  state.setAttribute("data-step", String(row.step));
  const cell = h("td");
  cell.append(state);
  tr.append(h("td", "dnb-history-step", String(row.step)), h("td", "dnb-history-did", row.did),
    h("td", "dnb-history-saved", row.saved), cell);
  return tr;
}

/** The table of steps, its columns named, in its scroller; `body` takes the rows. */
export function stepsTable(): { scroller: HTMLElement; body: HTMLElement } {
  const table = h("table", "dnb-history-table");
  const headRow = h("tr");
  for (const name of ["step", "what it did", "saved (UTC)", ""]) headRow.append(h("th", "", name));
  const thead = h("thead");
  thead.append(headRow);
  const body = h("tbody");
  table.append(thead, body);
  const scroller = h("div", "dnb-history-scroll");
  scroller.append(table);
  return { scroller, body };
}

/** The step state panel, read-only (no Run from here), hidden until a step opens. */
export function readOnlyPanel(model: AnyModel<HistoryTraits>): StepPanel {
  const mem: PanelMemory = { tab: "state", scene: null, step: null, edits: new Map(), said: "" };
  const panel = stepPanel({ send: (message: RunOutgoing) => void sendIfLive(() => model.send(message)) }, mem, {
    runFrom: false,
    hint: "Click a step's State to see the state it left and what it changed.",
  });
  panel.el.hidden = true;
  return panel;
}

export interface HistoryRows {
  /** Draws the head line and the rows from the traits. */
  draw(): void;
  /** Marks `step`'s row as the open one, and says how to fork there. */
  select(step: number): void;
  /** The open step (-1: none). */
  open(): number;
}

/** The head line, the rows in `body` and the fork line under the panel, following the open step. */
export function historyRows(
  model: AnyModel<HistoryTraits>, head: HTMLElement, body: HTMLElement, fork: HTMLElement,
): HistoryRows {
  let open = -1;
  return {
    draw() {
      const rows = stepRows(model.get("steps"));
      setText(head, headLine(str(model.get("agent")), str(model.get("thread_id")), rows.length, num(model.get("steps_total"))));
      body.replaceChildren(...rows.map((row) => stepRow(row, open)));
    },
    select(step) {
      open = step;
      for (const tr of body.querySelectorAll("tr")) tr.setAttribute("aria-selected", String(tr.getAttribute("data-step") === String(step)));
      setText(fork, forkLine(str(model.get("thread_id")), step));
      fork.hidden = false;
    },
    open: () => open,
  };
}

function render({ model, el }: { model: AnyModel<HistoryTraits>; el: HTMLElement }): () => void {
  const root = h("div", "deepnb deepnb-history");
  root.setAttribute("role", "region");
  root.setAttribute("aria-label", "Thread history");
  const head = h("div", "dnb-history-head");
  const { scroller, body } = stepsTable();
  const panel = readOnlyPanel(model);
  const fork = h("div", "dnb-history-fork dnb-muted");
  fork.hidden = true;
  root.append(head, scroller, panel.el, fork);
  el.append(root);
  const gate = kernelGate(root, el);
  const rows = historyRows(model, head, body, fork);

  const onClick = (event: Event): void => {
    const button = (event.target as Element | null)?.closest?.(".dnb-history-state");
    if (!button || !body.contains(button)) return;
    const step = num(button.getAttribute("data-step"));
    rows.select(step);
    panel.el.hidden = false;
    panel.open(step);
  };
  const onMessage = (message: unknown): void => {
    if (!panel.receive(message)) return;
    if (isObj(message) && message.type === "step_state" && !message.error && num(message.step) !== rows.open()) {
      rows.select(num(message.step)); // the slider moved: its row is the open one now
    }
  };
  rows.draw();
  return undoAll([
    listen(body, "click", onClick),
    listenToModel(model, { "msg:custom": onMessage, "change:steps": rows.draw, "change:steps_total": rows.draw }),
    watchKernel(model, () => gate.markGone()),
    () => gate.dispose(),
    () => root.remove(),
  ]);
}

export default { render };
