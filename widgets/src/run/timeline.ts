// The timeline: a collapsible waterfall of the run's model and tool calls over time, a lane per
// agent (subagents on their own), and the main agent's steps, each with "Fork here" (the kernel
// forks the thread at that step and answers with the new thread's id).

import { h, setText, show, smallButton } from "../lib/dom";
import { asksKernel } from "./kernel_gate";
import { isObj, list, num, str, waitedWords } from "../lib/text";
import type { ForkedMessage, TimelineBar, TimelinePayload } from "../types";
import type { RunModel } from "./live_model";

export interface TimelineView {
  el: HTMLElement;
  render(): void;
  /** Puts "step N · fork here" on the transcript items the main agent's steps made. */
  markSteps(records: Map<string, { el: HTMLElement }>, finalKey: string | null): void;
  receive(msg: unknown): boolean;
  dispose(): void;
}

const pct = (value: number, total: number): string => `${Math.min(100, (100 * value) / total).toFixed(2)}%`;

/** `openStep(step)`: a step's State button was clicked (the run view opens its state panel). */
export function timelineView(model: RunModel, openStep: (step: number) => void = () => {}): TimelineView {
  const el = h("details", "dnb-timeline");
  const summary = h("summary", "dnb-timeline-title", "Timeline");
  const chart = h("div", "dnb-tl-chart");
  chart.setAttribute("role", "list");
  chart.setAttribute("aria-label", "Model and tool calls over time");
  const steps = h("ol", "dnb-tl-steps");
  steps.setAttribute("aria-label", "Steps of the main agent");
  const said = h("div", "dnb-tl-forked");
  said.setAttribute("role", "status");
  said.setAttribute("aria-label", "Fork");
  el.append(summary, chart, steps, said);
  el.hidden = true;
  const chips = new Map<string, HTMLButtonElement>(); // transcript item key → its step's button
  let asking: HTMLButtonElement | null = null; // the button of the fork on its way: its answer shows there
  let stepBars: TimelineBar[] = [];

  function bar(b: TimelineBar, total: number): HTMLElement {
    const node = h("div", "dnb-tl-bar");
    node.setAttribute("data-kind", str(b.kind));
    node.setAttribute("role", "listitem");
    node.setAttribute("aria-label", str(b.label));
    node.title = str(b.label);
    const end = b.end === null || b.end === undefined ? total : num(b.end);
    node.style.left = pct(num(b.start), total);
    node.style.width = `max(2px, ${pct(Math.max(0, end - num(b.start)), total)})`;
    return node;
  }

  function render(): void {
    const data = (isObj(model.get("timeline")) ? model.get("timeline") : {}) as TimelinePayload;
    const bars = list(data.bars).filter(isObj) as TimelineBar[];
    show(el, bars.length > 0);
    const total = Math.max(num(data.total), 0.001);
    const models = bars.filter((b) => b.kind === "model").length;
    const left = num(data.left_out);
    setText(summary, `Timeline: ${models} model calls, ${bars.length - models} tool calls over ${total.toFixed(2)} s${waitedWords(data.waited)}` +
      (left ? ` (${left} earlier calls not shown)` : ""));
    chart.replaceChildren(...list(data.lanes).map((lane, i) => {
      const row = h("div", "dnb-tl-lane");
      const name = h("span", "dnb-tl-name", str(isObj(lane) ? lane.label : ""));
      name.title = str(isObj(lane) ? lane.agent : "");
      const track = h("div", "dnb-tl-track");
      track.append(...bars.filter((b) => b.lane === i).map((b) => bar(b, total)));
      row.append(name, track);
      return row;
    }));
    stepBars = bars.filter((b) => typeof b.step === "number");
    steps.replaceChildren(...stepBars.map((b) => {
      // the bar's label ends with its step (for the bar's tooltip): the row says it first
      const said = str(b.label).replace(/ · step \d+$/, "");
      const li = h("li", "dnb-tl-step", `step ${num(b.step)} · ${said} `);
      li.setAttribute("data-step", str(b.step));
      const fork = asksKernel(smallButton("dnb-btn dnb-tl-fork", "Fork here", `Make a new thread from step ${num(b.step)}`));
      fork.setAttribute("data-fork-step", str(b.step));
      const state = asksKernel(smallButton("dnb-btn dnb-tl-state", "State", `Step ${num(b.step)}'s state and what it changed`));
      state.setAttribute("data-state-step", str(b.step));
      li.append(state, " ", fork);
      return li;
    }));
  }

  function fork(btn: HTMLButtonElement): void {
    btn.disabled = true;
    asking = btn;
    btn.after(said); // the answer appears where the reader clicked: at the chip, or at the step
    setText(said, "Forking…");
    model.send({ type: "fork", step: Number(btn.getAttribute("data-fork-step")) });
  }

  function onClick(event: MouseEvent): void {
    const btn = (event.target as Element | null)?.closest?.<HTMLButtonElement>(".dnb-tl-fork");
    if (btn && steps.contains(btn)) fork(btn);
    const state = (event.target as Element | null)?.closest?.<HTMLButtonElement>(".dnb-tl-state");
    if (state && steps.contains(state)) openStep(Number(state.getAttribute("data-state-step")));
  }

  function markSteps(records: Map<string, { el: HTMLElement }>, finalKey: string | null): void {
    const wanted = new Map<string, TimelineBar>();
    for (const b of stepBars) wanted.set(b.item === "final" ? str(finalKey) : str(b.item), b);
    for (const [key, chip] of chips) {
      const rec = records.get(key);
      if (!wanted.has(key) || !rec || !rec.el.contains(chip)) {
        chip.remove();
        chips.delete(key);
      }
    }
    for (const [key, b] of wanted) {
      const rec = records.get(key);
      if (!rec || chips.has(key)) continue;
      const chip = asksKernel(smallButton("dnb-btn dnb-tl-fork dnb-step-fork", `step ${num(b.step)} · fork here`,
        `Make a new thread from step ${num(b.step)}`));
      chip.setAttribute("data-fork-step", str(b.step));
      chip.addEventListener("click", () => fork(chip));
      chips.set(key, chip);
      rec.el.append(chip);
    }
  }

  function receive(msg: unknown): boolean {
    if (!isObj(msg) || msg.type !== "forked") return false;
    const m = msg as unknown as ForkedMessage;
    const buttons = [...steps.querySelectorAll<HTMLButtonElement>(".dnb-tl-fork"), ...chips.values()];
    for (const btn of buttons) btn.disabled = false;
    said.replaceChildren();
    if (!asking || !asking.isConnected) { // its button went meanwhile: the answer shows in the timeline
      el.append(said);
      el.open = true;
    }
    asking = null;
    if (m.error) said.append(h("span", "dnb-error", m.error));
    else {
      said.append(`New thread ${str(m.thread_id)} from step ${num(m.step)}: continue with `,
        h("code", "dnb-tl-continue", `%%deepagent -t ${str(m.thread_id)}`));
    }
    return true;
  }

  steps.addEventListener("click", onClick);
  return { el, render, markSteps, receive, dispose: () => steps.removeEventListener("click", onClick) };
}
