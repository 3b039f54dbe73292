// Where the run's items are drawn: the main agent's in the main transcript; a subagent's in its node
// of the subagent tree (and in the main transcript, indented, when the tree has no such node). The
// main transcript's last text of a finished run is marked as its final answer, which the timeline's
// last step points at; the search and filters then run again over what was drawn.

import { show } from "../lib/dom";
import { str } from "../lib/text";
import type { RunErrorView } from "./run_error";
import type { Read } from "./live_model";
import type { TreeView } from "./subagent_tree";
import type { TimelineView } from "./timeline";
import { type Entry, finalAnswerKey, type ItemList, keyItems, markFinal } from "./transcript";
import type { TranscriptTools } from "./transcript_tools";

/** The items of the main transcript, and the subagents' by node id (those `has` a node for). */
export function splitItems(entries: Entry[], has: (node: string) => boolean): { main: Entry[]; byNode: Map<string, Entry[]> } {
  const main: Entry[] = [];
  const byNode = new Map<string, Entry[]>(); // node id → its entries
  for (const entry of entries) {
    const agent = str((entry.item as { agent?: unknown }).agent) || "main"; // error items name none
    if (agent === "main" || !has(agent)) main.push(entry);
    else if (byNode.has(agent)) byNode.get(agent)!.push(entry);
    else byNode.set(agent, [entry]);
  }
  return { main, byNode };
}

/** What draws the items: the main transcript, the tree's transcripts, the tools over them, the error. */
export interface ItemParts {
  main: ItemList;
  tree: TreeView;
  tools: TranscriptTools;
  timeline: TimelineView;
  error: RunErrorView;
}

export interface RunItems {
  /** The subagents' items, by node id, as last drawn. */
  groups(): Map<string, Entry[]>;
  /** Draws every item where it belongs. */
  render(): void;
  /** Marks the final answer (only the old and the new one are touched). */
  renderFinal(): void;
  renderTimeline(): void;
  /** Draws the tree; its items again when nodes came or went. */
  renderTree(): void;
}

export function runItems(model: { get: Read }, { main, tree, tools, timeline, error }: ItemParts): RunItems {
  let groups = new Map<string, Entry[]>();
  let mainEntries: Entry[] = [];
  let finalKey: string | null = null;

  function renderFinal(): void {
    const key = finalAnswerKey(mainEntries, str(model.get("status")));
    const old = finalKey === null ? undefined : main.records.get(finalKey);
    if (old && key !== finalKey) markFinal(old, false);
    const rec = key === null ? undefined : main.records.get(key);
    if (rec) markFinal(rec, true);
    finalKey = key;
    timeline.markSteps(main.records, finalKey); // the last step shows on the final answer
  }

  function render(): void {
    const split = splitItems(keyItems(model.get("items")), (node) => tree.has(node));
    main.sync(split.main);
    mainEntries = split.main;
    renderFinal();
    show(tools.el, split.main.length > 1);
    groups = split.byNode;
    tree.syncItems(split.byNode);
    tools.apply();
    error.render();
  }

  return {
    groups: () => groups,
    render,
    renderFinal,
    renderTimeline() {
      timeline.render();
      timeline.markSteps(main.records, finalKey);
    },
    renderTree() {
      if (tree.render()) render(); // nodes came or went: items may move between lists
    },
  };
}
