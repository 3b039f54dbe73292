// The run view's parts, made in the order the view has always made them (the order they listen to
// the model in): the frame (root, kernel gate, live model, memory, announcer, style), the header,
// todos, what was given, output, the main transcript, its tools, the subagent tree, the file peek,
// async tasks, approvals, questions, threads, the Graph and step state panels, timeline, turns, the
// follow-up box, files changed, the error, and what draws the items; then put in the order they show.

import type { AnyModel } from "@anywidget/types";
import { h } from "../lib/dom";
import type { RunTraits } from "../types";
import { type Announcer, announcer } from "./announcer";
import { type ApprovalsView, approvalsView } from "./approvals";
import { type AsyncView, asyncView } from "./async_tasks";
import { type ComposeView, composeView } from "./compose";
import { type PeekView, peekView } from "./file_peek";
import { type FilesChangedView, filesChangedView } from "./files_changed";
import { type GivenView, givenView } from "./given";
import { type HeaderView, headerView } from "./header";
import { asksKernel, type KernelGate, kernelGate } from "./kernel_gate";
import { liveModel, type RunModel } from "./live_model";
import { panelMemory, type RunMemory, runMemory } from "./memory";
import { type OutputView, outputView } from "./output";
import { type Panels, panels as panelsView } from "./panels";
import { type QuestionsView, questionsView } from "./questions";
import { type RunErrorView, runErrorView } from "./run_error";
import { type RunItems, runItems } from "./run_items";
import { type TreeView, treeView } from "./subagent_tree";
import { type ThreadsView, threadsView } from "./threads";
import { type TimelineView, timelineView } from "./timeline";
import { type TodosView, todosView } from "./todos";
import { type Entry, type ItemList, itemList } from "./transcript";
import { type TranscriptTools, transcriptTools } from "./transcript_tools";
import { type TurnsView, turnsView } from "./turns";

export interface RunParts {
  root: HTMLElement;
  /** No kernel behind the view: cards and Stop go, every other control that asks the kernel says so. */
  gate: KernelGate;
  model: RunModel;
  st: RunMemory;
  /** Run status, new approval cards, the run's end: said as they happen. */
  live: Announcer;
  style: HTMLStyleElement;
  header: HeaderView;
  todos: TodosView;
  given: GivenView;
  output: OutputView;
  transcript: HTMLElement;
  main: ItemList;
  tools: TranscriptTools;
  tree: TreeView;
  peek: PeekView;
  tasks: AsyncView;
  approvals: ApprovalsView;
  questions: QuestionsView;
  threads: ThreadsView;
  /** The Graph tab and the step state panel. */
  panels: Panels;
  timeline: TimelineView;
  /** The turns before a follow-up sent from the box. */
  turns: TurnsView;
  compose: ComposeView;
  files: FilesChangedView;
  error: RunErrorView;
  /** What draws the items where they belong. */
  items: RunItems;
}

/** Every part of the view, in its order. */
export function runParts(widget: AnyModel<RunTraits>, el: HTMLElement): RunParts {
  const root = h("div", "deepnb deepnb-run");
  const gate = kernelGate(root, el);
  const model = liveModel(widget, gate.gone);
  const st = runMemory(model);
  const expanded = st.expanded;
  root.setAttribute("role", "region");
  const live = announcer();
  const style = h("style");
  const header = headerView(model, root, () => tree.tick(), () => !gate.gone());
  const stop = header.el.querySelector(".dnb-stop");
  if (stop) asksKernel(stop);
  const todos = todosView(model);
  const given = givenView(model);
  const output = outputView(model);
  const transcript = h("div", "dnb-transcript");
  transcript.setAttribute("role", "log");
  transcript.setAttribute("aria-label", "Transcript");
  const main = itemList(transcript, expanded);
  // The search and filters cover the main transcript and the open subagents' transcripts.
  const tools = transcriptTools({
    records: () => [...main.records.values(), ...tree.records()],
    *folded(): Iterable<[string, Entry[]]> { for (const entry of items.groups()) if (!tree.isOpen(entry[0])) yield entry; },
    openNodes(ids, open) {
      for (const id of ids) tree.searchOpen(id, open);
      tree.syncItems(items.groups());
    },
    scope: () => root,
  }, expanded);
  const tree = treeView(model, st, expanded, header.kernelNow, () => items.render(), header.waitedNow);
  const peek = peekView(model, st);
  const tasks = asyncView(model);
  const approvals = approvalsView(model, st, undefined, gate.gone);
  const questions = questionsView(model, st, undefined, gate.gone);
  const threads = threadsView(model);
  const panels = panelsView(model, panelMemory(st));
  const timeline = timelineView(model, panels.openStep);
  const turns = turnsView(model);
  const compose = composeView(model, () => !gate.gone());
  const files = filesChangedView(model);
  const error = runErrorView(model, () => main.records.values());
  const items = runItems(model, { main, tree, tools, timeline, error });
  return { root, gate, model, st, live, style, header, todos, given, output, transcript, main, tools, tree, peek, tasks,
    approvals, questions, threads, panels, timeline, turns, compose, files, error, items };
}

/** Puts the parts into `el`, in the order they show. */
export function mountRun(el: HTMLElement, p: RunParts): void {
  p.root.append(p.style, p.header.el, p.given.el, p.peek.el, p.todos.el, p.tree.el, p.tasks.el, p.tools.el, p.turns.el,
    p.transcript, p.output.el, p.questions.el, p.approvals.el, p.approvals.log, p.files.el, p.files.peek, p.error.el,
    p.compose.el, p.turns.cell, p.timeline.el, p.panels.el, p.threads.el, p.live.el);
  el.replaceChildren(p.root);
}
