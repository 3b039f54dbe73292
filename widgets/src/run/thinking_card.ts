// What a model thought before it answered: a fold headed "Thinking", open while the thinking
// streams and closed once the answer starts, unless the reader opened or closed it themself (their
// choice then stands, and an opened one stays open when the view is drawn again).

import { h, ownKeys } from "../lib/dom";
import type { ItemRecord } from "./record";

export interface ThinkingParts {
  details: HTMLDetailsElement;
  /** The state this code last gave the fold: a toggle to anything else is the reader's. */
  auto: boolean;
  /** The reader closed it while it streamed: it stays closed. */
  closed: boolean;
  /** Keys of the folds the reader opened, kept by the view across redraws. */
  expanded: Set<string>;
  /** The transcript search holds it open (it holds a match): updates do not fold it. */
  held: boolean;
}

/** Builds a thinking item's fold into `rec.el`; its text goes in `rec.body` (patched as text is). */
export function makeThinking(rec: ItemRecord, expanded: Set<string>): void {
  const details = h("details", "dnb-thinking-details");
  const toggle = ownKeys(h("summary", "dnb-thinking-toggle"));
  toggle.append(rec.label!, h("span", "dnb-thinking-title", "Thinking"));
  rec.body = h("div", "dnb-thinking-text");
  details.append(toggle, rec.body);
  const parts: ThinkingParts = { details, auto: false, closed: false, expanded, held: false };
  rec.thinking = parts;
  details.addEventListener("toggle", () => noteReaderChoice(parts, rec.key));
  rec.el.setAttribute("role", "note");
  rec.el.setAttribute("aria-label", "Thinking");
  rec.el.append(details);
}

/** Keeps the reader's toggle of the fold, if the fold is not as this code last set it. */
function noteReaderChoice(parts: ThinkingParts, key: string): void {
  const { details } = parts;
  if (details.open === parts.auto) return; // the fold this code set
  parts.auto = details.open;
  parts.closed = !details.open;
  if (!details.open) parts.held = false; // closed by the reader while the search held it open
  if (details.open) parts.expanded.add(key);
  else parts.expanded.delete(key);
}

/** Opens or folds the thinking for what it is now: streaming (`html` not yet there) or settled. */
export function foldThinking(rec: ItemRecord): void {
  const parts = rec.thinking!;
  // A click opens or closes the fold at once, but its toggle event comes in a later task: an
  // update drawn in between must still count the reader's choice, not undo it.
  noteReaderChoice(parts, rec.key);
  const streaming = typeof rec.f.html !== "string";
  const open = parts.held || parts.expanded.has(rec.key) || (streaming && !parts.closed);
  rec.el.toggleAttribute("data-streaming", streaming);
  if (parts.details.open !== open) {
    parts.auto = open;
    parts.details.open = open;
  }
}
