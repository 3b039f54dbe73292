// What the run view says to assistive technology as it happens: the run's status changing
// (waiting for approval, resumed, finished, failed, stopped) and each new approval card or
// question, through one polite live region. A view rendered afresh announces nothing: only changes.

import { h } from "../lib/dom";
import { shownAs } from "../lib/statuses";
import { RUN_STATUS_SAID } from "../schema";
import { isObj, list, plural, str } from "../lib/text";
import type { Interrupt } from "../types";
import { agentName } from "./record";

export interface Announcer {
  /** The live region (visually hidden). */
  el: HTMLElement;
  /** Says `text` (the same text twice in a row is said again). */
  say(text: string): void;
  /** Announces what changed since the last call: the status, and the approval cards and
   * questions that were not pending before. Changes that arrive together (a status and its
   * cards come as separate trait changes) are said together, once the updates settle. */
  update(status: string, error: string, requests: unknown): void;
  dispose(): void;
}

/** What a change of the run's status is announced as (`""`: not announced). */
export function statusAnnouncement(before: string, now: string, error = ""): string {
  if (before === now) return "";
  if (now === "running") return before === "interrupted" ? "The run goes on." : "";
  const said = shownAs(RUN_STATUS_SAID, now, "");
  return now === "error" && error ? `${said} ${error}` : said;
}

/** "Approval needed: write_file, by subagent researcher." for each new card, one sentence. */
export function pendingAnnouncement(fresh: Interrupt[]): string {
  const parts: string[] = [];
  for (const request of fresh) {
    const who = agentName(request.agent);
    if (request.kind === "question") {
      parts.push(`Question from ${who}.`);
      continue;
    }
    const names = list(request.actions).filter(isObj).map((a) => str(a.name));
    if (names.length) parts.push(`Approval needed: ${names.join(", ")}, by ${who}.`);
  }
  return parts.join(" ");
}

export function announcer(): Announcer {
  const el = h("div", "dnb-announce");
  el.setAttribute("role", "status");
  el.setAttribute("aria-live", "polite");
  el.setAttribute("aria-atomic", "true");
  let last: string | null = null;
  let known: Set<string> | null = null; // interrupt ids seen (null: not yet: the first render says nothing)

  function say(text: string): void {
    if (!text) return;
    // The same words again are still news: a live region only speaks when its text changes.
    el.textContent = text === el.textContent ? `${text}\u00a0` : text;
  }

  let queued: string[] = []; // status changes first, then what is asked
  let asked: string[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;

  function update(now: string, error: string, requests: unknown): void {
    const changed = last === null ? "" : statusAnnouncement(last, now, error);
    last = now;
    const shown = list(requests).filter(isObj) as Interrupt[];
    const fresh = known === null ? [] : shown.filter((r) => !known!.has(str(r.id)));
    known = new Set(shown.map((r) => str(r.id)));
    let asks = pendingAnnouncement(fresh);
    if (asks && fresh.length > 1) asks += ` ${plural(fresh.length, "request")} pending.`;
    if (changed) queued.push(changed);
    if (asks) asked.push(asks);
    if ((queued.length || asked.length) && timer === undefined) {
      timer = setTimeout(() => {
        timer = undefined;
        say([...queued, ...asked].join(" "));
        queued = [];
        asked = [];
      }, 0);
    }
  }

  function dispose(): void {
    clearTimeout(timer);
    timer = undefined;
  }

  return { el, say, update, dispose };
}
