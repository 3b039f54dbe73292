// Sending the cards' decisions: each once (a card in flight sends nothing more until the kernel
// answers or refuses), after forgetting the refusals it could get again. What a card's buttons
// do: approve, approve always, open or close a form, send it, or say why it cannot be sent.

import { isObj, list, str } from "../lib/text";
import type { DecisionSent, RunOutgoing } from "../types";
import { type Card, readEditArgs } from "./approval_card";
import { closeForm, openForm } from "./approval_state";
import { errorsOf, forgetRefusals } from "./card_errors";
import type { Read, RunModel } from "./live_model";
import type { RunMemory } from "./memory";

export interface DecisionSender {
  /** Sends `decision` for one card. */
  decide(card: Card, decision: DecisionSent): void;
  /** Approves the card's tool for the rest of the thread. */
  always(card: Card): void;
  /** Approves every undecided action of the interrupt `iid` that allows it. */
  approveAll(iid: string): void;
  /** Shows why the card sent nothing. */
  refuse(card: Card, why: string): void;
}

/** `cards` are the view's cards by key; `rerender()` shows them again once something went. */
export function decisionSender(
  model: RunModel, st: RunMemory, read: Read, cards: Map<string, Card>, rerender: () => void,
): DecisionSender {
  // Sends `message` for the cards `keys`, whose refusal would land on `errorKey`.
  function dispatch(keys: string[], errorKey: string, message: RunOutgoing): void {
    if (keys.length === 0 || keys.some((key) => st.sending.has(key))) return; // sent already
    for (const key of keys) {
      st.sending.set(key, errorKey);
      st.local.delete(key);
    }
    forgetRefusals(model, errorsOf(read), [...keys, errorKey]);
    model.send(message);
    rerender();
  }

  return {
    decide(card, decision) {
      dispatch([card.key], card.key, { type: "decide", interrupt_id: card.iid, index: card.index, decision });
    },
    always(card) {
      dispatch([card.key], card.key,
        { type: "always", interrupt_id: card.iid, index: card.index, tool: str(card.action.name) });
    },
    approveAll(iid) {
      const keys = [...cards.values()]
        .filter((card) => card.iid === iid && !isObj(card.action.decision) && !st.sending.has(card.key) &&
          list(card.action.allowed).includes("approve"))
        .map((card) => card.key);
      dispatch(keys, `${iid}:0`, { type: "approve_all", interrupt_id: iid });
    },
    refuse(card, why) {
      st.local.set(card.key, why);
      rerender();
    },
  };
}

/** Sends the card's open form (`act`: "edit-send", "reject-send" or "respond-send"). */
function sendForm(send: DecisionSender, card: Card, act: string): void {
  const form = card.form!;
  if (act === "edit-send") {
    const { args, error } = readEditArgs(form);
    if (error) send.refuse(card, error);
    else send.decide(card, { type: "edit", args: args! });
    return;
  }
  const message = str(form.querySelector("textarea")?.value);
  if (act === "reject-send") send.decide(card, { type: "reject", message });
  else if (message.trim()) send.decide(card, { type: "respond", message });
  else send.refuse(card, "Write a message: it is what the agent gets instead of the tool's result.");
}

/** What a card's button `act` does to the card. */
export function cardActs(st: RunMemory, send: DecisionSender, rerender: () => void): (card: Card, act: string) => void {
  return (card, act) => {
    if (act === "approve") send.decide(card, { type: "approve" });
    else if (act === "always") send.always(card);
    else if (act === "cancel") {
      closeForm(st, card);
      st.local.delete(card.key);
      rerender();
    } else if (act.endsWith("-send")) sendForm(send, card, act);
    else if (card.mode === act) closeForm(st, card);
    else openForm(st, card, act, true);
  };
}
