// The transcript's toolbar: a search box, a toggle that hides the bookkeeping tools' cards
// (BOOKKEEPING_TOOLS, from the schema), and "Expand all" / "Collapse all" for the tool cards and
// summaries.
//
// The search finds an item by the fields it was last shown with (rec.f), not by its DOM, so a
// folded card is found by its full arguments and result too, and a closed subagent's card by its
// transcript. It opens what holds a match (a tool card, a thinking block, a summary, a subagent's
// card), marks the words in it (highlight.ts), hides the other items, says "match 2 of 7", and goes
// to the next match on Enter or ▼ (Shift+Enter or ▲: the previous one). Escape clears it and gives
// every card it opened back the state its reader left it in. Typing is debounced; with the box
// empty and nothing hidden, nothing is walked; an item is marked again only when it changed.

import { h, setText, show, smallButton } from "../lib/dom";
import { isObj, list, str } from "../lib/text";
import { BOOKKEEPING_TOOLS } from "../schema";
import { CURRENT, HIT, markText, matchWords, step, unmark } from "./highlight";
import type { ItemRecord } from "./record";
import { noteSummaryChoice } from "./summary_card";
import { foldThinking } from "./thinking_card";
import { setExpanded } from "./tool_card";
import type { Entry } from "./transcript";

const SEARCHED = ["text", "name", "args", "args_full", "result_full", "summary", "node", "subagent"];
/** How long the search waits after a key before it walks the transcript (ms). */
export const SEARCH_DELAY = 150;
/** An item that matched by a field its DOM does not show as one run of text: a stop itself. */
const WHOLE = "dnb-match-whole";

/** The text an item's fields are searched by (and a write_todos card's todos), lower case. */
export function fieldsText(f: Record<string, any>): string {
  const parts = SEARCHED.map((name) => f[name]).filter((v) => typeof v === "string");
  for (const change of list(f.todo_changes)) if (isObj(change)) parts.push(str(change.content));
  return parts.join("\n").toLowerCase();
}

// An item's searched text, kept while its record shows the same item object (a live update hands
// back the items it did not change as the same objects): a long transcript is not lower-cased
// again on every update.
const TEXTS = new WeakMap<ItemRecord, { item: object | undefined; text: string }>();

/** The text an item is searched by: the fields it was last shown with. */
export function searchText(rec: ItemRecord): string {
  const known = TEXTS.get(rec);
  if (known && known.item === rec.item && rec.item !== undefined) return known.text;
  const text = fieldsText(rec.f);
  TEXTS.set(rec, { item: rec.item, text });
  return text;
}

/** Whether an item is a bookkeeping tool's card (write_todos, ls, read_file…). */
export function isBookkeeping(rec: ItemRecord): boolean {
  return rec.kind === "tool" && BOOKKEEPING_TOOLS.has(str(rec.f.name) as never);
}

/** Whether a folded card is open: a tool card, a thinking block, a summary (others: `null`). */
function isOpen(rec: ItemRecord): boolean | null {
  if (rec.tool) return rec.tool.open;
  if (rec.thinking) return rec.thinking.details.open;
  if (rec.summary) return rec.summary.details.open;
  return null;
}

/** Opens a folded card for the search, as this code's own fold (not the reader's choice). */
function openCard(rec: ItemRecord): boolean {
  if (isOpen(rec) !== false) return false;
  if (rec.tool) setExpanded(rec, true);
  else if (rec.thinking) {
    rec.thinking.held = true;
    foldThinking(rec);
  } else if (rec.summary) {
    noteSummaryChoice(rec.summary);
    rec.summary.auto = true;
    rec.summary.details.open = true;
  }
  return true;
}

/** Gives a card the search opened back the state its reader left it in (`expanded`). */
function restoreCard(rec: ItemRecord, expanded: Set<string>): void {
  if (rec.summary) noteSummaryChoice(rec.summary);
  const open = expanded.has(rec.key);
  if (rec.tool && rec.tool.open !== open) setExpanded(rec, open);
  else if (rec.thinking) {
    rec.thinking.held = false;
    foldThinking(rec);
  } else if (rec.summary && rec.summary.details.open !== open) {
    rec.summary.auto = open;
    rec.summary.details.open = open;
  }
}

/** Whether a match is where a reader can see it (not in a hidden item or a closed fold). */
function shown(node: Element): boolean {
  return node.closest("[hidden]") === null && node.closest("details:not([open]) > :not(summary)") === null;
}

export interface SearchSources {
  /** The item records shown now (the main transcript's and the open subagents'). */
  records(): Iterable<ItemRecord>;
  /** The closed subagents' cards: node id → the items of its transcript. */
  folded?(): Iterable<[string, Entry[]]>;
  /** Opens subagents' cards for the search (`open`) or gives them back their reader's state, and
   * draws their items. */
  openNodes?(ids: string[], open: boolean): void;
  /** Where the marks are (in document order); the toolbar's parent when not given. */
  scope?(): Element | null;
}

