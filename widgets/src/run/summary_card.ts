// A summarization card: what was summarized, the summary itself (collapsed), and the offloaded
// history file.

import { h, ownKeys, setAttr, setText, show, smallButton } from "../lib/dom";
import { asksKernel } from "./kernel_gate";
import { armImages } from "../lib/images";
import { fmtInt, known, plural, str } from "../lib/text";
import type { SummaryItem } from "../types";
import { changed, type ItemRecord } from "./record";

export interface SummaryParts {
  messages: HTMLElement;
  cutoff: HTMLElement;
  tokens: HTMLElement;
  details: HTMLDetailsElement;
  history: HTMLElement;
  path: HTMLElement;
  openBtn: HTMLButtonElement;
  /** The state this code last gave the summary's fold: a toggle to anything else is the reader's. */
  auto: boolean;
  /** Keys of the folds the reader opened, kept by the view across redraws. */
  expanded: Set<string>;
  key: string;
}

/**
 * Keeps the reader's toggle of the summary's fold, if it is not as this code last set it. A click
 * opens or closes the fold at once but its toggle event comes in a later task: code that sets the
 * fold calls this first, so a choice made just before is not undone.
 */
export function noteSummaryChoice(s: SummaryParts): void {
  if (s.details.open === s.auto) return; // the fold this code set (the search opens it)
  s.auto = s.details.open;
  if (s.details.open) s.expanded.add(s.key);
  else s.expanded.delete(s.key);
}

/** Builds a summary card's parts into `rec.el` (its text open when its key is in `expanded`). */
export function makeSummary(rec: ItemRecord, expanded: Set<string>): void {
  const head = h("div", "dnb-summary-head");
  const s: SummaryParts = {
    messages: h("span", "dnb-summary-messages"),
    cutoff: h("span", "dnb-summary-cutoff"),
    tokens: h("span", "dnb-summary-tokens"),
    details: h("details", "dnb-summary-details"),
    history: h("div", "dnb-summary-history"),
    path: h("code", "dnb-summary-path"),
    openBtn: asksKernel(smallButton("dnb-btn dnb-summary-open", "Open history file")),
    auto: expanded.has(rec.key),
    expanded,
    key: rec.key,
  };
  rec.summary = s;
  const meta = h("span", "dnb-summary-meta");
  meta.append(s.messages, s.cutoff, s.tokens);
  head.append(h("span", "dnb-summary-icon", "⇊"), rec.label!, h("span", "dnb-summary-title",
    "Context summarized"), meta);
  const body = (rec.body = h("div", "dnb-summary-text"));
  s.details.append(ownKeys(h("summary", "dnb-summary-toggle", "Summary")), body);
  s.details.open = s.auto;
  s.details.addEventListener("toggle", () => noteSummaryChoice(s));
  s.history.append(s.openBtn, s.path);
  rec.el.setAttribute("role", "article");
  rec.el.setAttribute("aria-label", "Context summarized");
  rec.el.append(head, s.details, s.history);
}

/** "tokens 1,200 → 300", or whichever of the two is known. */
export function tokensText(before: unknown, after: unknown): string {
  if (known(before) && known(after)) return `tokens ${fmtInt(before)} → ${fmtInt(after)}`;
  if (known(before)) return `tokens before ${fmtInt(before)}`;
  if (known(after)) return `tokens after ${fmtInt(after)}`;
  return "";
}

/**
 * What a summarization took out, in words: "12 messages summarized", and "(15 in all)" when
 * earlier summarizations took more (the cutoff counts every message summarized since the start).
 */
export function summarizedText(messages: unknown, cutoff: unknown): [string, string] {
  if (!known(messages)) return [known(cutoff) ? `${plural(cutoff, "message")} summarized in all` : "", ""];
  const what = `${plural(messages, "message")} summarized`;
  return [what, known(cutoff) && cutoff !== messages ? `(${fmtInt(cutoff)} in all)` : ""];
}

/** Shows what changed in a summary item. */
export function patchSummary(rec: ItemRecord, item: SummaryItem): void {
  const { messages, cutoff, tokens } = rec.summary!;
  const s = rec.summary!;
  const body = rec.body!;
  const messagesChanged = changed(rec, item, "messages");
  if (changed(rec, item, "cutoff") || messagesChanged) {
    const [what, total] = summarizedText(rec.f.messages, rec.f.cutoff);
    setText(messages, what);
    show(messages, what !== "");
    setText(cutoff, total);
    show(cutoff, total !== "");
  }
  const beforeChanged = changed(rec, item, "tokens_before");
  if (changed(rec, item, "tokens_after") || beforeChanged) {
    const text = tokensText(rec.f.tokens_before, rec.f.tokens_after);
    setText(tokens, text);
    show(tokens, text !== "");
  }
  const textChanged = changed(rec, item, "summary");
  if (changed(rec, item, "summary_html") || textChanged) {
    const html = rec.f.summary_html;
    body.classList.toggle("dnb-md", typeof html === "string" && html !== "");
    if (typeof html === "string" && html !== "") {
      body.innerHTML = html; // escaped in Python
      armImages(body);
    } else setText(body, rec.f.summary);
  }
  if (changed(rec, item, "file_path")) {
    const path = str(rec.f.file_path);
    show(s.history, path !== "");
    setText(s.path, path);
    setAttr(s.openBtn, "data-path", path);
    s.openBtn.title = path ? `Show ${path}` : "";
  }
}
