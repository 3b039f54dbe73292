// The search box: file names by glob pattern, or lines by text (grep), under the view's folder.

import { h, ownKeys, setText, smallButton } from "../lib/dom";
import { isObj, list, middleEllipsis, num, str } from "../lib/text";
import type { Results, SearchHit } from "../types";
import type { LineTarget } from "./reveal";
import type { Request } from "./request";

const PATH_CHARS = 36; // a hit's path beyond this is cut in its middle (the whole path in its title)

type Mode = "glob" | "grep";

export interface SearchView { el: HTMLElement; refresh(): void; dispose(): void }

/** `rootPath()` gives the folder to search. */
export function searchView(
  request: Request, onOpenFile: (path: string, at?: LineTarget) => void, rootPath: () => string,
): SearchView {
  const el = h("div", "dnb-fv-search-box");
  const form = h("form", "dnb-fv-search");
  form.setAttribute("role", "search");
  const modes = h("div", "dnb-fv-modes");
  modes.setAttribute("role", "group");
  modes.setAttribute("aria-label", "Search by");
  const globBtn = smallButton("dnb-fv-mode dnb-fv-mode-glob", "Names", "Find files whose path matches a glob pattern");
  const grepBtn = smallButton("dnb-fv-mode dnb-fv-mode-grep", "Text", "Find lines containing some text (grep)");
  globBtn.setAttribute("data-mode", "glob");
  grepBtn.setAttribute("data-mode", "grep");
  modes.append(globBtn, grepBtn);
  const input = ownKeys(h("input", "dnb-fv-query"));
  input.type = "search";
  input.setAttribute("aria-label", "Search the files");
  const go = smallButton("dnb-fv-search-go", "Search");
  go.type = "submit";
  form.append(modes, input, go);

  const results = h("div", "dnb-fv-results");
  results.hidden = true;
  results.setAttribute("aria-live", "polite");
  const head = h("div", "dnb-fv-results-head");
  const summary = h("span", "dnb-fv-results-summary");
  const clear = smallButton("dnb-fv-results-clear", "Clear", "Clear the search results");
  head.append(summary, clear);
  const hits = h("ul", "dnb-fv-hits");
  results.append(head, hits);
  el.append(form, results);

  let mode: Mode = "glob";
  let last: { mode: Mode; query: string } | null = null; // the query shown
  let seq: string | null = null;

  function setMode(next: unknown): void {
    mode = next === "grep" ? "grep" : "glob";
    globBtn.setAttribute("aria-pressed", mode === "glob" ? "true" : "false");
    grepBtn.setAttribute("aria-pressed", mode === "grep" ? "true" : "false");
    input.placeholder = mode === "glob" ? "**/*.md" : "text to find";
  }

  function run(query: string, searchMode: Mode): void {
    last = { mode: searchMode, query };
    results.hidden = false;
    results.setAttribute("data-state", "loading");
    setText(summary, "Searching…");
    const sent = request<Results>({ type: "search", mode: searchMode, query, path: rootPath() }, (msg) => {
      if (sent !== seq) return;
      seq = null;
      render(msg);
    });
    seq = sent;
  }

  function render(msg: Results): void {
    results.setAttribute("data-state", msg.error ? "error" : "ready");
    if (msg.error) {
      setText(summary, msg.error);
      hits.replaceChildren();
      return;
    }
    const found = list(msg.results).filter(isObj) as SearchHit[];
    const total = num(msg.total);
    const grep = msg.mode === "grep";
    const what = grep ? `line${total === 1 ? "" : "s"} contain` : `file${total === 1 ? "" : "s"} match`;
    let text = `${total.toLocaleString("en-US")} ${what}${total === 1 ? "s" : ""} “${str(msg.query)}”`;
    if (msg.capped) text += ` (first ${found.length.toLocaleString("en-US")} shown)`;
    setText(summary, total ? text : `Nothing matches “${str(msg.query)}”.`);
    hits.replaceChildren(...found.map((hit) => {
      const li = h("li", "dnb-fv-hit-item");
      const btn = smallButton("dnb-fv-hit", undefined);
      btn.setAttribute("data-path", str(hit.path));
      btn.title = str(hit.path);
      btn.append(h("span", "dnb-fv-hit-path", middleEllipsis(str(hit.path), PATH_CHARS)));
      if (grep) {
        btn.setAttribute("data-line", String(num(hit.line)));
        btn.setAttribute("data-text", str(hit.text));
        btn.title = `${str(hit.path)}:${num(hit.line)}`;
        btn.append(h("span", "dnb-fv-hit-line", `:${num(hit.line)}`), h("span", "dnb-fv-hit-text", hit.text));
      }
      li.append(btn);
      return li;
    }));
  }

  function onSubmit(event: Event): void {
    event.preventDefault();
    run(input.value, mode);
  }

  function onClick(event: MouseEvent): void {
    const target = event.target as Element;
    const modeBtn = target.closest && target.closest(".dnb-fv-mode");
    if (modeBtn) {
      setMode(modeBtn.getAttribute("data-mode"));
      input.focus();
      return;
    }
    if (target.closest && target.closest(".dnb-fv-results-clear")) {
      last = null;
      seq = null;
      results.hidden = true;
      hits.replaceChildren();
      input.focus();
      return;
    }
    const hit = target.closest && target.closest(".dnb-fv-hit");
    if (!hit) return;
    const line = Number(hit.getAttribute("data-line"));
    onOpenFile(hit.getAttribute("data-path")!, line > 0
      ? { line, text: hit.getAttribute("data-text") || "", query: last ? last.query : "" } : undefined);
  }

  // Enter runs the search itself: a notebook's own key handling may not let the form submit.
  function onKeyDown(event: KeyboardEvent): void {
    if (event.key !== "Enter" || event.isComposing) return;
    event.preventDefault();
    event.stopPropagation();
    run(input.value, mode);
  }

  form.addEventListener("submit", onSubmit);
  input.addEventListener("keydown", onKeyDown);
  el.addEventListener("click", onClick);
  setMode("glob");

  return {
    el,
    refresh() { if (last) run(last.query, last.mode); },
    dispose() {
      form.removeEventListener("submit", onSubmit);
      input.removeEventListener("keydown", onKeyDown);
      el.removeEventListener("click", onClick);
    },
  };
}
