// The "Subagents" panel: one card per subagent node, patched in place by node id. Parallel
// siblings share a wrapping row; a nested subagent's card sits inside its parent's card. Opening a
// card shows the transcript items whose agent is that node, rendered like the main transcript's.

import { h, keepOnly, ownKeys, placeAt, setAttr, setText, show } from "../lib/dom";
import { shownAs } from "../lib/statuses";
import { fmtDuration, fmtInt, isObj, known, list, num, plural, sameAnswer, str, waitedWords } from "../lib/text";
import { NODE_STATUS_LABEL, RUNNING } from "../schema";
import type { TreeNode } from "../types";
import type { RunModel } from "./live_model";
import type { RunMemory } from "./memory";
import { changed, differs, type ItemRecord } from "./record";
import { type Entry, type ItemList, itemList } from "./transcript";
import { tokensWords } from "./tokens";

/** " (1 not run, 2 failed)": the calls that did not do their work (declined, or answered in their
 * place), so a "✓ done" node says so. */
export function callsHint(declined: unknown, failed: unknown): string {
  const parts = [num(declined) ? `${fmtInt(declined)} not run` : "", num(failed) ? `${fmtInt(failed)} failed` : ""];
  const shown = parts.filter(Boolean);
  return shown.length ? ` (${shown.join(", ")})` : "";
}

interface NodeRecord {
  id: string;
  el: HTMLElement;
  head: HTMLElement;
  f: Record<string, any>;
  open: boolean;
  caret: HTMLElement;
  label: HTMLElement;
  badge: HTMLElement;
  desc: HTMLElement;
  duration: HTMLElement;
  calls: HTMLElement;
  tokens: HTMLElement;
  activity: HTMLElement;
  result: HTMLElement;
  body: HTMLElement;
  transcript: HTMLElement;
  empty: HTMLElement;
  resultLabel: HTMLElement;
  resultFull: HTMLElement;
  children: HTMLElement;
  items: ItemList;
  /** The node's own transcript, open, already ends with its answer: no "Result" block again. */
  answered: boolean;
}

function makeNode(id: string, expanded: Set<string>): NodeRecord {
  const el = h("div", "dnb-node");
  el.setAttribute("data-node", id);
  const head = ownKeys(h("div", "dnb-node-head"));
  head.setAttribute("role", "button");
  head.setAttribute("tabindex", "0");
  const transcript = h("div", "dnb-node-transcript");
  const rec: NodeRecord = {
    id, el, head, f: {}, open: false,
    caret: h("span", "dnb-node-caret", "▸"),
    label: h("span", "dnb-node-label"),
    badge: h("span", "dnb-badge dnb-node-status"),
    desc: h("div", "dnb-node-desc"),
    duration: h("span", "dnb-node-duration"),
    calls: h("span", "dnb-node-calls"),
    tokens: h("span", "dnb-node-tokens"),
    activity: h("div", "dnb-node-activity"),
    result: h("div", "dnb-node-result"),
    body: h("div", "dnb-node-body"),
    transcript,
    empty: h("div", "dnb-node-empty dnb-muted", "No messages yet."),
    resultLabel: h("div", "dnb-detail-label", "Result"),
    resultFull: h("pre", "dnb-pre dnb-node-result-full"),
    children: h("div", "dnb-node-row dnb-node-children"),
    items: itemList(transcript, expanded),
    answered: false,
  };
  const top = h("div", "dnb-node-top");
  top.append(rec.caret, rec.label, rec.badge);
  const stats = h("div", "dnb-node-stats");
  stats.append(rec.duration, rec.calls, rec.tokens);
  head.append(top, rec.desc, stats, rec.activity, rec.result);
  rec.body.append(rec.transcript, rec.empty, rec.resultLabel, rec.resultFull);
  rec.children.hidden = true;
  el.append(head, rec.body, rec.children);
  setNodeOpen(rec, false);
  return rec;
}

