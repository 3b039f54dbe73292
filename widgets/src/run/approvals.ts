// The approval cards of one view and its decision log. One card per gated action, patched in
// place by "interrupt id:index" so an open form keeps its text and focus while updates stream in;
// the run's memory carries drafts, sends in flight and the caret over to a re-displayed view.

import { h, keepOnly, placeAt, setAttr, setText, show } from "../lib/dom";
import { goneText } from "../lib/kernel";
import { isIn } from "../lib/statuses";
import { fmtInt, isObj, list, plural, str } from "../lib/text";
import { ENDED, RUNNING } from "../schema";
import type { DecisionEntry, DecisionSent, Interrupt, PendingPage, RunOutgoing, RunTraits } from "../types";
import {
  actButton, type Card, decisionText, logEntry, makeCard, makeForm, pendingTitle, readEditArgs, signature,
} from "./approval_card";
import type { RunModel } from "./live_model";
import type { RunMemory } from "./memory";

interface Group { el: HTMLElement; all: HTMLButtonElement; cardsEl: HTMLElement }

/** Where Approve all / Reject all over every page keeps its send in flight and its refusal. */
const EVERY = "every";

export interface ApprovalsView {
  el: HTMLElement;
  log: HTMLDetailsElement;
  render(): void;
  renderLog(): void;
  dispose(): void;
}

/** The "interrupt id:index" of the card holding `node`. */
function keyOf(node: Element): string {
  const card = node.closest(".dnb-approval");
  return card ? `${card.getAttribute("data-interrupt")}:${card.getAttribute("data-index")}` : "";
}

type Read = <K extends keyof RunTraits>(name: K) => RunTraits[K];

/** The approval cards (`el`) and the decision log (`log`) of one view. `read(name)` gives the
 * current value of a synced field (status, pending, card_errors, decisions). */
