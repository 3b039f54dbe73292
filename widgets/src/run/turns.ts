// The turns above the one a run view streams: once its box sent a follow-up, each earlier turn
// stays as a compact block (its prompt, its answer, how it ended), and the line under the view
// says how to send a follow-up as a cell. A turn's `answer_html` was rendered and escaped in
// Python (deepnb/views/run/turns.py); every other field is text.

import { h, setText, show } from "../lib/dom";
import { armImages } from "../lib/images";
import { isObj, list, str } from "../lib/text";
import type { Turn } from "../types";
import type { RunModel } from "./live_model";

export interface TurnsView {
  /** The earlier turns, above the transcript. */
  el: HTMLElement;
  /** The line under the view: a follow-up as a cell. */
  cell: HTMLElement;
  render(): void;
}

function turnEl(turn: Turn, n: number): HTMLElement {
  const el = h("div", "dnb-turn");
  el.setAttribute("data-run", str(turn.run_id));
  el.setAttribute("data-status", str(turn.status));
  el.append(h("div", "dnb-turn-label", n ? `Follow-up ${n}` : "First turn"), h("div", "dnb-turn-prompt", `› ${str(turn.prompt)}`));
  if (str(turn.answer_html)) {
    const answer = h("div", "dnb-md dnb-turn-answer");
    answer.innerHTML = str(turn.answer_html); // escaped in Python (deepnb/views/run/turns.py)
    armImages(answer);
    el.append(answer);
  }
  if (str(turn.error)) el.append(h("div", "dnb-error dnb-turn-error", `Error: ${str(turn.error)}`));
  el.append(h("div", "dnb-muted dnb-turn-head", str(turn.head)));
  return el;
}

export function turnsView(model: RunModel): TurnsView {
  const el = h("div", "dnb-turns");
  el.setAttribute("role", "list");
  el.setAttribute("aria-label", "Earlier turns of this conversation");
  const cell = h("div", "dnb-muted dnb-follow-up-cell");
  let shown = ""; // the turns drawn, as JSON: redrawn only when they change

  function render(): void {
    const turns = list(model.get("turns")).filter(isObj) as unknown as Turn[];
    const now = JSON.stringify(turns);
    if (now !== shown) {
      shown = now;
      const blocks = turns.map(turnEl);
      if (turns.length) blocks.push(h("div", "dnb-turn-label dnb-turn-now", `Follow-up ${turns.length}`));
      el.replaceChildren(...blocks);
    }
    show(el, turns.length > 0);
    const line = str(model.get("follow_up_cell"));
    if (line) cell.replaceChildren("Each follow-up as a cell: ", h("code", "", line), ", its prompt as the cell's body.");
    else setText(cell, "");
    show(cell, line !== "");
  }

  return { el, cell, render };
}
