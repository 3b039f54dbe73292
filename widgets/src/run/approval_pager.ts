// The pager over the approval cards: a page of cards at a time, the kernel holds the rest.
// "‹ Previous" and "Next ›" ask it for the page before or after the one shown.

import { h, setText, show } from "../lib/dom";
import { fmtInt } from "../lib/text";
import type { PendingPage, RunOutgoing } from "../types";
import { actButton } from "./approval_card";
import { isPaged } from "./approval_pending";

export interface ApprovalPager {
  el: HTMLElement;
  /** Shows where `page` is among the pages; the buttons stay disabled while `gone` (no kernel). */
  render(page: Partial<PendingPage>, gone: boolean): void;
  /** Asks for the next page (`forward`) or the previous one. */
  turn(forward: boolean): void;
}

/** `pageNow()` gives the page shown, `send` sends the view's messages. */
export function approvalPager(
  pageNow: () => Partial<PendingPage>, send: (message: RunOutgoing) => void,
): ApprovalPager {
  const el = h("div", "dnb-pending-pager");
  const previous = actButton("dnb-page-previous", "‹ Previous", "page-previous");
  const next = actButton("dnb-page-next", "Next ›", "page-next");
  const text = h("span", "dnb-page-text");
  el.append(previous, text, next);
  el.hidden = true;

  function render(page: Partial<PendingPage>, gone: boolean): void {
    const paged = isPaged(page);
    show(el, paged);
    if (paged) setText(text, `Cards ${fmtInt(page.first)}–${fmtInt(page.last)} of ${fmtInt(page.cards)}`);
    previous.disabled = gone || (page.page ?? 0) <= 0; // pages stay readable once the run ended
    next.disabled = gone || (page.page ?? 0) >= (page.pages ?? 1) - 1;
  }

  function turn(forward: boolean): void {
    const page = pageNow().page ?? 0;
    send({ type: "pending_page", page: forward ? page + 1 : page - 1 });
  }

  return { el, render, turn };
}
