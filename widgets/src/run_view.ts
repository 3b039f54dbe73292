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

import type { AnyModel, RenderProps } from "@anywidget/types";
import { h, setText, show } from "./lib/dom";
import { watchKernel } from "./lib/kernel";
import { type NotebookManager, saveViewsAsSnapshots } from "./lib/saved_snapshots";
import { isObj, str } from "./lib/text";
import { RUNNING } from "./schema";
import { approvalsView } from "./run/approvals";
import { announcer } from "./run/announcer";
import { asyncView } from "./run/async_tasks";
import { composeView } from "./run/compose";
import { peekView } from "./run/file_peek";
import { givenView } from "./run/given";
import { asksKernel, kernelGate } from "./run/kernel_gate";
import { outputView } from "./run/output";
import { panels as panelsView } from "./run/panels";
import { questionsView } from "./run/questions";
import { headerView } from "./run/header";
import { liveModel } from "./run/live_model";
import { panelMemory, runMemory } from "./run/memory";
import { treeView } from "./run/subagent_tree";
import { threadsView } from "./run/threads";
import { timelineView } from "./run/timeline";
import { todosView } from "./run/todos";
import { setExpanded } from "./run/tool_card";
import { type Entry, finalAnswerKey, ITEM_RECS, itemList, keyItems, markFinal } from "./run/transcript";
import { transcriptTools } from "./run/transcript_tools";
import { turnsView } from "./run/turns";
import type { FileMessage, RunTraits } from "./types";

const HEADS = ".dnb-tool-head, .dnb-node-head";

