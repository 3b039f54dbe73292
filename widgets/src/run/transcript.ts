// The transcript: one list of items (prompt, text, thinking, tool, notice, error, summary, update), patched in
// place.
// Updates arrive up to 20 times a second and `items` can hold thousands of entries, so each list
// keeps one record per item id: new elements only for new ids, DOM writes only for fields that
// changed, and no look at an item the update handed back unchanged (the same object). A streaming
// text grows by appending to its text node.

import { h, keepOnly, placeAt, setAttr, setText, smallButton } from "../lib/dom";
import { asksKernel } from "./kernel_gate";
import { armImages } from "../lib/images";
import { isObj, list, shownText, str } from "../lib/text";
import type { Item, SummaryItem, ToolItem } from "../types";
import { CUT_OFF_NOTE } from "../schema";
import { agentLabel, changed, type ItemRecord } from "./record";
import { makeSummary, patchSummary } from "./summary_card";
import { foldThinking, makeThinking } from "./thinking_card";
import { makeToolCard, patchTool } from "./tool_card";

const KINDS = new Set(["prompt", "text", "thinking", "tool", "notice", "error", "summary", "update"]);

/** Item records by their element, for the click and key handlers of every transcript list. */
export const ITEM_RECS = new WeakMap<Element, ItemRecord>();

export interface Entry { key: string; item: Item }

/** Gives each item a key: its id, made unique when ids repeat (they should not), or its position. */
export function keyItems(items: unknown): Entry[] {
  const seen = new Set<string>();
  const entries: Entry[] = [];
  list(items).forEach((item, i) => {
    if (!isObj(item)) return;
    let key = item.id === undefined || item.id === null ? `#${i}` : String(item.id);
    if (seen.has(key)) {
      let n = 1;
      while (seen.has(`${key}~${n}`)) n++;
      key = `${key}~${n}`;
    }
    seen.add(key);
    entries.push({ key, item: item as Item });
  });
  return entries;
}

/** A new record (and element) for one item. */
export function makeItem(item: Item, key: string, expanded: Set<string>): ItemRecord {
  const kind = str(item.kind);
  const el = h("div", `dnb-item dnb-${KINDS.has(kind) ? kind : "other"}`);
  el.setAttribute("data-kind", kind);
  el.setAttribute("data-id", key);
  const rec: ItemRecord = { key, kind, el, f: {} };
  if (kind === "text" || kind === "thinking" || kind === "tool" || kind === "summary") {
    rec.label = h("span", "dnb-agent-label");
    rec.label.hidden = true;
  }
  if (kind === "prompt") {
    el.append(h("span", "dnb-prompt-mark", "›"), (rec.body = h("div", "dnb-prompt-text")));
    if ((item as { steered?: unknown }).steered === true) { // given while the run worked: delivered here
      el.setAttribute("data-steered", "");
      el.append(h("span", "dnb-badge dnb-steered", "given while it worked"));
    }
  } else if (kind === "text") {
    el.append(rec.label!, (rec.body = h("div", "dnb-text-body")));
  } else if (kind === "thinking") {
    makeThinking(rec, expanded);
  } else if (kind === "tool") {
    makeToolCard(rec, expanded);
  } else if (kind === "notice") {
    rec.body = el;
    if ((item as { expand?: unknown }).expand === true) { // a folded stretch: the kernel sends it all
      el.append((rec.body = h("span", "dnb-notice-text")), " ", asksKernel(smallButton("dnb-expand", "show all")));
    }
  } else if (kind === "error") {
    el.append(h("span", "dnb-error-title", "Error"), (rec.body = h("div", "dnb-error-text")));
  } else if (kind === "summary") {
    makeSummary(rec, expanded);
  } else if (kind === "update") { // a node's state update, in a graph that does not speak messages
    el.append((rec.label = h("b", "dnb-update-node")), (rec.body = h("pre", "dnb-update-values")));
  } else {
    rec.body = el;
  }
  patchItem(rec, item);
  return rec;
}

