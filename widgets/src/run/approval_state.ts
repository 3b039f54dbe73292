// One approval card brought up to date: its decision, its form (open while the run's memory holds
// a draft for it), its send in flight and why a send was refused.

import { setAttr, setText, show } from "../lib/dom";
import { isObj, str } from "../lib/text";
import type { Decision } from "../types";
import { type Card, decisionText, makeForm } from "./approval_card";
import type { RunMemory } from "./memory";

/** Opens the card's Edit, Reject or Respond form (`mode`), filled with its draft; `focus` puts
 * the caret in its first field. */
export function openForm(st: RunMemory, card: Card, mode: string, focus = false): void {
  if (card.form) card.form.remove();
  let draft = st.drafts.get(card.key);
  if (!draft || draft.mode !== mode) st.drafts.set(card.key, (draft = { mode, values: {} }));
  card.form = makeForm(mode, card.action, draft.values);
  card.mode = mode;
  card.el.insertBefore(card.form, card.errorEl);
  for (const b of card.buttons) {
    if (b.getAttribute("data-act") === mode) b.setAttribute("aria-expanded", "true");
    else b.removeAttribute("aria-expanded");
  }
  if (focus) card.form.querySelector("textarea")?.focus({ preventScroll: true });
}

/** Closes the card's form and forgets its draft. */
export function closeForm(st: RunMemory, card: Card): void {
  if (card.form) card.form.remove();
  card.form = null;
  card.mode = null;
  st.drafts.delete(card.key);
  for (const b of card.buttons) b.removeAttribute("aria-expanded");
}

/** A decided card forgets its send, refusal and form; an Edit drafted before the arguments were
 * shortened closes (they are edited from Python); a draft without its form opens it again. */
function settleForm(st: RunMemory, card: Card, decision: Decision | null): void {
  if (decision) {
    st.sending.delete(card.key);
    st.local.delete(card.key);
    st.drafts.delete(card.key);
    if (card.form) closeForm(st, card);
  } else if (card.action.clipped && st.drafts.get(card.key)?.mode === "edit") {
    if (card.form) closeForm(st, card); // the arguments were shortened since: edit from Python
    else st.drafts.delete(card.key);
  } else if (!card.form && st.drafts.has(card.key)) {
    openForm(st, card, st.drafts.get(card.key)!.mode);
  }
}

/** Patches the card for its action as it is now; `errors` are the kernel's refusals by key, and
 * nothing can be decided once `ended`. */
export function patchCard(st: RunMemory, card: Card, errors: Record<string, string>, ended: boolean): void {
  const decision = isObj(card.action.decision) ? card.action.decision : null;
  settleForm(st, card, decision);
  const sending = st.sending.has(card.key);
  setAttr(card.el, "data-decided", decision ? "true" : "false");
  setAttr(card.el, "data-decision", decision ? decision.type : "");
  card.el.classList.toggle("dnb-sending", sending);
  const locked = Boolean(decision) || sending || ended;
  for (const b of card.buttons) {
    b.disabled = locked || (Boolean(card.action.clipped) && b.getAttribute("data-act") === "edit");
  }
  if (card.form) {
    for (const b of card.form.querySelectorAll("button")) b.disabled = sending || ended;
  }
  show(card.sendingEl, sending);
  const error = st.local.get(card.key) || str(errors[card.key]);
  setText(card.errorEl, error);
  show(card.errorEl, error !== "");
  setText(card.decisionEl, decision ? decisionText(decision) : "");
  show(card.decisionEl, Boolean(decision));
}