function setNodeOpen(rec: NodeRecord, open: boolean): void {
  rec.open = open;
  rec.el.classList.toggle("dnb-open", open);
  rec.head.setAttribute("aria-expanded", open ? "true" : "false");
  rec.caret.textContent = open ? "▾" : "▸";
  show(rec.body, open);
  if (open) fillNodeResult(rec);
  else rec.items.clear(); // a closed card keeps no transcript elements
}

function fillNodeResult(rec: NodeRecord): void {
  // As with tool cards, the full result is only put into the DOM while the card is open.
  // When the node's own transcript ends with its answer, the "Result" block stays hidden.
  const result = str(rec.f.result_full);
  show(rec.resultLabel, result !== "" && !rec.answered);
  show(rec.resultFull, result !== "" && !rec.answered);
  setText(rec.resultFull, result);
}

function patchNode(rec: NodeRecord, node: TreeNode): boolean {
  if (differs(rec, "label", str(node.label) || str(node.name) || rec.id.split("/").pop())) {
    setText(rec.label, rec.f.label);
  }
  if (differs(rec, "title", `${rec.id}${node.source ? ` · via ${str(node.source)}` : ""}`)) {
    rec.label.title = rec.f.title;
  }
  if (changed(rec, node, "status")) {
    const status = str(rec.f.status) || RUNNING;
    setAttr(rec.el, "data-status", status);
    setAttr(rec.badge, "data-status", status);
    setText(rec.badge, shownAs(NODE_STATUS_LABEL, status, status));
  }
  if (changed(rec, node, "description")) {
    const text = str(rec.f.description);
    setText(rec.desc, text);
    rec.desc.title = text;
    show(rec.desc, text !== "");
  }
  const declinedChanged = changed(rec, node, "calls_declined");
  const failedChanged = changed(rec, node, "calls_failed");
  if (changed(rec, node, "tool_calls") || declinedChanged || failedChanged) {
    const hint = callsHint(rec.f.calls_declined, rec.f.calls_failed);
    setText(rec.calls, plural(rec.f.tool_calls, "tool call") + hint);
    rec.calls.classList.toggle("dnb-node-calls-hint", hint !== "");
  }
  const tokensChanged = ["tokens_in", "tokens_out", "tokens_reasoning", "tokens_unreported"]
    .map((name) => changed(rec, node, name)).some(Boolean);
  if (tokensChanged) setText(rec.tokens, tokensWords(rec.f));
  const resultChanged = changed(rec, node, "result");
  if (changed(rec, node, "activity") || resultChanged) {
    const result = str(rec.f.result);
    const activity = str(rec.f.activity);
    setText(rec.result, result);
    rec.result.title = result;
    show(rec.result, result !== "");
    setText(rec.activity, activity);
    rec.activity.title = activity;
    show(rec.activity, activity !== "" && result === ""); // the result replaces the activity
  }
  if (changed(rec, node, "result_full") && rec.open) fillNodeResult(rec);
  changed(rec, node, "started_at");
  changed(rec, node, "finished_at");
  changed(rec, node, "waited_at_start");
  changed(rec, node, "waited");
  return resultChanged;
}

/** How long a subagent ran, or has been running by the kernel's clock `now` (epoch seconds), less
 * the time the run waited meanwhile (`waitedNow`: the run's seconds waited by now), which is said
 * apart as the header says it: "4.2 s (+ 1m 05s waiting)". */
export function nodeDuration(
  f: { started_at?: unknown; finished_at?: unknown; waited_at_start?: unknown; waited?: unknown },
  now: number, waitedNow = 0,
): string {
  if (!known(f.started_at)) return "";
  const ended = known(f.finished_at);
  const waited = ended ? num(f.waited) : Math.max(0, waitedNow - num(f.waited_at_start));
  const seconds = Math.max(0, (ended ? num(f.finished_at) : now) - num(f.started_at) - waited);
  return fmtDuration(seconds) + waitedWords(waited);
}

