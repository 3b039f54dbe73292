// A tool card: the call's name, one-line arguments, status mark and result preview; opened, its
// full arguments and result (put into the DOM only while open). An interpreter `eval` card also
// shows its code, what it printed and its result or error. A `task` card links to its subagent.

import { h, ownKeys, setAttr, setText, show, smallButton } from "../lib/dom";
import { shownAs } from "../lib/statuses";
import { isObj, str } from "../lib/text";
import { RUNNING, TODO_CHANGE_MARK, TOOL_STATUS_MARK } from "../schema";
import type { ContentPart } from "../schema";
import type { EvalRun, TodoChange, ToolItem } from "../types";
import { notRunWords } from "./decided";
import { changed, nodeLabel, type ItemRecord } from "./record";

/** The badge of a tool card whose arguments a person edited before approving them. */
export const EDITED_BADGE = "✎ edited";

/** What an MCP tool's card says of its server (`deepnb/views/run/items.py` says the same). */
export function serverBadge(server: string): string {
  return `MCP ${server}`;
}

export interface ToolParts {
  head: HTMLElement;
  caret: HTMLElement;
  name: HTMLElement;
  args: HTMLElement;
  badge: HTMLElement;
  edited: HTMLElement;
  server: HTMLElement;
  argsLabel: HTMLElement;
  changes: HTMLElement;
  sub: HTMLButtonElement;
  /** "Not run: you responded in its place": a call answered in the tool's place. */
  notRun: HTMLElement;
  result: HTMLElement;
  /** A result of several content blocks (an MCP tool's texts, images, resources), by kind. */
  parts: HTMLElement;
  evalEl: HTMLElement;
  detail: HTMLElement;
  argsFull: HTMLElement;
  resultFull: HTMLElement;
  resultLabel: HTMLElement;
  open: boolean;
}

/** Builds a tool card's parts into `rec.el` (open when its key is in `expanded`). */
export function makeToolCard(rec: ItemRecord, expanded: Set<string>): void {
  const head = ownKeys(h("div", "dnb-tool-head"));
  head.setAttribute("role", "button");
  head.setAttribute("tabindex", "0");
  const t: ToolParts = {
    head,
    caret: h("span", "dnb-tool-caret", "▸"),
    name: h("span", "dnb-tool-name"),
    args: h("span", "dnb-tool-args"),
    badge: h("span", "dnb-badge dnb-tool-status"),
    edited: h("span", "dnb-badge dnb-edited", EDITED_BADGE),
    server: h("span", "dnb-badge dnb-tool-server"),
    argsLabel: h("div", "dnb-detail-label", "Arguments"),
    changes: h("ul", "dnb-todo-changes"),
    // a task card's one link to its subagent: "→ researcher #2", which shows it in the tree
    sub: smallButton("dnb-show-subagent dnb-tool-subagent", ""),
    notRun: h("div", "dnb-tool-not-run"),
    result: h("div", "dnb-tool-result"),
    parts: h("div", "dnb-tool-parts"),
    evalEl: h("div", "dnb-eval"),
    detail: h("div", "dnb-tool-detail"),
    argsFull: h("pre", "dnb-pre dnb-tool-args-full"),
    resultFull: h("pre", "dnb-pre dnb-tool-result-full"),
    resultLabel: h("div", "dnb-detail-label", "Result"),
    open: false,
  };
  rec.tool = t;
  t.sub.hidden = true;
  t.edited.hidden = true;
  t.server.hidden = true;
  t.caret.setAttribute("aria-hidden", "true");
  head.append(t.caret, rec.label!, t.name, t.args, t.server, t.edited, t.badge);
  // The subagent link is a button of its own: beside the head (itself a button), not inside it.
  const row = h("div", "dnb-tool-row");
  row.append(head, t.sub);
  rec.el.setAttribute("role", "article");
  t.evalEl.hidden = true;
  t.notRun.hidden = true;
  t.parts.hidden = true;
  t.changes.hidden = true;
  t.detail.append(t.changes, t.argsLabel, t.argsFull, t.resultLabel, t.resultFull);
  rec.el.append(row, t.evalEl, t.notRun, t.result, t.parts, t.detail);
  setExpanded(rec, expanded.has(rec.key));
}

/** Opens or closes a tool card. */
export function setExpanded(rec: ItemRecord, open: boolean): void {
  const t = rec.tool!;
  t.open = open;
  rec.el.classList.toggle("dnb-open", open);
  t.head.setAttribute("aria-expanded", open ? "true" : "false");
  t.caret.textContent = open ? "▾" : "▸";
  show(t.detail, open);
  if (open) fillDetail(rec);
}

function changeRow(change: TodoChange): HTMLElement {
  const li = h("li", "dnb-todo-change");
  li.setAttribute("data-change", str(change.change));
  li.append(`${shownAs(TODO_CHANGE_MARK, change.change, "·")} `, h("span", "", change.content));
  return li;
}

function fillDetail(rec: ItemRecord): void {
  // The full texts are only put into the DOM while a card is open.
  const t = rec.tool!;
  const changes = Array.isArray(rec.f.todo_changes) ? rec.f.todo_changes as TodoChange[] : null;
  show(t.changes, changes !== null); // a write_todos card: what changed, not the whole list again
  show(t.argsLabel, changes === null);
  show(t.argsFull, changes === null);
  if (changes) t.changes.replaceChildren(...changes.map(changeRow));
  setText(t.argsFull, changes ? "" : rec.f.args_full || "(no arguments)");
  const result = rec.f.result_full || "";
  show(t.resultLabel, result !== "");
  show(t.resultFull, result !== "");
  setText(t.resultFull, result);
}

