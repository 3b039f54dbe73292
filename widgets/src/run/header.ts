// The run's header bar: status pill, agent and thread, steps, tool calls, elapsed time (ticking
// while the run runs), tokens, and the Stop button.

import { h, setText, show } from "../lib/dom";
import { shownAs } from "../lib/statuses";
import { fmtDuration, isObj, list, num, str, waitedWords } from "../lib/text";
import { RUN_STATUS_LABEL, RUNNING } from "../schema";
import type { RunStatus } from "../types";
import type { RunModel } from "./live_model";
import { stepsWords } from "./steps";
import { tokensWords } from "./tokens";

const WAITING_RUN: RunStatus = "interrupted";

/** The header's clock: run time, then the wait going on ("12.0 s · waiting 1m 05s") or, once the
 * run goes on or ends, the time it waited ("12.0 s (+ 1m 05s waiting)"), as the snapshot says it. */
export function clockText(elapsed: number, waited: number, waiting: number | null, status: string): string {
  const run = fmtDuration(elapsed);
  if (status === WAITING_RUN) return waiting === null ? `${run} · waiting` : `${run} · waiting ${fmtDuration(waiting)}`;
  return run + waitedWords(waited);
}

// The header's counts change with every streamed token: one formatter for all of them (a
// `toLocaleString("en-US")` per count builds a new one each time). Same text as lib/text's fmtInt.
const INTEGER = new Intl.NumberFormat("en-US");

/** A count as the header shows it: rounded, with thousands separators ("12,345"). */
export const count = (value: unknown): string => INTEGER.format(Math.round(num(value)));

/** The status pill of a running view whose kernel restarted or shut down. */
export const KERNEL_GONE = "kernel gone";

export interface HeaderView {
  el: HTMLElement;
  renderHeader(): void;
  renderControls(): void;
  renderProgress(): void;
  /** Shows the status; returns it. */
  renderStatus(): string;
  /** The kernel's clock (epoch seconds). */
  kernelNow(): number;
  /** Seconds the run has waited by now: its waits that are over and the one going on. */
  waitedNow(): number;
  dispose(): void;
}

/** `onTick` runs every second while the run runs (and whenever the clock is shown again); Stop
 * shows only while `live()` (no kernel, nothing to stop), and a running run whose kernel is gone
 * says "kernel gone" with its clock stopped. */
