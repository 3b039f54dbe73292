// Approve all / Reject all. Parallel subagents each wait on their own interrupt, and cards past one
// page wait unseen: one button approves (or rejects) every undecided action, on every page. It
// sends one message for every page, with the count the button showed (the kernel decides nothing
// if more or fewer wait by then, and says so, under "every").

import { h, setText, show } from "../lib/dom";
import { fmtInt, plural, str } from "../lib/text";
import { actButton } from "./approval_card";
import { EVERY, everyCounts, type EveryCounts, pageOf, pendingOf, stampOf } from "./approval_pending";
import { errorsOf, forgetRefusals } from "./card_errors";
import type { Read, RunModel } from "./live_model";
import type { RunMemory } from "./memory";

export interface EveryBar {
  el: HTMLElement;
  /** Stops waiting for the last send once the cards changed since it went. */
  expire(): void;
  /** Shows the buttons for `counts`, disabled once `ended` or while a send is in flight. */
  render(counts: EveryCounts, errors: Record<string, string>, ended: boolean): void;
  /** Sends Approve all or Reject all, unless one is in flight or nothing waits. */
  decide(decision: "approve" | "reject"): void;
}

/** `rerender()` shows the cards again once a decision went. */
export function everyBar(model: RunModel, st: RunMemory, read: Read, rerender: () => void): EveryBar {
  const approve = actButton("dnb-approve-every", "", "approve-every");
  const reject = actButton("dnb-reject-every", "", "reject-every");
  const el = h("div", "dnb-every");
  const errorEl = h("div", "dnb-card-error");
  el.append(approve, reject, errorEl);
  let sentAt = ""; // the cards as they were when it was sent: a change ends the wait
  el.hidden = true;

  function expire(): void {
    if (st.sending.has(EVERY) && stampOf(read) !== sentAt) st.sending.delete(EVERY);
  }

  function render(counts: EveryCounts, errors: Record<string, string>, ended: boolean): void {
    const { keys, paged, toApprove, rejectable } = counts;
    const inFlight = st.sending.has(EVERY) || (keys.length > 0 && keys.every((key) => st.sending.has(key)));
    const shown = counts.interrupts > 1 || (paged && toApprove + rejectable > 0);
    show(el, shown);
    show(approve, shown && toApprove > 0);
    setText(approve, `Approve all ${fmtInt(toApprove)}`);
    approve.setAttribute("aria-label", paged
      ? `Approve all ${plural(toApprove, "pending action")}, on every page`
      : `Approve all ${plural(toApprove, "pending action")} of ${counts.interrupts} interrupts`);
    approve.disabled = ended || inFlight;
    show(reject, shown && rejectable > 0);
    setText(reject, `Reject all ${fmtInt(rejectable)}`);
    reject.setAttribute("aria-label", `Reject all ${plural(rejectable, "pending action")}${paged ? ", on every page" : ""}`);
    reject.disabled = ended || inFlight;
    const error = st.local.get(EVERY) || str(errors[EVERY]);
    setText(errorEl, error);
    show(errorEl, error !== "");
  }

  function decide(decision: "approve" | "reject"): void {
    if (st.sending.has(EVERY)) return;
    const counts = everyCounts(pendingOf(read), pageOf(read));
    const expected = decision === "approve" ? counts.toApprove : counts.rejectable;
    if (expected === 0) return;
    st.sending.set(EVERY, EVERY);
    st.local.delete(EVERY);
    sentAt = stampOf(read);
    forgetRefusals(model, errorsOf(read), [EVERY]);
    model.send({ type: "decide_every", act: decision, expected });
    rerender();
  }

  return { el, expire, render, decide };
}
