// A card per raw LangGraph interrupt (an `interrupt(value)` that is not an approval): the value
// shown readably (a string as text, an object as fields with nested values as JSON, anything else
// as JSON), a reply box with a JSON toggle, and Send. Builders and the reply's parsing only:
// questions.ts patches and wires the cards. Every string goes in as text.

import { h } from "../lib/dom";
import { asksKernel } from "./kernel_gate";
import { isObj, str } from "../lib/text";
import type { Question } from "../types";
import { agentName } from "./record";

export interface QuestionCard {
  iid: string;
  el: HTMLElement;
  /** What the card was built from; a card whose signature changes is built again. */
  sig: string;
  reply: HTMLTextAreaElement;
  json: HTMLInputElement;
  send: HTMLButtonElement;
  sendingEl: HTMLElement;
  errorEl: HTMLElement;
  answerEl: HTMLElement;
}

export interface Reply { value?: unknown; error?: string }

/** What the reply box sends: its text as it is, or, with `asJson`, the JSON value it holds
 * (an object, a list, a number, true/false, null or a quoted string). */
export function parseReply(text: string, asJson: boolean): Reply {
  if (!asJson) {
    return text.trim() ? { value: text } : { error: "Write an answer (or tick JSON to send a value such as \"\")." };
  }
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    return { error: `Not valid JSON (${(err as Error).message}); nothing was sent.` };
  }
}

/** Whether a reply to this value is likely JSON: a form (an object or a list) expects data. */
export function expectsJson(value: unknown): boolean {
  return Array.isArray(value) || isObj(value);
}

const asJsonText = (value: unknown): string => JSON.stringify(value, null, 2) ?? "null";

/** The interrupt's value: a string as text, an object as fields, anything else as JSON. A value
 * too long to show whole (`value` null, `value_json` clipped) is shown as its JSON text. */
export function valueEl(request: Question): HTMLElement {
  const value = request.value;
  if (value === null || value === undefined) {
    return h("pre", "dnb-pre dnb-question-json", str(request.value_json) || "null");
  }
  if (typeof value === "string") return h("div", "dnb-question-text", value);
  if (isObj(value) && Object.keys(value).length) {
    const dl = h("dl", "dnb-question-fields");
    for (const [key, item] of Object.entries(value)) {
      const dd = h("dd");
      dd.append(typeof item === "string" ? document.createTextNode(item) : h("code", "", asJsonText(item)));
      dl.append(h("dt", "", key), dd);
    }
    return dl;
  }
  return h("pre", "dnb-pre dnb-question-json", asJsonText(value));
}

export function signature(request: Question): string {
  return JSON.stringify([request.agent, request.value, request.value_json]);
}

export function makeQuestionCard(request: Question): QuestionCard {
  const iid = str(request.id);
  const el = h("div", "dnb-question");
  el.setAttribute("role", "group");
  el.setAttribute("aria-label", `Question from ${agentName(request.agent)}`);
  el.setAttribute("data-interrupt", iid);
  const head = h("div", "dnb-question-head");
  head.append(h("span", "dnb-question-title", "Waiting for your answer"),
    h("span", "dnb-approval-agent", agentName(request.agent)));
  const reply = h("textarea", "dnb-reply");
  reply.rows = 2;
  reply.setAttribute("data-field", "reply");
  reply.setAttribute("aria-label", "Your answer");
  const json = h("input", "dnb-reply-json");
  json.type = "checkbox";
  json.checked = expectsJson(request.value);
  const toggle = h("label", "dnb-reply-toggle");
  toggle.append(json, document.createTextNode(" JSON"));
  toggle.title = "Send the reply as a JSON value (an object, a number, true/false…) instead of text";
  const send = asksKernel(h("button", "dnb-reply-send", "Send"));
  send.type = "button";
  send.setAttribute("data-act", "answer");
  const sendingEl = h("span", "dnb-approval-sending", "Sending…");
  const row = h("div", "dnb-reply-row");
  row.append(toggle, send, sendingEl);
  const errorEl = h("div", "dnb-card-error");
  const answerEl = h("div", "dnb-approval-decision");
  sendingEl.hidden = errorEl.hidden = answerEl.hidden = true;
  el.append(head, valueEl(request), reply, row, errorEl, answerEl);
  return { iid, el, sig: signature(request), reply, json, send, sendingEl, errorEl, answerEl };
}
