// The transcript's toolbar: a search box (items holding the text are marked, the others hidden),
// a toggle that hides the bookkeeping tools' cards (BOOKKEEPING_TOOLS, from the schema), and
// "Expand all" / "Collapse all" for the tool cards and summaries.
//
// Filters work on the fields an item was last shown with (rec.f), not on its DOM, so a closed card
// is found by its full arguments and result too. With no filter on, nothing is walked.

import { h, setText, show, smallButton } from "../lib/dom";
import { isObj, list, str } from "../lib/text";
import { BOOKKEEPING_TOOLS } from "../schema";
import type { ItemRecord } from "./record";
import { setExpanded } from "./tool_card";

const SEARCHED = ["text", "name", "args", "args_full", "result_full", "summary", "node", "subagent"];

/** The text an item is searched by: its own fields (and a write_todos card's todos), lower case. */
export function searchText(rec: ItemRecord): string {
  const parts = SEARCHED.map((name) => rec.f[name]).filter((v) => typeof v === "string");
  for (const change of list(rec.f.todo_changes)) if (isObj(change)) parts.push(str(change.content));
  return parts.join("\n").toLowerCase();
}

/** Whether an item is a bookkeeping tool's card (write_todos, ls, read_file…). */
export function isBookkeeping(rec: ItemRecord): boolean {
  return rec.kind === "tool" && BOOKKEEPING_TOOLS.has(str(rec.f.name) as never);
}

export interface TranscriptTools {
  el: HTMLElement;
  /** Applies the search and filters to the items shown now (after each update). */
  apply(): void;
  dispose(): void;
}

/** The toolbar of one transcript; `records()` gives its item records, `expanded` the open cards. */
export function transcriptTools(
  records: () => Iterable<ItemRecord>, expanded: Set<string>, onChange: () => void = () => {},
): TranscriptTools {
  const el = h("div", "dnb-transcript-tools");
  el.setAttribute("role", "toolbar");
  el.setAttribute("aria-label", "Transcript tools");
  el.setAttribute("data-lm-suppress-shortcuts", "true"); // keys typed here are not JupyterLab's
  const search = h("input", "dnb-search");
  search.type = "search";
  search.placeholder = "Search the transcript";
  search.setAttribute("aria-label", "Search the transcript");
  const hide = smallButton("dnb-btn dnb-hide-bookkeeping", "Hide bookkeeping");
  hide.setAttribute("aria-pressed", "false");
  const expand = smallButton("dnb-btn dnb-expand-all", "Expand all");
  const collapse = smallButton("dnb-btn dnb-collapse-all", "Collapse all");
  const count = h("span", "dnb-search-count dnb-muted");
  count.setAttribute("role", "status");
  count.setAttribute("aria-live", "polite");
  el.append(search, hide, expand, collapse, count);
  let hiding = false;
  let filtered = false; // some item is hidden or marked by the last apply

  function apply(): void {
    const query = search.value.trim().toLowerCase();
    if (!query && !hiding && !filtered) return; // nothing on, nothing left to undo
    let total = 0;
    let matches = 0;
    let hidden = 0;
    for (const rec of records()) {
      total++;
      const book = hiding && isBookkeeping(rec);
      const match = query !== "" && !book && searchText(rec).includes(query);
      const out = book || (query !== "" && !match);
      if (book) hidden++;
      if (match) matches++;
      rec.el.classList.toggle("dnb-match", match);
      rec.el.classList.toggle("dnb-filtered", out);
      rec.el.hidden = out;
    }
    filtered = query !== "" || hiding;
    const parts = [query ? `${matches} of ${total} items match` : "", hidden ? `${hidden} bookkeeping hidden` : ""];
    setText(count, parts.filter(Boolean).join(" · "));
  }

  function setAll(open: boolean): void {
    for (const rec of records()) {
      if (rec.kind === "tool" && rec.tool && rec.tool.open !== open && !rec.el.hidden) {
        if (open) expanded.add(rec.key);
        else expanded.delete(rec.key);
        setExpanded(rec, open);
      } else if (rec.kind === "summary" && rec.summary && !rec.el.hidden) {
        rec.summary.details.open = open;
      }
    }
  }

  const onInput = (): void => { apply(); onChange(); };
  const onKey = (event: KeyboardEvent): void => {
    event.stopPropagation(); // typing here is not a notebook shortcut
    if (event.key === "Escape" && search.value) {
      search.value = "";
      onInput();
    }
  };
  const onHide = (): void => {
    hiding = !hiding;
    hide.setAttribute("aria-pressed", hiding ? "true" : "false");
    setText(hide, hiding ? "Show bookkeeping" : "Hide bookkeeping");
    onInput();
  };
  const onExpand = (): void => setAll(true);
  const onCollapse = (): void => setAll(false);
  const listeners: [EventTarget, string, (event: any) => void][] = [
    [search, "input", onInput], [search, "keydown", onKey], [hide, "click", onHide],
    [expand, "click", onExpand], [collapse, "click", onCollapse]];
  for (const [node, name, fn] of listeners) node.addEventListener(name, fn);
  show(count, true);

  function dispose(): void {
    for (const [node, name, fn] of listeners) node.removeEventListener(name, fn);
  }

  return { el, apply, dispose };
}
