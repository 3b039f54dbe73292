// The batch's head line: how many runs ended, by status, a progress bar, the time so far and an
// estimate of the time left; the clock moves between the kernel's updates.

import { h, setText } from "../lib/dom";
import { shownAs } from "../lib/statuses";
import { fmtElapsed, isObj, num, plural } from "../lib/text";
import { RUN_STATUS_LABEL } from "../schema";

export interface ProgressView {
  el: HTMLElement;
  bar: HTMLProgressElement;
  set(progress: unknown): void;
  tick(): void;
}

const ORDER = ["running", "interrupted", "queued", "done", "error", "cancelled"];

export function progressView(): ProgressView {
  const el = h("div", "dnb-batch-progress");
  const bar = h("progress", "dnb-batch-bar");
  bar.setAttribute("aria-label", "Runs ended");
  const text = h("span", "dnb-batch-counts");
  const clock = h("span", "dnb-batch-clock");
  el.append(bar, text, clock);
  let last: Record<string, any> = {};
  let at = Date.now();

  function tick(): void {
    const running = num(last.running) > 0 || num(last.queued) > 0;
    const since = running ? (Date.now() - at) / 1000 : 0;
    const parts = [fmtElapsed(num(last.elapsed) + since)];
    if (last.eta !== null && last.eta !== undefined && running) {
      parts.push(`about ${fmtElapsed(Math.max(0, num(last.eta) - since))} left`);
    }
    setText(clock, parts.join(" · "));
  }

  return {
    el,
    bar,
    set(progress: unknown): void {
      if (!isObj(progress)) return;
      last = progress;
      at = Date.now();
      const total = num(progress.total);
      bar.max = Math.max(1, total);
      bar.value = num(progress.ended);
      const counts = ORDER.filter((key) => num(progress[key]) > 0)
        .map((key) => `${num(progress[key])} ${shownAs(RUN_STATUS_LABEL, key, key)}`);
      setText(text, `${num(progress.ended)} of ${plural(total, "run")} ended${counts.length ? ` (${counts.join(", ")})` : ""}`);
      tick();
    },
    tick,
  };
}