/** The cards are disabled, under `goneText`, once `gone()`: no kernel is behind them. */
export function approvalsView(
  model: RunModel, st: RunMemory, read: Read = (name) => model.get(name), gone: () => boolean = () => false,
): ApprovalsView {
  const cards = new Map<string, Card>(); // key → card
  const groups = new Map<string, Group>(); // interrupt id → its group
  const el = h("div", "dnb-pending");
  el.setAttribute("role", "region");
  el.setAttribute("aria-label", "Approvals");
  // JupyterLab's shortcuts (Shift+Enter runs the cell, A/B/D… in command mode) stay out of the
  // forms and buttons: Lumino stops looking for a shortcut at this attribute.
  el.setAttribute("data-lm-suppress-shortcuts", "true");
  const title = h("div", "dnb-pending-title");
  // Parallel subagents each wait on their own interrupt, and cards past one page wait unseen:
  // one button approves (or rejects) every undecided action, on every page.
  const every = actButton("dnb-approve-every", "", "approve-every");
  const rejectEvery = actButton("dnb-reject-every", "", "reject-every");
  const everyRow = h("div", "dnb-every");
  const everyErrorEl = h("div", "dnb-card-error");
  everyRow.append(every, rejectEvery, everyErrorEl);
  let everySentAt = ""; // the cards as they were when it was sent: a change ends the wait
  everyRow.hidden = true;
  // A page of cards at a time: the kernel holds the rest.
  const pager = h("div", "dnb-pending-pager");
  const previous = actButton("dnb-page-previous", "‹ Previous", "page-previous");
  const next = actButton("dnb-page-next", "Next ›", "page-next");
  const pageText = h("span", "dnb-page-text");
  pager.append(previous, pageText, next);
  pager.hidden = true;
  const groupsEl = h("div", "dnb-interrupts");
  el.append(title, everyRow, pager, groupsEl);
  const log = h("details", "dnb-decisions");
  const logSummary = h("summary", "dnb-decisions-summary");
  const logList = h("ol", "dnb-decision-list");
  log.append(logSummary, logList);
  log.open = st.logOpen;
  const pageNow = (): Partial<PendingPage> => {
    const page = read("pending_page");
    return isObj(page) ? page : {};
  };
  const cardsNow = (): string => JSON.stringify([read("pending"), read("pending_page")]);
  const errorsNow = (): Record<string, string> => {
    const errors = read("card_errors");
    return isObj(errors) ? errors : {};
  };

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

  function patchCard(card: Card, errors: Record<string, string>, ended: boolean): void {
    const decision = isObj(card.action.decision) ? card.action.decision : null;
    if (decision) {
      st.sending.delete(card.key);
      st.local.delete(card.key);
      st.drafts.delete(card.key);
      if (card.form) closeForm(card);
    } else if (card.action.clipped && st.drafts.get(card.key)?.mode === "edit") {
      if (card.form) closeForm(card); // the arguments were shortened since: edit from Python
      else st.drafts.delete(card.key);
    } else if (!card.form && st.drafts.has(card.key)) {
      openForm(card, st.drafts.get(card.key)!.mode);
    }
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
      const key = `${iid}:${str(action.index)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      let card = cards.get(key);
      if (card && card.sig !== signature(request, action as Card["action"])) {
        card.el.remove();
        card = undefined;
      }
      if (!card) cards.set(key, (card = makeCard(request, action as Card["action"], key)));
      card.action = action as Card["action"];
      patchCard(card, errors, ended);
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

  /** The interrupts with undecided actions that allow approval, each with those actions' keys. */
  function approvable(requests: Interrupt[]): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const request of requests) {
      const iid = str(request.id);
      for (const action of list(request.actions)) {
        if (!isObj(action) || isObj(action.decision) || !list(action.allowed).includes("approve")) continue;
        const key = `${iid}:${str(action.index)}`;
        if (!out.has(iid)) out.set(iid, []);
        out.get(iid)!.push(key);
      }
    }
    return out;
  }

  function render(): void {
    const status = str(read("status")) || RUNNING;
    const errors = errorsNow();
    const ended = isIn(ENDED, status) || gone();
    for (const [key, errorKey] of st.sending) if (errors[errorKey]) st.sending.delete(key);
    if (st.sending.has(EVERY) && cardsNow() !== everySentAt) st.sending.delete(EVERY);
    const requests = list(read("pending")).filter(isObj) as Interrupt[];
    prune(requests); // first: moving a card past a stale one would blur a field it holds
    const seen = new Set<unknown>();
    let prev: HTMLElement | null = null;
    let undecided = 0;
    const open = approvable(requests);
    const many = open.size > 1;
    for (const request of requests) {
      const group = groupFor(str(request.id));
      if (seen.has(group)) continue; // an interrupt listed twice
      seen.add(group);
      undecided += renderGroup(request, seen, errors, ended, many);
      placeAt(groupsEl, group.el, prev);
      prev = group.el;
    }
    const keys = [...open.values()].flat();
    const page = pageNow();
    const paged = (page.pages ?? 1) > 1;
    const toApprove = paged ? page.approvable ?? keys.length : keys.length;
    const rejectable = paged ? page.rejectable ?? 0 : rejectableHere(requests);
    const inFlight = st.sending.has(EVERY) || (keys.length > 0 && keys.every((key) => st.sending.has(key)));
    const everyShown = many || (paged && toApprove + rejectable > 0);
    show(everyRow, everyShown);
    show(every, everyShown && toApprove > 0);
    setText(every, `Approve all ${fmtInt(toApprove)}`);
    every.setAttribute("aria-label", paged
      ? `Approve all ${plural(toApprove, "pending action")}, on every page`
      : `Approve all ${plural(toApprove, "pending action")} of ${open.size} interrupts`);
    every.disabled = ended || inFlight;
    show(rejectEvery, everyShown && rejectable > 0);
    setText(rejectEvery, `Reject all ${fmtInt(rejectable)}`);
    rejectEvery.setAttribute("aria-label", `Reject all ${plural(rejectable, "pending action")}${paged ? ", on every page" : ""}`);
    rejectEvery.disabled = ended || inFlight;
    show(pager, paged);
    if (paged) setText(pageText, `Cards ${fmtInt(page.first)}–${fmtInt(page.last)} of ${fmtInt(page.cards)}`);
    previous.disabled = gone() || (page.page ?? 0) <= 0; // pages stay readable once the run ended
    next.disabled = gone() || (page.page ?? 0) >= (page.pages ?? 1) - 1;
    const waiting = paged ? page.undecided ?? undecided : undecided;
    setAttr(el, "data-status", status);
    setText(title, gone() && waiting ? goneText(str(read("thread_id"))) : pendingTitle(status, waiting));
    const everyError = st.local.get(EVERY) || str(errors[EVERY]);
    setText(everyErrorEl, everyError);
    show(everyErrorEl, everyError !== "");
    show(el, cards.size > 0);
  }

  /** The undecided actions shown that allow a rejection. */
  function rejectableHere(requests: Interrupt[]): number {
    let count = 0;
    for (const request of requests) {
      for (const action of list(request.actions)) {
        if (isObj(action) && !isObj(action.decision) && list(action.allowed).includes("reject")) count++;
      }
    }
    return count;
  }

  function prune(requests: Interrupt[]): void {
    const keys = new Set<string>();
    for (const request of requests) {
      for (const action of list(request.actions)) {
        if (isObj(action)) keys.add(`${str(request.id)}:${str(action.index)}`);
      }
    }
    keepOnly(cards, keys, (card) => card.el.remove());
    keepOnly(groups, new Set(requests.map((request) => str(request.id))), (group) => group.el.remove());
    keepOnly(st.drafts, keys);
    keys.add(EVERY);
    keepOnly(st.sending, keys);
    keepOnly(st.local, keys);
  }

  function renderLog(): void {
    const entries = list(read("decisions")).filter(isObj) as DecisionEntry[];
    show(log, entries.length > 0);
    setText(logSummary, `Decisions (${entries.length})`);
    logList.replaceChildren(...entries.map(logEntry));
  }

  // -- forms ------------------------------------------------------------------------------------

  function openForm(card: Card, mode: string, focus = false): void {
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

  function closeForm(card: Card): void {
    if (card.form) card.form.remove();
    card.form = null;
    card.mode = null;
    st.drafts.delete(card.key);
    for (const b of card.buttons) b.removeAttribute("aria-expanded");
  }

  // -- sending ----------------------------------------------------------------------------------

  function dispatch(keys: string[], errorKey: string, message: RunOutgoing): void {
    if (keys.length === 0 || keys.some((key) => st.sending.has(key))) return; // sent already
    for (const key of keys) {
      st.sending.set(key, errorKey);
      st.local.delete(key);
    }
    // Forget earlier refusals first, so one worded the same way still arrives as a change.
    const errors = errorsNow();
    const stale = [...keys, errorKey].filter((key) => key in errors);
    if (stale.length) {
      const next = { ...errors };
      for (const key of stale) delete next[key];
      model.set("card_errors", next);
      model.save_changes();
    }
    model.send(message);
    render();
  }

  function decide(card: Card, decision: DecisionSent): void {
    dispatch([card.key], card.key,
      { type: "decide", interrupt_id: card.iid, index: card.index, decision });
  }

  function refuse(card: Card, why: string): void {
    st.local.set(card.key, why);
    render();
  }

  function sendForm(card: Card, act: string): void {
    const form = card.form!;
    if (act === "edit-send") {
      const { args, error } = readEditArgs(form);
      if (error) refuse(card, error);
      else decide(card, { type: "edit", args: args! });
      return;
    }
    const message = str(form.querySelector("textarea")?.value);
    if (act === "reject-send") decide(card, { type: "reject", message });
    else if (message.trim()) decide(card, { type: "respond", message });
    else refuse(card, "Write a message: it is what the agent gets instead of the tool's result.");
  }

  // Approve all / Reject all: one message for every page, with the count the button showed (the
  // kernel decides nothing if more or fewer wait by then, and says so).
  function decideEvery(decision: "approve" | "reject"): void {
    if (st.sending.has(EVERY)) return;
    const page = pageNow();
    const requests = list(read("pending")).filter(isObj) as Interrupt[];
    const paged = (page.pages ?? 1) > 1;
    const keys = decision === "approve" ? [...approvable(requests).values()].flat() : [];
    const expected = decision === "approve"
      ? (paged ? page.approvable ?? keys.length : keys.length)
      : (paged ? page.rejectable ?? 0 : rejectableHere(requests));
    if (expected === 0) return;
    st.sending.set(EVERY, EVERY);
    st.local.delete(EVERY);
    everySentAt = cardsNow();
    const errors = errorsNow();
    if (EVERY in errors) { // forgotten first, so the same refusal still arrives as a change
      const rest = { ...errors };
      delete rest[EVERY];
      model.set("card_errors", rest);
      model.save_changes();
    }
    model.send({ type: "decide_every", act: decision, expected });
    render();
  }

  function approveAll(iid: string): void {
    const keys = [...cards.values()]
      .filter((card) => card.iid === iid && !isObj(card.action.decision) && !st.sending.has(card.key) &&
        list(card.action.allowed).includes("approve"))
      .map((card) => card.key);
    dispatch(keys, `${iid}:0`, { type: "approve_all", interrupt_id: iid });
  }

  // Keys typed in a form stay there: JupyterLab would otherwise hold back Enter's line break
  // (its guard for pending shortcuts). Ctrl/Cmd+Enter sends the form.
  function onKeyDown(event: KeyboardEvent): void {
    const target = event.target as HTMLElement;
    if (target.tagName !== "TEXTAREA") return;
    event.stopPropagation();
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
    event.preventDefault();
    target.closest(".dnb-approval-form")?.querySelector<HTMLElement>("[data-act$='-send']")?.click();
  }

  function onClick(event: MouseEvent): void {
    const target = event.target as Element | null;
    const btn = target?.closest && target.closest<HTMLButtonElement>("button[data-act]");
    if (!btn || !el.contains(btn) || btn.disabled) return;
    const act = btn.getAttribute("data-act")!;
    if (act === "approve-all") return approveAll(str(btn.getAttribute("data-interrupt")));
    if (act === "approve-every") return decideEvery("approve");
    if (act === "reject-every") return decideEvery("reject");
    if (act === "page-previous" || act === "page-next") {
      const page = pageNow().page ?? 0;
      model.send({ type: "pending_page", page: act === "page-next" ? page + 1 : page - 1 });
      return;
    }
    const card = cards.get(keyOf(btn));
    if (!card) return;
    if (act === "approve") decide(card, { type: "approve" });
    else if (act === "always") {
      dispatch([card.key], card.key,
        { type: "always", interrupt_id: card.iid, index: card.index, tool: str(card.action.name) });
    } else if (act === "cancel") {
      closeForm(card);
      st.local.delete(card.key);
      render();
    } else if (act.endsWith("-send")) sendForm(card, act);
    else if (card.mode === act) closeForm(card);
    else openForm(card, act, true);
  }

  // -- what was typed, and where the caret was ----------------------------------------------------

  function fieldOf(target: EventTarget | null): { key: string; field: string } | null {
    const node = target as HTMLElement | null;
    if (!node || node.tagName !== "TEXTAREA" || !el.contains(node)) return null;
    return { key: keyOf(node), field: str(node.getAttribute("data-field")) };
  }

  function onInput(event: Event): void {
    const where = fieldOf(event.target);
    const draft = where && st.drafts.get(where.key);
    if (draft) draft.values[where.field] = (event.target as HTMLTextAreaElement).value;
    if (where) noteCaret(event);
  }

  function noteCaret(event: Event): void {
    const where = fieldOf(event.target);
    if (where) {
      const area = event.target as HTMLTextAreaElement;
      const { selectionStart: start, selectionEnd: end } = area;
      st.focus = { ...where, node: area, start, end };
    }
  }

  // Forget the field when the user leaves it; not when it leaves the page with its view.
  function onFocusOut(event: FocusEvent): void {
    const f = st.focus;
    if (!f || f.node !== event.target) return;
    if (event.relatedTarget) st.focus = null;
    else setTimeout(() => { if (st.focus === f && f.node.isConnected) st.focus = null; }, 0);
  }

  // A re-displayed view gets the focus back, caret included, when the field that had it left the
  // page with the old view and nothing else took it. Both views can be on the page for a moment,
  // and a new one is rendered before it is attached: so try again for a few frames.
  function restoreFocus(tries = 20): void {
    const f = st.focus;
    if (!f || disposed) return;
    if (f.node.isConnected || !el.isConnected) {
      if (tries > 0) requestAnimationFrame(() => restoreFocus(tries - 1));
      return;
    }
    const active = document.activeElement;
    const card = cards.get(f.key);
    const area = card && card.form &&
      [...card.form.querySelectorAll("textarea")].find((a) => a.getAttribute("data-field") === f.field);
    if (!area || (active && active !== document.body)) return;
    area.focus({ preventScroll: true });
    area.setSelectionRange(f.start, f.end);
    st.focus = { ...f, node: area };
  }

  let disposed = false;
  const onToggle = (): void => { st.logOpen = log.open; };
  const listeners: [EventTarget, string, (event: any) => void][] = [
    [el, "click", onClick], [el, "keydown", onKeyDown], [el, "input", onInput],
    [el, "focusin", noteCaret], [el, "keyup", noteCaret], [el, "mouseup", noteCaret],
    [el, "focusout", onFocusOut], [log, "toggle", onToggle]];
  for (const [node, name, fn] of listeners) node.addEventListener(name, fn);
  render();
  renderLog();
  restoreFocus();

  function dispose(): void {
    disposed = true;
    for (const [node, name, fn] of listeners) node.removeEventListener(name, fn);
  }

  return { el, log, render, renderLog, dispose };
}
