// The box under a run: once the run has ended (done, failed or stopped) it sends a follow-up on the
// same thread, which the view then streams below the earlier turns; while the run runs or waits
// for approval it steers it (the message reaches the agent's next model call). Enter sends,
// Shift+Enter starts a new line. The text stays in the box until the kernel says it went through;
// a refusal is one line under the box. Everything is text: nothing here sets HTML.

import { h, ownKeys, setText, show, smallButton } from "../lib/dom";
import { asksKernel } from "./kernel_gate";
import { isObj, str } from "../lib/text";
import type { ComposedMessage } from "../types";
import type { RunModel } from "./live_model";

export interface ComposeView {
  el: HTMLElement;
  render(): void;
  /** Takes the kernel's `composed` reply; returns whether it was one. */
  receive(msg: unknown): boolean;
  dispose(): void;
}

/** Whether a run of this status takes a steering message (else a follow-up). */
export const steers = (status: unknown): boolean => status === "running" || status === "interrupted";

const PLACEHOLDER = {
  follow_up: "Follow up on this thread… (Enter sends, Shift+Enter: new line)",
  steer: "Steer the agent: its next model call reads this… (Enter sends)",
};

const MID_CELL = "This kernel reads the box once the cell has ended (a --bg cell ends at once).";

export function composeView(model: RunModel, live: () => boolean = () => true): ComposeView {
  const el = h("div", "dnb-compose");
  el.setAttribute("role", "group");
  const text = asksKernel(ownKeys(h("textarea", "dnb-compose-text")));
  text.rows = 2;
  const button = asksKernel(smallButton("dnb-compose-send", "Send"));
  const said = h("div", "dnb-compose-said");
  said.setAttribute("aria-live", "polite");
  const row = h("div", "dnb-compose-row");
  row.append(text, button);
  el.append(row, said);
  let waiting = false; // a message is on its way to the kernel

  const kind = (): "follow_up" | "steer" => (steers(model.get("status")) ? "steer" : "follow_up");

  function say(line: string, error = false): void {
    setText(said, line);
    said.classList.toggle("dnb-error", error);
  }

  function render(): void {
    const now = kind();
    const midCell = now === "steer" && model.get("live_controls") === false; // the kernel is in the cell
    setText(button, now === "steer" ? "Steer" : "Send");
    button.title = now === "steer" ? "Give the running agent this message" : "Send a follow-up on this thread";
    text.placeholder = PLACEHOLDER[now];
    text.setAttribute("aria-label", now === "steer" ? "Message to steer the running agent" : "Follow-up prompt");
    el.setAttribute("aria-label", now === "steer" ? "Steer the run" : "Continue the conversation");
    button.disabled = waiting;
    if (midCell && !said.textContent) say(MID_CELL);
    else if (!midCell && said.textContent === MID_CELL) say("");
    show(el, live());
  }

  function send(): void {
    const value = text.value;
    if (waiting || button.disabled) return;
    if (!value.trim()) return say(`Type the ${kind() === "steer" ? "message" : "follow-up"} first.`, true);
    waiting = true;
    say(kind() === "steer" ? "Sending it to the agent…" : "Starting the follow-up…");
    model.send(kind() === "steer" ? { type: "steer", message: value } : { type: "follow_up", prompt: value });
    render();
  }

  function receive(msg: unknown): boolean {
    if (!isObj(msg) || msg.type !== "composed") return false;
    const reply = msg as unknown as ComposedMessage;
    waiting = false;
    const error = str(reply.error);
    if (error) say(error, true);
    else {
      text.value = "";
      say(reply.kind === "steer" ? "Given: the agent's next model call reads it." : "");
    }
    render();
    return true;
  }

  function onKey(event: KeyboardEvent): void {
    if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
    event.preventDefault();
    send();
  }

  button.addEventListener("click", send);
  text.addEventListener("keydown", onKey);
  return {
    el,
    render,
    receive,
    dispose() {
      button.removeEventListener("click", send);
      text.removeEventListener("keydown", onKey);
    },
  };
}