export interface TranscriptTools {
  el: HTMLElement;
  /** Applies the search and filters to the items shown now (after each update). */
  apply(): void;
  dispose(): void;
}

/** The toolbar of one transcript over `sources`; `expanded` holds the cards their reader opened. */
export function transcriptTools(
  sources: SearchSources, expanded: Set<string>, onChange: () => void = () => {},
): TranscriptTools {
  const el = h("div", "dnb-transcript-tools");
  el.setAttribute("role", "toolbar");
  el.setAttribute("aria-label", "Transcript tools");
  el.setAttribute("data-lm-suppress-shortcuts", "true"); // keys typed here are not JupyterLab's
  const search = h("input", "dnb-search");
  search.type = "search";
  search.placeholder = "Search the transcript";
  search.setAttribute("aria-label", "Search the transcript");
  const prev = smallButton("dnb-btn dnb-search-prev", "▲", "Previous match (Shift+Enter)");
  prev.setAttribute("aria-label", "Previous match");
  const next = smallButton("dnb-btn dnb-search-next", "▼", "Next match (Enter)");
  next.setAttribute("aria-label", "Next match");
  const hide = smallButton("dnb-btn dnb-hide-bookkeeping", "Hide bookkeeping");
  hide.setAttribute("aria-pressed", "false");
  const expand = smallButton("dnb-btn dnb-expand-all", "Expand all");
  const collapse = smallButton("dnb-btn dnb-collapse-all", "Collapse all");
  const count = h("span", "dnb-search-count dnb-muted");
  count.setAttribute("role", "status");
  count.setAttribute("aria-live", "polite");
  el.append(search, prev, next, hide, expand, collapse, count);
  show(prev, false);
  show(next, false);
  let hiding = false;
  let filtered = false; // some item is hidden or marked by the last apply
  let query = ""; // the query the marks and the opened cards are for, lower case
  const tried = new Set<ItemRecord>(); // opened (or left alone) for `query` once: a reader's close stands
  const triedNodes = new Set<string>();
  const opened = new Set<ItemRecord>(); // the cards the search opened
  let openedNodes: string[] = [];
  const marked = new Map<ItemRecord, string>(); // what a record's marks are for: query, fold, text
  let stops: Element[] = [];
  let current = -1;
  let dirty = false; // marks changed since the stops were listed
  let timer: ReturnType<typeof setTimeout> | undefined;

  function restoreAll(): void {
    for (const rec of opened) restoreCard(rec, expanded);
    opened.clear();
    tried.clear();
    triedNodes.clear();
    if (openedNodes.length && sources.openNodes) sources.openNodes(openedNodes, false);
    openedNodes = [];
  }

  function openFoldedNodes(): void {
    if (!sources.folded || !sources.openNodes) return;
    const ids: string[] = [];
    for (const [id, entries] of sources.folded()) {
      if (triedNodes.has(id)) continue;
      triedNodes.add(id);
      if (entries.some(({ item }) => fieldsText(item as Record<string, any>).includes(query))) ids.push(id);
    }
    if (!ids.length) return;
    openedNodes.push(...ids);
    sources.openNodes(ids, true);
  }

  // Marks `rec` for the query (or takes its marks out, `query` empty), unless neither the query,
  // its fold nor its text changed (a live update hands back equal items as new objects too).
  function mark(rec: ItemRecord, match: boolean, text: string): void {
    const key = match ? `${query}\u0000${isOpen(rec)}\u0000${text}` : "";
    const was = marked.get(rec);
    if (was === key) return;
    if (was === undefined && key === "") return;
    unmark(rec.el);
    rec.el.classList.remove(WHOLE);
    dirty = true;
    if (key === "") {
      marked.delete(rec);
      return;
    }
    marked.set(rec, key);
    const marks = markText(rec.el, query);
    if (!marks.some(shown)) rec.el.classList.add(WHOLE); // the item itself is the stop
  }

  function listStops(moved: boolean): void {
    const was = stops[current];
    const scope = (sources.scope && sources.scope()) || el.parentElement;
    stops = scope ? [...scope.querySelectorAll(`mark.${HIT}, .${WHOLE}`)].filter(shown) : [];
    const index = current;
    current = moved ? (stops.length ? 0 : -1) : was ? stops.indexOf(was) : -1;
    if (!moved && current < 0 && stops.length) current = Math.max(0, Math.min(index, stops.length - 1));
    if (was && was !== stops[current]) was.classList.remove(CURRENT);
    if (current >= 0) stops[current].classList.add(CURRENT);
    dirty = false;
  }

  // `typed`: the box's text is the query now (after the typing stopped); an update of the items
  // applies the query they were searched by, so a run that streams never cuts the wait short.
  function apply(typed = false): void {
    const q = typed ? search.value.trim().toLowerCase() : query;
    let moved = false;
    if (!q && !hiding && !filtered && !opened.size && !openedNodes.length) return; // nothing on or to undo
    if (q !== query) {
      restoreAll();
      query = q;
      moved = true;
    }
    if (query) openFoldedNodes();
    let total = 0;
    let items = 0;
    let hidden = 0;
    for (const rec of sources.records()) {
      total++;
      const book = hiding && isBookkeeping(rec);
      const text = query === "" ? "" : searchText(rec);
      const match = query !== "" && !book && text.includes(query);
      const out = book || (query !== "" && !match);
      if (book) hidden++;
      if (match) {
        items++;
        if (!tried.has(rec)) {
          tried.add(rec);
          if (openCard(rec)) opened.add(rec);
        }
      }
      mark(rec, match, text);
      if (rec.el.hidden !== out || rec.el.classList.contains("dnb-match") !== match) { // DOM writes only for a change
        rec.el.classList.toggle("dnb-match", match);
        rec.el.classList.toggle("dnb-filtered", out);
        rec.el.hidden = out;
      }
    }
    for (const rec of marked.keys()) {
      if (rec.el.isConnected) continue;
      marked.delete(rec); // an item gone, or a closed subagent's
      dirty = true;
    }
    if (dirty || moved) listStops(moved);
    filtered = query !== "" || hiding;
    show(prev, query !== "");
    show(next, query !== "");
    prev.disabled = next.disabled = stops.length === 0;
    said = { items, total, hidden };
    say();
    if (moved && current >= 0) reveal();
  }

  let said = { items: 0, total: 0, hidden: 0 };
  function say(): void {
    const { items, total, hidden } = said;
    const found = query ? `${matchWords(current, stops.length)}${items ? ` · ${items} of ${total} items` : ""}` : "";
    setText(count, [found, hidden ? `${hidden} bookkeeping hidden` : ""].filter(Boolean).join(" · "));
  }

  function reveal(): void {
    const at = stops[current];
    if (at && at.scrollIntoView) at.scrollIntoView({ block: "center", inline: "nearest" });
  }

  /** Goes to the next match (or, `back`, the previous one) and brings it into view. */
  function go(back: boolean): void {
    if (timer !== undefined) return flush(); // the query typed: its first match first
    if (!stops.length) return;
    stops[current]?.classList.remove(CURRENT);
    current = step(current, stops.length, back);
    stops[current].classList.add(CURRENT);
    say();
    reveal();
  }

  function flush(): void {
    clearTimeout(timer);
    timer = undefined;
    apply(true);
    onChange();
  }

  function setAll(open: boolean): void {
    for (const rec of sources.records()) {
      if (rec.kind === "tool" && rec.tool && rec.tool.open !== open && !rec.el.hidden) {
        if (open) expanded.add(rec.key);
        else expanded.delete(rec.key);
        setExpanded(rec, open);
      } else if (rec.kind === "summary" && rec.summary && !rec.el.hidden) {
        rec.summary.details.open = open;
      }
    }
  }

  const onInput = (): void => {
    clearTimeout(timer);
    if (!search.value.trim()) return flush(); // cleared: at once
    timer = setTimeout(flush, SEARCH_DELAY);
  };
  const onKey = (event: KeyboardEvent): void => {
    event.stopPropagation(); // typing here is not a notebook shortcut
    if (event.key === "Escape" && search.value) {
      search.value = "";
      flush();
    } else if (event.key === "Enter") {
      event.preventDefault();
      go(event.shiftKey);
    }
  };
  const onHide = (): void => {
    hiding = !hiding;
    hide.setAttribute("aria-pressed", hiding ? "true" : "false");
    setText(hide, hiding ? "Show bookkeeping" : "Hide bookkeeping");
    flush();
  };
  const onExpand = (): void => setAll(true);
  const onCollapse = (): void => setAll(false);
  const onPrev = (): void => go(true);
  const onNext = (): void => go(false);
  const listeners: [EventTarget, string, (event: any) => void][] = [
    [search, "input", onInput], [search, "keydown", onKey], [hide, "click", onHide],
    [expand, "click", onExpand], [collapse, "click", onCollapse], [prev, "click", onPrev], [next, "click", onNext]];
  for (const [node, name, fn] of listeners) node.addEventListener(name, fn);
  show(count, true);

  function dispose(): void {
    clearTimeout(timer);
    for (const [node, name, fn] of listeners) node.removeEventListener(name, fn);
  }

  return { el, apply: () => apply(), dispose };
}
