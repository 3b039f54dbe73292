// The approval cards of one view and its decision log. One card per gated action, patched in
// place by "interrupt id:index" so an open form keeps its text and focus while updates stream in;
// the run's memory carries drafts, sends in flight and the caret over to a re-displayed view.

import { h, setAttr, setText, show } from "../lib/dom";
import { goneText } from "../lib/kernel";
import { isIn } from "../lib/statuses";
import { str } from "../lib/text";
import { ENDED, RUNNING } from "../schema";
import { type Card, pendingTitle } from "./approval_card";
import { everyBar } from "./approval_every";
import { approvalGroups } from "./approval_groups";
import { approvalPager } from "./approval_pager";
import { everyCounts, keyOf, pageOf, pendingOf } from "./approval_pending";
import { cardActs, decisionSender } from "./approval_send";
import { formTyping } from "./approval_typing";
import { errorsOf } from "./card_errors";
import { decisionLog } from "./decision_log";
import type { Read, RunModel } from "./live_model";
import type { RunMemory } from "./memory";

export interface ApprovalsView {
  el: HTMLElement;
  log: HTMLDetailsElement;
  render(): void;
  renderLog(): void;
  dispose(): void;
}

/** The region the cards are in. JupyterLab's shortcuts (Shift+Enter runs the cell, A/B/D… in
 * command mode) stay out of its forms and buttons: Lumino stops looking for a shortcut at its
 * `data-lm-suppress-shortcuts`. */
function approvalsRegion(): HTMLElement {
  const el = h("div", "dnb-pending");
  el.setAttribute("role", "region");
  el.setAttribute("aria-label", "Approvals");
  el.setAttribute("data-lm-suppress-shortcuts", "true");
  return el;
}

/** The button with a `data-act` that `event` clicked in `el`, unless it is disabled. */
function actedOn(event: MouseEvent, el: HTMLElement): HTMLButtonElement | null {
  const target = event.target as Element | null;
  const btn = target?.closest && target.closest<HTMLButtonElement>("button[data-act]");
  return btn && el.contains(btn) && !btn.disabled ? btn : null;
}

/** The approval cards (`el`) and the decision log (`log`) of one view. `read(name)` gives the
 * current value of a synced field (status, pending, card_errors, decisions). */
/** The cards are disabled, under `goneText`, once `gone()`: no kernel is behind them. */
export function approvalsView(
  model: RunModel, st: RunMemory, read: Read = (name) => model.get(name), gone: () => boolean = () => false,
): ApprovalsView {
  const cards = new Map<string, Card>(); // key → card
  const el = approvalsRegion();
  const title = h("div", "dnb-pending-title");
  const every = everyBar(model, st, read, render);
  const pager = approvalPager(() => pageOf(read), (message) => model.send(message));
  const groups = approvalGroups(cards, st);
  el.append(title, every.el, pager.el, groups.el);
  const log = decisionLog(read, st);
  const sender = decisionSender(model, st, read, cards, render);
  const actOn = cardActs(st, sender, render);

  function render(): void {
    const status = str(read("status")) || RUNNING;
    const errors = errorsOf(read);
    const ended = isIn(ENDED, status) || gone();
    for (const [key, errorKey] of st.sending) if (errors[errorKey]) st.sending.delete(key);
    every.expire();
    const requests = pendingOf(read);
    groups.prune(requests); // first: moving a card past a stale one would blur a field it holds
    const page = pageOf(read);
    const counts = everyCounts(requests, page);
    const undecided = groups.render(requests, errors, ended, counts.interrupts > 1);
    every.render(counts, errors, ended);
    pager.render(page, gone());
    const waiting = counts.paged ? page.undecided ?? undecided : undecided;
    setAttr(el, "data-status", status);
    setText(title, gone() && waiting ? goneText(str(read("thread_id"))) : pendingTitle(status, waiting));
    show(el, cards.size > 0);
  }

  function onClick(event: MouseEvent): void {
    const btn = actedOn(event, el);
    if (!btn) return;
    const act = btn.getAttribute("data-act")!;
    if (act === "approve-all") return sender.approveAll(str(btn.getAttribute("data-interrupt")));
    if (act === "approve-every") return every.decide("approve");
    if (act === "reject-every") return every.decide("reject");
    if (act === "page-previous" || act === "page-next") return pager.turn(act === "page-next");
    const card = cards.get(keyOf(btn));
    if (card) actOn(card, act);
  }

  el.addEventListener("click", onClick);
  const typing = formTyping(el, st, cards);
  render();
  log.render();
  typing.restoreFocus();

  function dispose(): void {
    el.removeEventListener("click", onClick);
    typing.dispose();
    log.dispose();
  }

  return { el, log: log.el, render, renderLog: log.render, dispose };
}
