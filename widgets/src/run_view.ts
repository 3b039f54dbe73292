// deepnb run view: the live transcript of one Deep Agents run, with its subagent tree,
// summarization cards, approval cards, file peek and async tasks (anywidget ESM module).
//
// Security: every string goes into the DOM through textContent / createTextNode / setAttribute of
// non-URL attributes. The only exceptions are the fields whose name ends in `html` (a finished
// text item's `html`, a summary's `summary_html`, an eval card's `code_html`, a peeked file's
// `html`), which Python has already rendered and escaped or sanitized (deepnb/core/text/markup.py); they alone
// are set with innerHTML.
//
// Performance: updates arrive up to 20 times a second, `items` can hold thousands of entries and
// `tree` dozens of subagents, so both are patched in place: one record per item id and per node
// id, new elements only for new ids, DOM writes only for fields that changed.
//
// Its parts are made and put in place by run/run_parts.ts, redrawn on each trait by
// run/run_handlers.ts (the kernel's messages routed by run/run_messages.ts), and its clicks and keys
// that no control handles itself are run/run_pointer.ts's; this module opens and closes the view.

import type { AnyModel, RenderProps } from "@anywidget/types";
import { watchKernel } from "./lib/kernel";
import { type NotebookManager, saveViewsAsSnapshots } from "./lib/saved_snapshots";
import { RUNNING } from "./schema";
import { drawRun, renderStatus, runHandlers } from "./run/run_handlers";
import { mountRun, type RunParts, runParts } from "./run/run_parts";
import { runPointer } from "./run/run_pointer";
import type { RunTraits } from "./types";

/** What closes the view: every listener off, every part disposed. */
function closeRun(p: RunParts, handlers: Record<string, (...args: any[]) => void>, undo: (() => void)[]): void {
  for (const [name, fn] of Object.entries(handlers)) p.model.off(name, fn);
  for (const fn of undo) fn();
  for (const part of [p.gate, p.header, p.tools, p.live, p.approvals, p.questions, p.tree, p.peek, p.tasks, p.threads,
    p.compose, p.timeline, p.model]) part.dispose();
  p.main.clear();
}

function render({ model: widget, el }: { model: AnyModel<RunTraits>; el: HTMLElement }): () => void {
  saveViewsAsSnapshots((widget as { widget_manager?: NotebookManager }).widget_manager);
  const p = runParts(widget, el);
  mountRun(el, p);
  const handlers = runHandlers(p);
  drawRun(p);
  for (const [name, fn] of Object.entries(handlers)) p.model.on(name, fn);
  const stopPointer = runPointer(p);
  const unwatch = watchKernel(widget, () => {
    p.gate.markGone();
    renderStatus(p);
  });
  // A view rendered while the run streams asks for what the traits don't have yet.
  if (p.model.get("status") === RUNNING) p.model.send({ type: "sync" });
  return () => closeRun(p, handlers, [stopPointer, unwatch]);
}

export default { render } satisfies { render(props: RenderProps<RunTraits>): () => void };
