// The raw interrupts' cards of one view: one per pending `interrupt(value)`, patched in place by
// interrupt id so a reply being typed keeps its text while updates stream in; the run's memory
// keeps drafts over to a re-displayed view. A reply is sent once, as an `answer` message; the
// kernel checks it again (deepnb.engine.interrupts.check_answer_card) and a refusal comes back in
// `card_errors` under "interrupt id:answer".

import { h, keepOnly, placeAt, setAttr, setText, show } from "../lib/dom";
import { goneText } from "../lib/kernel";
import { isIn } from "../lib/statuses";
import { isObj, list, str } from "../lib/text";
import { ENDED, RUNNING } from "../schema";
import type { Question, RunTraits } from "../types";
import type { RunModel } from "./live_model";
import type { RunMemory } from "./memory";
import { makeQuestionCard, parseReply, type QuestionCard, signature } from "./question_card";

export interface QuestionsView {
  el: HTMLElement;
  render(): void;
  dispose(): void;
}

type Read = <K extends keyof RunTraits>(name: K) => RunTraits[K];

const errorKey = (iid: string): string => `${iid}:answer`;

interface Answers {
  /** Interrupt id → what was typed, and whether as JSON. */
  drafts: Map<string, { reply: string; json: boolean }>;
  /** Interrupt ids whose answer is on its way. */
  sending: Set<string>;
}

// Kept beside the run's memory (not in it: the approval cards prune what they don't know there).
const ANSWERS = new WeakMap<RunMemory, Answers>();

function answersOf(st: RunMemory): Answers {
  let found = ANSWERS.get(st);
  if (!found) ANSWERS.set(st, (found = { drafts: new Map(), sending: new Set() }));
  return found;
}

/** The cards are disabled, under `goneText`, once `gone()`: no kernel is behind them. */
export function questionsView(
  model: RunModel, st: RunMemory, read: Read = (name) => model.get(name), gone: () => boolean = () => false,
): QuestionsView {
  const cards = new Map<string, QuestionCard>();
  const memo = answersOf(st);
  const el = h("div", "dnb-questions");
  el.setAttribute("data-lm-suppress-shortcuts", "true"); // JupyterLab's shortcuts stay out
  const local = new Map<string, string>(); // interrupt id → an error found before sending

  const errorsNow = (): Record<string, string> => {
    const errors = read("card_errors");
    return isObj(errors) ? errors : {};
  };

  function patch(card: QuestionCard, request: Question, errors: Record<string, string>, ended: boolean): void {
    const answered = request.answer !== null && request.answer !== undefined;
    const key = errorKey(card.iid);
    if (answered) {
      memo.sending.delete(card.iid);
      memo.drafts.delete(card.iid);
      local.delete(card.iid);
    }
    const sending = memo.sending.has(card.iid);
    setAttr(card.el, "data-answered", answered ? "true" : "false");
    card.el.classList.toggle("dnb-sending", sending);
    const locked = answered || sending || ended;
    card.send.disabled = card.reply.disabled = card.json.disabled = locked;
    show(card.sendingEl, sending);
    const error = answered ? "" : gone() ? goneText(str(read("thread_id"))) : local.get(card.iid) || str(errors[key]);
    setText(card.errorEl, error);
    show(card.errorEl, error !== "");
    setText(card.answerEl, answered ? `↩ answered: ${str(request.answer)}` : "");
    show(card.answerEl, answered);
  }

  function render(): void {
    const status = str(read("status")) || RUNNING;
    const ended = isIn(ENDED, status) || gone();
    const errors = errorsNow();
    const requests = list(read("pending")).filter((p) => isObj(p) && p.kind === "question") as Question[];
    const ids = new Set(requests.map((request) => str(request.id)));
    keepOnly(cards, ids, (card) => card.el.remove());
    for (const iid of memo.sending) if (errors[errorKey(iid)] || !ids.has(iid)) memo.sending.delete(iid);
    for (const iid of memo.drafts.keys()) if (!ids.has(iid)) memo.drafts.delete(iid);
    let prev: HTMLElement | null = null;
    for (const request of requests) {
      const iid = str(request.id);
      let card = cards.get(iid);
      if (card && card.sig !== signature(request)) {
        card.el.remove();
        card = undefined;
      }
      if (!card) {
        cards.set(iid, (card = makeQuestionCard(request)));
        const draft = memo.drafts.get(iid);
        if (draft) {
          card.reply.value = draft.reply;
          card.json.checked = draft.json;
        }
      }
      patch(card, request, errors, ended);
      placeAt(el, card.el, prev);
      prev = card.el;
    }
    setAttr(el, "data-status", status);
    show(el, cards.size > 0);
  }

  function send(card: QuestionCard): void {
    const key = errorKey(card.iid);
    if (memo.sending.has(card.iid)) return; // sent already
    const reply = parseReply(card.reply.value, card.json.checked);
    if (reply.error !== undefined) {
      local.set(card.iid, reply.error);
      render();
      return;
    }
    local.delete(card.iid);
    memo.sending.add(card.iid);
    const errors = errorsNow();
    if (key in errors) { // forget the last refusal, so one worded the same way still arrives
      const next = { ...errors };
      delete next[key];
      model.set("card_errors", next);
      model.save_changes();
    }
    model.send({ type: "answer", interrupt_id: card.iid, value: reply.value });
    render();
  }

  const cardOf = (node: Element): QuestionCard | undefined =>
    cards.get(str(node.closest(".dnb-question")?.getAttribute("data-interrupt")));

  function onClick(event: MouseEvent): void {
    const btn = (event.target as Element | null)?.closest?.<HTMLButtonElement>("button[data-act='answer']");
    const card = btn && !btn.disabled ? cardOf(btn) : undefined;
    if (card) send(card);
  }

  // Keys typed in the reply stay there (JupyterLab would hold back Enter); Ctrl/Cmd+Enter sends.
  function onKeyDown(event: KeyboardEvent): void {
    const target = event.target as HTMLElement;
    if (target.tagName !== "TEXTAREA") return;
    event.stopPropagation();
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
    event.preventDefault();
    const card = cardOf(target);
    if (card && !card.send.disabled) send(card);
  }

  function onInput(event: Event): void {
    const card = cardOf(event.target as Element);
    if (!card) return;
    memo.drafts.set(card.iid, { reply: card.reply.value, json: card.json.checked });
  }

  const listeners: [string, (event: any) => void][] = [
    ["click", onClick], ["keydown", onKeyDown], ["input", onInput], ["change", onInput]];
  for (const [name, fn] of listeners) el.addEventListener(name, fn);
  render();

  function dispose(): void {
    for (const [name, fn] of listeners) el.removeEventListener(name, fn);
  }

  return { el, render, dispose };
}