function render({ model: widget, el }: { model: AnyModel<RunTraits>; el: HTMLElement }): () => void {
  saveViewsAsSnapshots((widget as { widget_manager?: NotebookManager }).widget_manager);
  const root = h("div", "deepnb deepnb-run");
  // No kernel behind the view: cards and Stop go, every other control that asks the kernel says so.
  const gate = kernelGate(root, el);
  const gone = gate.gone;
  const model = liveModel(widget, gone);
  const st = runMemory(model);
  const expanded = st.expanded;

  root.setAttribute("role", "region");
  const live = announcer(); // run status, new approval cards, the run's end: said as they happen
  const style = h("style");
  const header = headerView(model, root, () => tree.tick(), () => !gone());
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
  let groups = new Map<string, Entry[]>(); // the subagents' items, by node id, as last drawn
  const tools = transcriptTools({
    records: () => [...main.records.values(), ...tree.records()],
    *folded() { for (const entry of groups) if (!tree.isOpen(entry[0])) yield entry; },
    openNodes(ids, open) {
      for (const id of ids) tree.searchOpen(id, open);
      tree.syncItems(groups);
    },
    scope: () => root,
  }, expanded);
  const tree = treeView(model, st, expanded, header.kernelNow, () => renderItems(), header.waitedNow);
  const peek = peekView(model, st);
  const tasks = asyncView(model);
  const approvals = approvalsView(model, st, undefined, gone);
  const questions = questionsView(model, st, undefined, gone);
  const threads = threadsView(model);
  const panels = panelsView(model, panelMemory(st)); // the Graph tab and the step state panel
  const timeline = timelineView(model, panels.openStep);
  const turns = turnsView(model); // the turns before a follow-up sent from the box
  const compose = composeView(model, () => !gone());
  const filesEl = h("div", "dnb-files");
  const filesPeek = h("div", "dnb-files-peek"); // a file opened from "Files changed" shows right under it
  const errorEl = h("div", "dnb-error dnb-run-error");
  root.append(style, header.el, given.el, peek.el, todos.el, tree.el, tasks.el, tools.el, turns.el, transcript, output.el,
    questions.el, approvals.el, approvals.log, filesEl, filesPeek, errorEl, compose.el, turns.cell, timeline.el, panels.el, threads.el, live.el);
  el.replaceChildren(root);

  // The main transcript shows the main agent's items; a subagent's items go to its node in the
  // tree (and stay here, indented, when the tree has no such node).
  function renderItems(): void {
    const mainItems: Entry[] = [];
    const byNode = new Map<string, Entry[]>(); // node id → its entries
    for (const entry of keyItems(model.get("items"))) {
      const agent = str((entry.item as { agent?: unknown }).agent) || "main"; // error items name none
      if (agent === "main" || !tree.has(agent)) mainItems.push(entry);
      else if (byNode.has(agent)) byNode.get(agent)!.push(entry);
      else byNode.set(agent, [entry]);
    }
    main.sync(mainItems);
    mainEntries = mainItems;
    renderFinal();
    show(tools.el, mainItems.length > 1);
    groups = byNode;
    tree.syncItems(byNode);
    tools.apply();
    renderError();
  }

  let mainEntries: Entry[] = [];
  let finalKey: string | null = null;
  function renderFinal(): void { // only the old and the new final answer are touched
    const key = finalAnswerKey(mainEntries, str(model.get("status")));
    const old = finalKey === null ? undefined : main.records.get(finalKey);
    if (old && key !== finalKey) markFinal(old, false);
    const rec = key === null ? undefined : main.records.get(key);
    if (rec) markFinal(rec, true);
    finalKey = key;
    timeline.markSteps(main.records, finalKey); // the last step shows on the final answer
  }

  function renderTimeline(): void {
    timeline.render();
    timeline.markSteps(main.records, finalKey);
  }

  function renderTree(): void {
    if (tree.render()) renderItems(); // nodes came or went: items may move between lists
  }

  function onClick(event: MouseEvent): void {
    const target = event.target as Element | null;
    if (!target || !target.closest) return;
    const file = target.closest<HTMLElement>(".dnb-file-open");
    if (file && root.contains(file)) {
      peek.open(file.textContent || "", filesPeek);
      return;
    }
    const btn = target.closest("button");
    if (btn) {
      const node = btn.classList.contains("dnb-show-subagent") && btn.getAttribute("data-node");
      const path = btn.classList.contains("dnb-summary-open") && btn.getAttribute("data-path");
      if (node) tree.reveal(node);
      if (path) peek.open(path, btn.closest<HTMLElement>(".dnb-summary"));
      if (btn.classList.contains("dnb-expand")) {
        btn.disabled = true;
        btn.textContent = "loading…";
        model.send({ type: "expand" });
      }
      return; // other buttons have their own handlers
    }
    const head = target.closest<HTMLElement>(HEADS);
    if (!head || !root.contains(head)) return;
    const sel = window.getSelection && window.getSelection();
    if (sel && !sel.isCollapsed && head.contains(sel.anchorNode)) return; // selecting text
    toggle(head);
  }

  function onKeyDown(event: KeyboardEvent): void {
    if (event.key !== "Enter" && event.key !== " ") return;
    const head = event.target as HTMLElement;
    if (head.matches && head.matches(".dnb-file-open") && root.contains(head)) {
      event.preventDefault();
      peek.open(head.textContent || "", filesPeek);
      return;
    }
    if (!head.matches || !head.matches(HEADS) || !root.contains(head)) return; // not a button in it
    event.preventDefault();
    toggle(head);
  }

  function toggle(head: HTMLElement): void {
    if (head.classList.contains("dnb-node-head")) return tree.toggle(head);
    const rec = ITEM_RECS.get(head.closest(".dnb-item") as Element);
    if (!rec || rec.kind !== "tool") return;
    const open = rec.tool!.open;
    if (open) expanded.delete(rec.key);
    else expanded.add(rec.key);
    setExpanded(rec, !open);
  }

  function onMessage(msg: unknown): void {
    if (isObj(msg) && msg.type === "file") peek.receive(msg as FileMessage);
    else if (!compose.receive(msg) && !timeline.receive(msg) && !panels.receive(msg)) threads.receive(msg);
  }

  function renderProgress(): void {
    header.renderProgress();
    todos.renderProgress();
  }

  function announce(): void {
    live.update(str(model.get("status")), str(model.get("error")), model.get("pending"));
  }

  function renderStatus(): void {
    header.renderStatus();
    renderFinal();
    announce();
    todos.render(); // a stopped or failed run shows its in-progress todos as interrupted
    approvals.render();
    questions.render();
    compose.render(); // Send once the run ended, Steer while it runs or waits
  }

  function renderPending(): void {
    approvals.render();
    questions.render();
    header.renderStatus();
    announce();
  }

  function renderFiles(): void {
    const files = model.get("files_changed") || [];
    const notWritten = model.get("files_not_written") || []; // absent from views saved before it
    show(filesEl, files.length + notWritten.length > 0);
    const parts: Node[] = [];
    const list = (label: string, paths: string[], wrap: (code: HTMLElement) => HTMLElement): void => {
      if (!paths.length) return;
      if (parts.length) parts.push(h("br"));
      parts.push(h("span", "dnb-files-label", label));
      paths.forEach((path, i) => {
        if (i) parts.push(document.createTextNode(", "));
        parts.push(wrap(h("code", "dnb-file", path)));
      });
    };
    list("Files changed: ", files, (code) => { // a click (or Enter) opens the file in the file peek
      asksKernel(code).classList.add("dnb-file-open");
      code.setAttribute("role", "button");
      code.tabIndex = 0;
      code.title = `Open ${code.textContent}`;
      return code;
    });
    list("Not written: ", notWritten, (code) => {
      const struck = h("s", "dnb-file-not-written");
      struck.append(code);
      return struck;
    });
    filesEl.replaceChildren(...parts);
  }

  function renderError(): void {
    // The run's error also arrives as an error item; only show it here when it does not.
    const error = str(model.get("error"));
    const visible = error !== "" &&
      ![...main.records.values()].some((rec) => rec.kind === "error" && rec.f.text === error);
    show(errorEl, visible);
    setText(errorEl, visible ? `Error: ${error}` : "");
  }

  function renderControls(): void {
    header.renderControls();
    compose.render();
  }

  const renderCss = (): void => setText(style, model.get("code_css"));

  function renderHeader(): void {
    header.renderHeader();
    root.setAttribute("aria-label", `deepnb run of agent ${str(model.get("agent"))}`);
  }

  const handlers: Record<string, (...args: any[]) => void> = {
    "change:items": renderItems,
    "change:tree": renderTree,
    "change:async_tasks": tasks.render,
    "change:async_error": tasks.render,
    "msg:custom": onMessage,
    "change:todos": todos.render,
    "change:progress": renderProgress,
    "change:status": renderStatus,
    "change:pending": renderPending,
    "change:card_errors": renderPending,
    "change:decisions": approvals.renderLog,
    "change:files_changed": renderFiles,
    "change:files_not_written": renderFiles,
    "change:given": given.render,
    "change:output": output.render,
    "change:error": renderError,
    "change:agent": renderHeader,
    "change:thread_id": () => { header.renderHeader(); panels.renderThread(); },
    "change:live_controls": renderControls,
    "change:stop_hint": renderControls,
    "change:turns": turns.render,
    "change:follow_up_cell": turns.render,
    "change:code_css": renderCss,
    "change:timeline": renderTimeline,
    "change:graph_path": panels.renderPath,
  };

  renderCss();
  renderHeader();
  renderControls();
  turns.render();
  renderProgress();
  todos.render();
  given.render();
  output.render();
  tree.render();
  renderItems();
  tasks.render();
  peek.render();
  renderFiles();
  renderStatus();
  renderTimeline();
  for (const [name, fn] of Object.entries(handlers)) model.on(name, fn);
  root.addEventListener("click", onClick);
  root.addEventListener("keydown", onKeyDown);
  const unwatch = watchKernel(widget, () => {
    gate.markGone();
    renderStatus();
  });
  // A view rendered while the run streams asks for what the traits don't have yet.
  if (model.get("status") === RUNNING) model.send({ type: "sync" });

  return () => {
    for (const [name, fn] of Object.entries(handlers)) model.off(name, fn);
    root.removeEventListener("click", onClick);
    root.removeEventListener("keydown", onKeyDown);
    unwatch();
    gate.dispose();
    header.dispose();
    tools.dispose();
    live.dispose();
    approvals.dispose();
    questions.dispose();
    tree.dispose();
    peek.dispose();
    tasks.dispose();
    threads.dispose();
    compose.dispose();
    timeline.dispose();
    model.dispose();
    main.clear();
  };
}

export default { render } satisfies { render(props: RenderProps<RunTraits>): () => void };