/** Each node's parent id ("" for the top level): its `parent` when that node exists, else the
 * node that lists it among its `children`. */
export function parentsOf(byId: Map<string, TreeNode>): Map<string, string> {
  const parents = new Map<string, string>();
  for (const [id, node] of byId) {
    for (const child of list(node.children).map(str)) {
      if (child !== id && byId.has(child) && !parents.has(child)) parents.set(child, id);
    }
  }
  for (const [id, node] of byId) {
    const parent = str(node.parent);
    if (parent !== id && byId.has(parent)) parents.set(id, parent);
    else if (!parents.has(id)) parents.set(id, "");
  }
  return parents;
}

/** "2 running · 1 done", statuses in their usual order. */
export function countsText(byId: Map<string, TreeNode>): string {
  const counts = new Map<string, number>();
  for (const node of byId.values()) {
    const status = str(node.status) || RUNNING;
    counts.set(status, (counts.get(status) || 0) + 1);
  }
  const order: string[] = Object.keys(NODE_STATUS_LABEL); // the statuses in the schema's order
  const statuses = [...counts.keys()].sort((a, b) =>
    (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
  return statuses.map((status) => `${fmtInt(counts.get(status))} ${status}`).join(" · ");
}

export interface TreeView {
  el: HTMLElement;
  /** Patches the cards; true when nodes came or went (items may then change lists), or an open
   * card's answer came (its transcript may already show it). */
  render(): boolean;
  /** Shows each open card's items; `groups` maps a node id to its entries. */
  syncItems(groups: Map<string, Entry[]>): void;
  has(id: string): boolean;
  toggle(head: HTMLElement): void;
  /** The item records of the open cards' transcripts (closed cards hold none). */
  records(): Iterable<ItemRecord>;
  /** Whether a node's card is open (its transcript shown). */
  isOpen(id: string): boolean;
  /** Opens a node's card for the search (`open`), or gives it back the state its reader left it
   * in; what readers opened and closed stays as they left it. Its items are drawn by the caller. */
  searchOpen(id: string, open: boolean): void;
  /** Opens a node's card and brings it into view (the task card's "show subagent"). */
  reveal(id: string): void;
  tick(): void;
  dispose(): void;
}

/** The "Subagents" panel. `now()` gives the kernel's clock; `fill()` renders the transcripts of
 * the open cards (it calls `syncItems`). */
export function treeView(
  model: RunModel, st: RunMemory, expanded: Set<string>, now: () => number, fill: () => void,
  waitedNow: () => number = () => 0,
): TreeView {
  const nodes = new Map<string, NodeRecord>(); // node id → record
  const ticking = new Set<NodeRecord>(); // records of nodes that have not finished
  const el = h("div", "dnb-tree");
  el.setAttribute("role", "region");
  el.setAttribute("aria-label", "Subagents");
  el.hidden = true;
  const head = h("div", "dnb-tree-head");
  const counts = h("span", "dnb-tree-counts dnb-muted");
  head.append(h("span", "dnb-tree-title", "Subagents"), counts);
  const roots = h("div", "dnb-node-row dnb-tree-roots");
  el.append(head, roots);
  let flash: ReturnType<typeof setTimeout> | undefined;

  function render(): boolean {
    const byId = new Map<string, TreeNode>();
    for (const node of list(model.get("tree"))) {
      if (isObj(node) && str(node.id) !== "" && !byId.has(str(node.id))) byId.set(str(node.id), node as TreeNode);
    }
    const parents = parentsOf(byId);
    const kids = new Map<string, string[]>([["", []]]);
    for (const id of byId.keys()) {
      const parent = parents.get(id)!;
      if (!kids.has(parent)) kids.set(parent, []);
      kids.get(parent)!.push(id);
    }
    const clock = now();
    const seen = new Set<string>();
    let added = false;
    let answers = false; // an open node's answer came: its transcript may show it already
    const place = (container: HTMLElement, ids: string[], prev: HTMLElement | null = null): HTMLElement | null => {
      for (const id of ids) {
        if (seen.has(id)) continue;
        seen.add(id);
        let rec = nodes.get(id);
        if (!rec) {
          nodes.set(id, (rec = makeNode(id, expanded)));
          if (st.nodesOpen.has(id)) setNodeOpen(rec, true);
          added = true;
        }
        if (patchNode(rec, byId.get(id)!) && rec.open) answers = true;
        if (known(rec.f.finished_at)) ticking.delete(rec);
        else ticking.add(rec);
        setText(rec.duration, nodeDuration(rec.f, clock, waitedNow()));
        placeAt(container, rec.el, prev);
        prev = rec.el;
        place(rec.children, kids.get(id) || []);
      }
      return prev;
    };
    let last = place(roots, kids.get("")!);
    for (const id of byId.keys()) { // a loop of parents: shown at the top level
      if (!seen.has(id)) last = place(roots, [id], last);
    }
    const removed = nodes.size > seen.size;
    keepOnly(nodes, seen, (rec) => {
      rec.el.remove();
      ticking.delete(rec);
    });
    for (const rec of nodes.values()) {
      const nested = rec.children.firstElementChild !== null;
      if (differs(rec, "nested", nested)) {
        show(rec.children, nested);
        rec.el.classList.toggle("dnb-has-children", nested);
      }
    }
    setText(counts, countsText(byId));
    show(el, byId.size > 0);
    return added || removed || answers;
  }

  function syncItems(groups: Map<string, Entry[]>): void {
    for (const rec of nodes.values()) {
      if (!rec.open) continue;
      const entries = groups.get(rec.id) || [];
      rec.items.sync(entries);
      show(rec.empty, entries.length === 0);
      const answered = entries.some(({ item }) => item.kind === "text" && sameAnswer(item.text, rec.f.result));
      if (answered !== rec.answered) {
        rec.answered = answered;
        fillNodeResult(rec);
      }
    }
  }

  function setOpen(rec: NodeRecord, open: boolean): void {
    if (open) st.nodesOpen.add(rec.id);
    else st.nodesOpen.delete(rec.id);
    setNodeOpen(rec, open);
    if (open) fill();
  }

  function toggle(head: HTMLElement): void {
    const rec = nodes.get(str((head.parentNode as Element).getAttribute("data-node")));
    if (rec) setOpen(rec, !rec.open);
  }

  function reveal(id: string): void {
    const rec = nodes.get(id);
    if (!rec) return;
    if (!rec.open) setOpen(rec, true);
    if (rec.el.scrollIntoView) rec.el.scrollIntoView({ block: "nearest", behavior: "smooth" });
    rec.head.focus({ preventScroll: true });
    for (const other of nodes.values()) other.el.classList.remove("dnb-flash");
    rec.el.classList.add("dnb-flash");
    clearTimeout(flash);
    flash = setTimeout(() => rec.el.classList.remove("dnb-flash"), 1500);
  }

  function tick(): void {
    if (!ticking.size) return;
    const clock = now();
    const waited = waitedNow();
    for (const rec of ticking) setText(rec.duration, nodeDuration(rec.f, clock, waited));
  }

  function dispose(): void {
    clearTimeout(flash);
    for (const rec of nodes.values()) rec.items.clear();
    nodes.clear();
    ticking.clear();
  }

  function* records(): Iterable<ItemRecord> {
    for (const rec of nodes.values()) if (rec.open) yield* rec.items.records.values();
  }

  function searchOpen(id: string, open: boolean): void {
    const rec = nodes.get(id);
    const want = open || st.nodesOpen.has(id);
    if (rec && rec.open !== want) setNodeOpen(rec, want);
  }

  const isOpen = (id: string): boolean => nodes.get(id)?.open === true;

  return { el, render, syncItems, records, has: (id) => nodes.has(id), isOpen, searchOpen, toggle, reveal, tick,
    dispose };
}
