// The approval cards by interrupt: a group per pending interrupt, its cards in order and, over two
// undecided or more, its own "Approve all N". Cards are patched in place by key, and built again
// only when what they show changed.

import { h, keepOnly, placeAt, setText, show } from "../lib/dom";
import { isObj, list, str } from "../lib/text";
import type { Action, Interrupt } from "../types";
import { actButton, type Card, makeCard, signature } from "./approval_card";
import { actionKey, actionKeys, EVERY } from "./approval_pending";
import { patchCard } from "./approval_state";
import type { RunMemory } from "./memory";

interface Group { el: HTMLElement; all: HTMLButtonElement; cardsEl: HTMLElement }

export interface ApprovalGroups {
  el: HTMLElement;
  /** Drops the cards, groups and memory of the actions no longer pending. */
  prune(requests: Interrupt[]): void;
  /** Places and patches every interrupt's cards; returns how many are undecided. `many`: more
   * than one interrupt has actions to approve (each group's button then says "these"). */
  render(requests: Interrupt[], errors: Record<string, string>, ended: boolean, many: boolean): number;
}

/** The groups of the cards in `cards` (key → card), which they fill. */
export function approvalGroups(cards: Map<string, Card>, st: RunMemory): ApprovalGroups {
  const groups = new Map<string, Group>(); // interrupt id → its group
  const el = h("div", "dnb-interrupts");

  function groupFor(iid: string): Group {
    let group = groups.get(iid);
    if (!group) {
      group = { el: h("div", "dnb-interrupt"), all: actButton("dnb-approve-all", "", "approve-all"),
        cardsEl: h("div", "dnb-approval-cards") };
      group.el.setAttribute("data-interrupt", iid);
      group.all.setAttribute("data-interrupt", iid);
      group.el.append(group.all, group.cardsEl);
      groups.set(iid, group);
    }
    return group;
  }

  /** The card of `action`, built (again) when it has none or shows something else now. */
  function cardFor(request: Interrupt, action: Action, key: string): Card {
    let card = cards.get(key);
    if (card && card.sig !== signature(request, action)) {
      card.el.remove();
      card = undefined;
    }
    if (!card) cards.set(key, (card = makeCard(request, action, key)));
    card.action = action;
    return card;
  }

  // Places (and patches) the cards of one interrupt; returns how many are undecided.
  function renderGroup(
    request: Interrupt, seen: Set<unknown>, errors: Record<string, string>, ended: boolean, many: boolean,
  ): number {
    const iid = str(request.id);
    const group = groupFor(iid);
    let prev: HTMLElement | null = null;
    let undecided = 0;
    let idle = 0; // undecided and not in flight
    for (const action of list(request.actions)) {
      if (!isObj(action)) continue;
      const key = actionKey(iid, action.index);
      if (seen.has(key)) continue;
      seen.add(key);
      const card = cardFor(request, action as Action, key);
      patchCard(st, card, errors, ended);
      placeAt(group.cardsEl, card.el, prev);
      prev = card.el;
      if (!isObj(action.decision)) {
        undecided++;
        if (!st.sending.has(key)) idle++;
      }
    }
    show(group.all, undecided > 1);
    setText(group.all, many ? `Approve these ${undecided}` : `Approve all ${undecided}`);
    group.all.disabled = ended || idle === 0;
    return undecided;
  }

  function render(requests: Interrupt[], errors: Record<string, string>, ended: boolean, many: boolean): number {
    const seen = new Set<unknown>();
    let prev: HTMLElement | null = null;
    let undecided = 0;
    for (const request of requests) {
      const group = groupFor(str(request.id));
      if (seen.has(group)) continue; // an interrupt listed twice
      seen.add(group);
      undecided += renderGroup(request, seen, errors, ended, many);
      placeAt(el, group.el, prev);
      prev = group.el;
    }
    return undecided;
  }

  function prune(requests: Interrupt[]): void {
    const keys = actionKeys(requests);
    keepOnly(cards, keys, (card) => card.el.remove());
    keepOnly(groups, new Set(requests.map((request) => str(request.id))), (group) => group.el.remove());
    keepOnly(st.drafts, keys);
    keys.add(EVERY);
    keepOnly(st.sending, keys);
    keepOnly(st.local, keys);
  }

  return { el, prune, render };
}