/** Shows what changed in a tool item. */
export function patchTool(rec: ItemRecord, item: ToolItem): void {
  const t = rec.tool!;
  if (changed(rec, item, "name")) {
    setText(t.name, rec.f.name);
    rec.el.setAttribute("aria-label", `Tool call ${str(rec.f.name)}`);
  }
  if (changed(rec, item, "args")) setText(t.args, rec.f.args);
  if (changed(rec, item, "server")) {
    const server = str(rec.f.server);
    setText(t.server, server ? serverBadge(server) : "");
    t.server.title = server ? `A tool of the MCP server ${server}` : "";
    show(t.server, server !== "");
  }
  if (changed(rec, item, "edited")) {
    show(t.edited, rec.f.edited === true); // the decision log shows what the edit changed
  }
  const decisionChanged = changed(rec, item, "decision");
  const statusChanged = changed(rec, item, "status");
  if (statusChanged || decisionChanged) {
    const words = notRunWords(rec.f);
    setText(t.notRun, words);
    show(t.notRun, words !== "");
  }
  if (statusChanged) {
    const status = str(rec.f.status) || RUNNING;
    rec.el.setAttribute("data-status", status);
    t.badge.setAttribute("data-status", status);
    const mark = shownAs(TOOL_STATUS_MARK, status, "");
    t.badge.textContent = mark ? `${mark} ${status}` : status;
  }
  if (changed(rec, item, "subagent")) {
    const path = str(rec.f.subagent);
    show(t.sub, path !== "");
    setText(t.sub, path ? `→ ${nodeLabel(path)}` : "");
    setAttr(t.sub, "data-node", path);
    t.sub.title = path ? `Show subagent ${path} in the Subagents panel` : "";
    setAttr(t.sub, "aria-label", path ? `Show subagent ${nodeLabel(path)}` : "");
  }
  const evalChanged = changed(rec, item, "eval");
  if (evalChanged) patchEval(rec, isObj(rec.f.eval) ? rec.f.eval as EvalRun : null);
  const partsChanged = changed(rec, item, "parts");
  if (partsChanged) {
    const parts = Array.isArray(rec.f.parts) ? (rec.f.parts as ContentPart[]) : [];
    t.parts.replaceChildren(...parts.map(partElement));
    show(t.parts, parts.length > 0);
  }
  if (changed(rec, item, "result") || evalChanged || partsChanged) {
    const own = !isObj(rec.f.eval) && !(Array.isArray(rec.f.parts) && rec.f.parts.length > 0);
    show(t.result, str(rec.f.result) !== "" && own); // an eval card, a card of parts: shown by part
    setText(t.result, rec.f.result);
  }
  const changesChanged = changed(rec, item, "todo_changes");
  const argsChanged = changed(rec, item, "args_full") || changesChanged;
  if ((changed(rec, item, "result_full") || argsChanged) && t.open) fillDetail(rec);
}

/** The only images a card shows: a `data:` URI of PNG, JPEG, GIF or WebP in plain base64
 * (`deepnb/core/tool_content.py` keeps no other; checked again here). */
export const DATA_IMAGE = /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]*={0,2}$/;
/** The only addresses a card links to. */
const WEB_LINK = /^https?:\/\/[^\s<>"'`]+$/;

/** One content block of a result, by kind: a text, an image (its size bounded by the
 * stylesheet), a link opening in a new tab, or a note of what is not shown. All text as text. */
export function partElement(part: ContentPart): HTMLElement {
  const text = str(part.text);
  const src = str(part.src);
  const el = h("div", "dnb-tool-part");
  let kind = "note";
  if (part.kind === "image" && DATA_IMAGE.test(src)) {
    const img = document.createElement("img");
    img.className = "dnb-tool-image";
    img.alt = text;
    img.src = src;
    el.append(img);
    kind = "image";
  } else if (part.kind === "link" && WEB_LINK.test(src)) {
    const a = document.createElement("a");
    a.href = src;
    a.target = "_blank";
    a.rel = "noopener noreferrer nofollow";
    a.textContent = text;
    el.append(a);
    kind = "link";
  } else if (part.kind === "text") {
    el.append(h("pre", "dnb-pre", text));
    kind = "text";
  } else {
    el.classList.add("dnb-muted");
    el.textContent = `[${text}]`;
  }
  el.setAttribute("data-kind", kind);
  return el;
}

// An interpreter `eval` card: the code (highlighted in Python), what it printed, and its result or
// error, each as text.
function patchEval(rec: ItemRecord, run: EvalRun | null): void {
  const t = rec.tool!;
  show(t.evalEl, run !== null);
  if (!run) return;
  rec.el.classList.add("dnb-eval-card");
  const code = h("div", "dnb-eval-code");
  code.innerHTML = str(run.code_html); // highlighted and escaped by Pygments in Python
  const parts: HTMLElement[] = [code];
  if (str(run.stdout)) {
    parts.push(h("div", "dnb-detail-label", "Console"), h("pre", "dnb-pre dnb-eval-stdout", run.stdout));
  }
  if (str(run.error)) {
    const err = h("pre", "dnb-pre dnb-eval-error", `${str(run.error_type) || "Error"}: ${str(run.error)}`);
    parts.push(h("div", "dnb-detail-label", "Error"), err);
  } else if (str(run.result)) {
    parts.push(h("div", "dnb-detail-label", "Result"), h("pre", "dnb-pre dnb-eval-result", run.result));
  }
  t.evalEl.replaceChildren(...parts);
}