export function headerView(
  model: RunModel, root: HTMLElement, onTick: () => void, live: () => boolean = () => true,
): HeaderView {
  let stopping = false;
  let timer: ReturnType<typeof setInterval> | null = null;
  let anchor: number | null = null; // Date.now() - elapsed at the last progress update (clock-skew fallback)
  const bar = h("div", "dnb-progress");
  bar.setAttribute("role", "group");
  bar.setAttribute("aria-label", "Run status");
  const pill = h("span", "dnb-pill dnb-status");
  const agentEl = h("span", "dnb-agent");
  const threadEl = h("span", "dnb-thread dnb-muted");
  const stepsEl = h("span", "dnb-steps");
  const callsEl = h("span", "dnb-calls");
  const elapsedEl = h("span", "dnb-elapsed");
  const tokensEl = h("span", "dnb-tokens");
  const controls = h("span", "dnb-controls");
  const stopBtn = h("button", "dnb-stop", "Stop");
  stopBtn.type = "button";
  const hintEl = h("span", "dnb-stop-hint dnb-muted");
  controls.append(stopBtn, hintEl);
  const stats = h("span", "dnb-stats");
  stats.append(stepsEl, callsEl, elapsedEl, tokensEl);
  bar.append(pill, agentEl, threadEl, stats, controls);
  // The header sticks at the top of the scrolled notebook (run_view.css): what the view scrolls
  // to keeps clear of it by its height, which wraps to more lines in a narrow output.
  const sized = typeof ResizeObserver === "function" ? new ResizeObserver(() => {
    root.style.setProperty("--dnb-head-h", `${Math.ceil(bar.getBoundingClientRect().height)}px`);
  }) : null;
  sized?.observe(bar);

  let frozen: number | null = null; // the run's elapsed time when its kernel went away

  // Run time: the time spent waiting for decisions (`waited`, and the wait going on) is not in it.
  function elapsedNow(): number {
    const p = model.get("progress") || {};
    const elapsed = num(p.elapsed);
    if (model.get("status") !== RUNNING) return elapsed;
    if (frozen !== null) return frozen;
    const fromStart = p.started_at ? Date.now() / 1000 - num(p.started_at) - num(p.waited) : 0;
    const fromAnchor = anchor === null ? elapsed : (Date.now() - anchor) / 1000;
    return Math.max(fromStart, fromAnchor, elapsed);
  }

  /** Seconds of the wait going on (0 unless the run waits for a decision or an answer; `null`
   * while it waits since a time the view was not told). */
  function waitingNow(): number | null {
    const p = model.get("progress") || {};
    if (model.get("status") !== WAITING_RUN) return 0;
    return p.waiting_since ? Math.max(0, Date.now() / 1000 - num(p.waiting_since)) : null;
  }

  // The kernel's clock (epoch seconds): the run's start plus its run and waiting time, so subagent
  // durations agree with the run's even when the browser's clock is off.
  function kernelNow(): number {
    const p = model.get("progress") || {};
    return p.started_at ? num(p.started_at) + elapsedNow() + num(p.waited) + num(waitingNow()) : Date.now() / 1000;
  }

  function waitedNow(): number {
    return num((model.get("progress") || {}).waited) + num(waitingNow());
  }

  function tick(): void {
    setText(elapsedEl, clockText(elapsedNow(), num((model.get("progress") || {}).waited), waitingNow(),
      str(model.get("status"))));
    onTick();
  }

  function renderProgress(): void {
    const p = model.get("progress") || {};
    anchor = Date.now() - num(p.elapsed) * 1000;
    setText(stepsEl, stepsWords(p));
    setText(callsEl, `${count(p.tool_calls)} tool call${num(p.tool_calls) === 1 ? "" : "s"}`);
    setText(tokensEl, tokensWords(p));
    tick();
  }

  function renderStatus(): string {
    const status = str(model.get("status")) || RUNNING;
    root.setAttribute("data-status", status);
    const kinds = new Set(list(model.get("pending")).map((p) => (isObj(p) && p.kind) || "approval"));
    const asks = status === ("interrupted" satisfies RunStatus) && kinds.size === 1 && kinds.has("question");
    // A run still "running" whose kernel is gone will never end: the pill says so, the clock stops.
    const orphaned = status === RUNNING && !live();
    if (orphaned && frozen === null) frozen = elapsedNow();
    pill.setAttribute("data-status", orphaned ? "gone" : status);
    if (orphaned) root.setAttribute("data-kernel", "gone"); // spinners and the streaming cursor stop
    pill.title = orphaned ? "The kernel behind this view restarted or shut down: the run stopped with it." : "";
    setText(pill, orphaned ? KERNEL_GONE : asks ? "waiting for your answer" : shownAs(RUN_STATUS_LABEL, status, status));
    const running = status === RUNNING && !orphaned;
    const stoppable = running || status === WAITING_RUN; // a waiting run stops too: its cards are withdrawn
    if (!stoppable) stopping = false;
    show(controls, stoppable && live());
    stopBtn.disabled = stopping;
    setText(stopBtn, stopping ? "Stopping…" : "Stop");
    const ticking = running || status === WAITING_RUN; // a wait's clock ticks too
    if (ticking && timer === null) timer = setInterval(tick, 1000);
    if (!ticking && timer !== null) {
      clearInterval(timer);
      timer = null;
    }
    tick();
    return status;
  }

  function renderHeader(): void {
    setText(agentEl, model.get("agent"));
    const thread = str(model.get("thread_id"));
    setText(threadEl, thread ? `thread ${thread}` : "");
    show(threadEl, thread !== "");
  }

  function renderControls(): void {
    const hint = str(model.get("stop_hint"));
    setText(hintEl, hint);
    show(hintEl, hint !== "");
    stopBtn.title = model.get("live_controls") === false && hint ? hint : "Stop the run";
  }

  function onStop(): void {
    const status = model.get("status");
    if (stopping || !live() || (status !== RUNNING && status !== WAITING_RUN)) return;
    stopping = true;
    stopBtn.disabled = true;
    stopBtn.textContent = "Stopping…";
    model.send({ type: "stop" });
  }

  stopBtn.addEventListener("click", onStop);

  function dispose(): void {
    stopBtn.removeEventListener("click", onStop);
    sized?.disconnect();
    if (timer !== null) clearInterval(timer);
    timer = null;
  }

  return { el: bar, renderHeader, renderControls, renderProgress, renderStatus, kernelNow, waitedNow, dispose };
}
