// What the run view does when a trait changes: a handler per trait (several parts redraw on a
// status or a pending change), and the first drawing of every part.

import { setText } from "../lib/dom";
import { str } from "../lib/text";
import { messageRouter } from "./run_messages";
import type { RunParts } from "./run_parts";

const announce = ({ live, model }: RunParts): void =>
  live.update(str(model.get("status")), str(model.get("error")), model.get("pending"));

export function renderProgress(p: RunParts): void {
  p.header.renderProgress();
  p.todos.renderProgress();
}

export function renderStatus(p: RunParts): void {
  p.header.renderStatus();
  p.items.renderFinal();
  announce(p);
  p.todos.render(); // a stopped or failed run shows its in-progress todos as interrupted
  p.approvals.render();
  p.questions.render();
  p.compose.render(); // Send once the run ended, Steer while it runs or waits
}

export function renderPending(p: RunParts): void {
  p.approvals.render();
  p.questions.render();
  p.header.renderStatus();
  announce(p);
}

export function renderControls(p: RunParts): void {
  p.header.renderControls();
  p.compose.render();
}

export const renderCss = (p: RunParts): void => setText(p.style, p.model.get("code_css"));

export function renderHeader(p: RunParts): void {
  p.header.renderHeader();
  p.root.setAttribute("aria-label", `deepnb run of agent ${str(p.model.get("agent"))}`);
}

/** The view's handlers on its model, by event. */
export function runHandlers(p: RunParts): Record<string, (...args: any[]) => void> {
  const pending = (): void => renderPending(p);
  const controls = (): void => renderControls(p);
  return {
    "change:items": p.items.render,
    "change:tree": p.items.renderTree,
    "change:async_tasks": p.tasks.render,
    "change:async_error": p.tasks.render,
    "msg:custom": messageRouter(p.peek, [p.compose, p.timeline, p.panels, p.threads]),
    "change:todos": p.todos.render,
    "change:progress": () => renderProgress(p),
    "change:status": () => renderStatus(p),
    "change:pending": pending,
    "change:card_errors": pending,
    "change:decisions": p.approvals.renderLog,
    "change:files_changed": p.files.render,
    "change:files_not_written": p.files.render,
    "change:given": p.given.render,
    "change:output": p.output.render,
    "change:error": p.error.render,
    "change:agent": () => renderHeader(p),
    "change:thread_id": () => { p.header.renderHeader(); p.panels.renderThread(); },
    "change:live_controls": controls,
    "change:stop_hint": controls,
    "change:turns": p.turns.render,
    "change:follow_up_cell": p.turns.render,
    "change:code_css": () => renderCss(p),
    "change:timeline": p.items.renderTimeline,
    "change:graph_path": p.panels.renderPath,
  };
}

/** Draws every part from the traits as they are. */
export function drawRun(p: RunParts): void {
  renderCss(p);
  renderHeader(p);
  renderControls(p);
  p.turns.render();
  renderProgress(p);
  p.todos.render();
  p.given.render();
  p.output.render();
  p.tree.render();
  p.items.render();
  p.tasks.render();
  p.peek.render();
  p.files.render();
  renderStatus(p);
  p.items.renderTimeline();
}
