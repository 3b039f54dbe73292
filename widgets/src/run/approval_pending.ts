// The pending approvals as the cards read them: the interrupts and the page of them in the synced
// fields (anything else reads as none), each action's "interrupt id:index" key, and the counts
// that Approve all and Reject all go by.

import { isObj, list, str } from "../lib/text";
import type { Interrupt, PendingPage } from "../types";
import type { Read } from "./live_model";

/** Where Approve all / Reject all over every page keeps its send in flight and its refusal. */
export const EVERY = "every";

/** The interrupts `pending` holds (on this page). */
export const pendingOf = (read: Read): Interrupt[] => list(read("pending")).filter(isObj) as Interrupt[];

/** Which cards `pending` holds (`pending_page`), or nothing known. */
export function pageOf(read: Read): Partial<PendingPage> {
  const page = read("pending_page");
  return isObj(page) ? page : {};
}

/** The cards as they are now: a send over every page waits until they change. */
export const stampOf = (read: Read): string => JSON.stringify([read("pending"), read("pending_page")]);

/** Whether the cards are on more than one page. */
export const isPaged = (page: Partial<PendingPage>): boolean => (page.pages ?? 1) > 1;

/** The "interrupt id:index" of the action at `index` of the interrupt `iid`. */
export const actionKey = (iid: string, index: unknown): string => `${iid}:${str(index)}`;

/** The "interrupt id:index" of the card holding `node`. */
export function keyOf(node: Element): string {
  const card = node.closest(".dnb-approval");
  return card ? `${card.getAttribute("data-interrupt")}:${card.getAttribute("data-index")}` : "";
}

/** The key of every action shown. */
export function actionKeys(requests: Interrupt[]): Set<string> {
  const keys = new Set<string>();
  for (const request of requests) {
    for (const action of list(request.actions)) {
      if (isObj(action)) keys.add(actionKey(str(request.id), action.index));
    }
  }
  return keys;
}

/** The interrupts with undecided actions that allow approval, each with those actions' keys. */
export function approvable(requests: Interrupt[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const request of requests) {
    const iid = str(request.id);
    for (const action of list(request.actions)) {
      if (!isObj(action) || isObj(action.decision) || !list(action.allowed).includes("approve")) continue;
      if (!out.has(iid)) out.set(iid, []);
      out.get(iid)!.push(actionKey(iid, action.index));
    }
  }
  return out;
}

/** The undecided actions shown that allow a rejection. */
export function rejectableHere(requests: Interrupt[]): number {
  let count = 0;
  for (const request of requests) {
    for (const action of list(request.actions)) {
      if (isObj(action) && !isObj(action.decision) && list(action.allowed).includes("reject")) count++;
    }
  }
  return count;
}

/** What Approve all and Reject all go by: on one page, the actions shown; over several, the
 * kernel's counts for every page. */
export interface EveryCounts {
  /** The keys of the undecided actions shown that allow approval. */
  keys: string[];
  /** How many interrupts shown have such actions. */
  interrupts: number;
  paged: boolean;
  toApprove: number;
  rejectable: number;
}

export function everyCounts(requests: Interrupt[], page: Partial<PendingPage>): EveryCounts {
  const open = approvable(requests);
  const keys = [...open.values()].flat();
  const paged = isPaged(page);
  return {
    keys,
    interrupts: open.size,
    paged,
    toApprove: paged ? page.approvable ?? keys.length : keys.length,
    rejectable: paged ? page.rejectable ?? 0 : rejectableHere(requests),
  };
}