/** Shows what changed in an item. */
export function patchItem(rec: ItemRecord, item: Item): void {
  rec.item = item;
  if (rec.kind === "update") {
    if (changed(rec, item, "node")) setText(rec.label!, rec.f.node);
    if (changed(rec, item, "text")) setText(rec.body!, rec.f.text);
    return;
  }
  if (rec.label) agentLabel(rec, (item as { agent?: unknown }).agent); // error items name none
  if (rec.kind === "text") patchText(rec, item);
  else if (rec.kind === "thinking") {
    patchText(rec, item);
    foldThinking(rec);
  }
  else if (rec.kind === "tool") patchTool(rec, item as ToolItem);
  else if (rec.kind === "summary") patchSummary(rec, item as SummaryItem);
  else if (rec.kind === "notice") {
    if (changed(rec, item, "level")) setAttr(rec.el, "data-level", rec.f.level);
    if (changed(rec, item, "text")) setText(rec.body!, rec.f.text);
  } else if (changed(rec, item, "text")) {
    setText(rec.body!, rec.f.text);
  }
}

// Model text: while it streams, a text node that grows; once finished, the HTML Python rendered.
function patchText(rec: ItemRecord, item: Item): void {
  const body = rec.body!;
  if ((item as { cut_off?: unknown }).cut_off === true && !rec.el.querySelector(".dnb-cut-off")) {
    rec.el.append(h("div", "dnb-muted dnb-cut-off", `(${CUT_OFF_NOTE})`)); // the run ended mid-text
  }
  const htmlChanged = changed(rec, item, "html");
  const prevText = rec.f.text;
  const textChanged = changed(rec, item, "text");
  const html = rec.f.html;
  if (typeof html === "string") {
    if (htmlChanged) {
      rec.stream = null;
      body.classList.remove("dnb-streaming");
      body.classList.add("dnb-md");
      body.innerHTML = html; // Sanitized in Python; escaped HTML from the kernel.
      armImages(body);
    }
  } else if (htmlChanged || textChanged) {
    const text = str(rec.f.text);
    if (!rec.stream) {
      body.classList.remove("dnb-md");
      body.classList.add("dnb-streaming");
      body.textContent = "";
      rec.stream = document.createTextNode(shownText(text));
      body.appendChild(rec.stream);
    } else if (typeof prevText === "string" && text.startsWith(prevText)) {
      rec.stream.appendData(shownText(text.slice(prevText.length)));
    } else {
      rec.stream.data = shownText(text);
    }
  }
}

export interface ItemList {
  records: Map<string, ItemRecord>;
  sync(entries: Entry[]): void;
  clear(): void;
}

/** One list of transcript items shown in `container`: the main transcript, or a subagent's. */
export function itemList(container: HTMLElement, expanded: Set<string>): ItemList {
  const records = new Map<string, ItemRecord>(); // key → record

  function sync(entries: Entry[]): void {
    const seen = new Set<string>();
    let prev: HTMLElement | null = null;
    for (const { key, item } of entries) {
      seen.add(key);
      let rec = records.get(key);
      if (rec && rec.kind !== str(item.kind)) {
        rec.el.remove();
        rec = undefined;
      }
      if (rec) {
        // A live patch hands back the items it did not change as the same objects: only the
        // changed ones (a streaming text, a tool's result) are compared field by field.
        if (rec.item !== item) patchItem(rec, item);
      } else {
        records.set(key, (rec = makeItem(item, key, expanded)));
        ITEM_RECS.set(rec.el, rec);
      }
      placeAt(container, rec.el, prev);
      prev = rec.el;
    }
    keepOnly(records, seen, (rec) => rec.el.remove());
  }

  function clear(): void {
    for (const rec of records.values()) rec.el.remove();
    records.clear();
  }

  return { records, sync, clear };
}

/** The key of the run's final answer: the main agent's text that ends a finished run's transcript
 * (`null` while the run runs, or when it ended otherwise). */
export function finalAnswerKey(entries: Entry[], status: string): string | null {
  const last = entries[entries.length - 1];
  if (status !== "done" || !last || last.item.kind !== "text") return null;
  const agent = str((last.item as { agent?: unknown }).agent) || "main";
  return agent === "main" ? last.key : null;
}

/** Marks `rec` as the final answer (set apart from the tool cards before it, labelled), or not. */
export function markFinal(rec: ItemRecord, final: boolean): void {
  if (rec.el.classList.contains("dnb-final-answer") === final) return;
  rec.el.classList.toggle("dnb-final-answer", final);
  if (final) {
    rec.el.setAttribute("aria-label", "Final answer");
    rec.el.prepend(h("span", "dnb-final-label", "Answer"));
  } else {
    rec.el.removeAttribute("aria-label");
    rec.el.querySelector(":scope > .dnb-final-label")?.remove();
  }
}
