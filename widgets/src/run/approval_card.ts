// One approval card per gated action: the tool, the agent asking, the arguments, a preview of what
// it would do, the decision buttons (those the interrupt allows) and, for Edit, Reject and Respond,
// a form. Also the decision log's entries. Builders only: approvals.ts patches and wires them.

import { h } from "../lib/dom";
import { decisionWords } from "./decided";
import { asksKernel } from "./kernel_gate";
import { shownAs } from "../lib/statuses";
import { isObj, list, num, plural, str } from "../lib/text";
import { DECISION_LABEL, RUNNING } from "../schema";
import type { Action, Decision, DecisionEntry, Interrupt, Preview, RunStatus } from "../types";
import { agentName } from "./record";

const DECISION_BUTTONS = [
  ["approve", "dnb-approve", "Approve"], ["edit", "dnb-edit", "Edit"],
  ["reject", "dnb-reject", "Reject"], ["respond", "dnb-respond", "Respond"],
] as const;
// A card whose arguments were too long for a message shows them shortened: its Edit form could
// not hold them, so editing happens from Python, where the engine keeps the real ones.
export const CLIPPED_NOTE =
  "Arguments shortened for display; edit them from Python: run.pending[i].edit({...})";

export interface Card {
  /** "interrupt id:index". */
  key: string;
  el: HTMLElement;
  iid: string;
  index: number;
  action: Action;
  /** What the card was built from; a card whose signature changes is built again. */
  sig: string;
  buttons: HTMLButtonElement[];
  form: HTMLElement | null;
  mode: string | null;
  sendingEl: HTMLElement;
  errorEl: HTMLElement;
  decisionEl: HTMLElement;
}

/** A button that says what it does in `data-act` (a control of the approvals: it asks the kernel). */
export function actButton(cls: string, label: string, act: string): HTMLButtonElement {
  const node = asksKernel(h("button", cls, label));
  node.type = "button";
  node.setAttribute("data-act", act);
  return node;
}

/** "✎ edited by you: path='/a.md'", "✗ rejected by a rule: too risky"… (as a snapshot says it). */
export function decisionText(decision: Decision): string {
  return decisionWords(decision);
}

function diffLineClass(line: string): string {
  if (line.startsWith("@@")) return "dnb-hunk";
  if (line.startsWith("+") && !line.startsWith("+++")) return "dnb-add";
  if (line.startsWith("-") && !line.startsWith("---")) return "dnb-del";
  return "";
}

/** What the action would do: a file's new content, or a diff (one span a line, as text). */
export function previewEl(preview: Preview | null | undefined): HTMLElement | null {
  if (!isObj(preview)) return null;
  if (preview.kind === "content") return h("pre", "dnb-pre dnb-preview", preview.text);
  if (preview.kind !== "diff") return null;
  const pre = h("pre", "dnb-pre dnb-diff");
  for (const line of str(preview.text).split("\n")) {
    pre.append(h("span", diffLineClass(line), `${line}\n`));
  }
  return pre;
}

export interface EditField { name: string; text: string; json: boolean; whole?: boolean }

/** The edit form's fields: strings as raw text, anything else as JSON. Arguments that are not a
 * JSON object (should not happen) are edited whole, as one JSON field. */
export function editFields(argsJson: unknown): EditField[] {
  let args: unknown = null;
  try {
    args = JSON.parse(str(argsJson) || "{}");
  } catch (_) { /* edited whole below */ }
  if (!isObj(args)) return [{ name: "", text: str(argsJson), json: true, whole: true }];
  return Object.entries(args).map(([name, value]) => (typeof value === "string"
    ? { name, text: value, json: false }
    : { name, text: JSON.stringify(value, null, 2), json: true }));
}

function fieldArea(cls: string, field: string, text: string): HTMLTextAreaElement {
  const area = h("textarea", cls);
  area.setAttribute("data-field", field);
  area.spellcheck = false;
  area.value = text;
  area.rows = Math.min(10, Math.max(1, text.split("\n").length));
  return area;
}

function labelled(text: string, hint: string, area: HTMLTextAreaElement): HTMLElement {
  const label = h("label", "dnb-field");
  const name = h("span", "dnb-field-name", text);
  if (hint) name.append(h("span", "dnb-field-hint", ` ${hint}`));
  label.append(name, area);
  return label;
}

/** The form of an Edit, Reject or Respond, filled with what was typed before (`values`). */
export function makeForm(mode: string, action: Action, values: Record<string, string>): HTMLElement {
  const form = h("div", `dnb-approval-form dnb-${mode}-form`);
  const text = (field: string, fallback: string): string =>
    (typeof values[field] === "string" ? values[field] : fallback);
  let send: HTMLButtonElement;
  if (mode === "edit") {
    for (const f of editFields(action.args_json)) {
      const area = fieldArea("dnb-arg", `arg:${f.name}`, text(`arg:${f.name}`, f.text));
      area.setAttribute("data-arg", f.name);
      if (f.json) area.setAttribute("data-json", "1");
      if (f.whole) area.setAttribute("data-whole", "1");
      form.append(labelled(f.whole ? "arguments" : f.name, f.json ? "(JSON)" : "", area));
    }
    send = actButton("dnb-edit-send", "Send edit", "edit-send");
  } else if (mode === "reject") {
    form.append(labelled("Reason", "(optional, told to the agent)",
      fieldArea("dnb-reason", "message", text("message", ""))));
    send = actButton("dnb-reject-send", "Reject", "reject-send");
  } else {
    form.append(labelled("Message", "(required, returned in place of the tool's result)",
      fieldArea("dnb-message", "message", text("message", ""))));
    send = actButton("dnb-respond-send", "Send response", "respond-send");
  }
  const row = h("div", "dnb-form-buttons");
  row.append(send, actButton("dnb-form-cancel", "Cancel", "cancel"));
  form.append(row);
  return form;
}

/** Reads the edit form: `{args}`, or `{error}` when a JSON field does not parse. */
export function readEditArgs(form: HTMLElement): { args?: Record<string, unknown>; error?: string } {
  const args: Record<string, unknown> = {};
  for (const area of form.querySelectorAll<HTMLTextAreaElement>("textarea.dnb-arg")) {
    const name = str(area.getAttribute("data-arg"));
    if (area.getAttribute("data-json") !== "1") {
      args[name] = area.value;
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(area.value);
    } catch (err) {
      return { error: `${name || "The arguments"}: not valid JSON (${(err as Error).message}). Nothing was sent.` };
    }
    if (!area.hasAttribute("data-whole")) args[name] = value;
    else if (isObj(value)) return { args: value };
    else return { error: "The arguments must be a JSON object. Nothing was sent." };
  }
  return { args };
}

/** What a card shows; when it changes, the card is built again. */
export function signature(request: Interrupt, action: Action): string {
  return JSON.stringify([request.agent, action.name, action.args, action.args_json, action.description,
    action.allowed, action.preview, Boolean(action.clipped)]);
}

/** The arguments a file preview already shows: the content written, or the strings replaced. */
function previewed(preview: Preview | null | undefined): string[] {
  if (!isObj(preview)) return [];
  return preview.kind === "content" ? ["content"] : preview.kind === "diff" ? ["old_string", "new_string"] : [];
}

/** An action's arguments, once and readably: one row per argument, strings as they are (line
 * breaks kept), anything else as JSON; those the preview shows are left to it. */
export function argsList(action: Action, skip: string[] = []): HTMLElement | null {
  const fields = editFields(action.args_json).filter((f) => !skip.includes(f.name));
  if (!fields.length) return null;
  const dl = h("dl", "dnb-approval-args dnb-question-fields"); // laid out as a question's fields
  for (const f of fields) {
    dl.append(h("dt", "", f.whole ? "arguments" : f.name), h("dd", "", f.text));
  }
  return dl;
}

/** A new card for one action of an interrupt. */
export function makeCard(request: Interrupt, action: Action, key: string): Card {
  const el = h("div", "dnb-approval");
  el.setAttribute("role", "group");
  el.setAttribute("aria-label", `Approval: ${str(action.name)}, by ${agentName(request.agent)}`);
  el.setAttribute("data-interrupt", str(request.id));
  el.setAttribute("data-index", str(action.index));
  const head = h("div", "dnb-approval-head");
  const agent = h("span", "dnb-approval-agent", agentName(request.agent));
  agent.title = str(request.agent) || "main";
  head.append(h("span", "dnb-approval-tool", action.name), agent);
  el.append(head);
  if (str(action.description)) el.append(h("div", "dnb-approval-desc", action.description));
  const preview = previewEl(action.preview);
  const argv = argsList(action, preview ? previewed(action.preview) : []);
  if (argv) el.append(argv);
  if (preview) el.append(preview);
  if (action.clipped) el.append(h("div", "dnb-approval-clipped", CLIPPED_NOTE));
  const bar = h("div", "dnb-approval-buttons");
  const allowed = new Set(list(action.allowed).map(str));
  for (const [kind, cls, label] of DECISION_BUTTONS) {
    if (allowed.has(kind)) bar.append(actButton(cls, label, kind));
  }
  const sendingEl = h("span", "dnb-approval-sending", "Sending…");
  bar.append(sendingEl);
  if (allowed.has("approve")) {
    bar.append(actButton("dnb-always", `Always approve ${str(action.name)} in this thread`, "always"));
  }
  const buttons = [...bar.querySelectorAll("button")];
  const edit = bar.querySelector("[data-act='edit']");
  if (edit && action.clipped) {
    (edit as HTMLElement).title = CLIPPED_NOTE;
    edit.setAttribute("aria-description", CLIPPED_NOTE);
  }
  const errorEl = h("div", "dnb-card-error");
  const decisionEl = h("div", "dnb-approval-decision");
  el.append(bar, errorEl, decisionEl);
  return {
    key, el, iid: str(request.id), index: num(action.index), action, sig: signature(request, action),
    buttons, form: null, mode: null, sendingEl, errorEl, decisionEl,
  };
}

/** The title over the cards. */
export function pendingTitle(status: string, undecided: number): string {
  if (status === ("interrupted" satisfies RunStatus)) {
    return undecided ? `Waiting for your approval — ${plural(undecided, "action")}`
      : "Decisions sent — resuming…";
  }
  if (status === RUNNING) {
    return "Decisions pending — the run resumes each subagent as its actions are decided";
  }
  return "Not decided — the run ended before these were decided";
}

/** One line of the decision log. */
export function logEntry(entry: DecisionEntry): HTMLLIElement {
  const type = str(entry.type);
  const li = h("li", "dnb-decision");
  li.setAttribute("data-type", type);
  const at = str(entry.at);
  const time = h("span", "dnb-decision-at", at.split(" ").pop());
  time.title = at;
  // "✗ rejected" "by you" "too risky": the snapshot's line in the same words (decided.ts)
  const by = h("span", entry.auto ? "dnb-decision-by dnb-decision-auto" : "dnb-decision-by",
    entry.auto ? "by a rule" : "by you");
  li.append(time, h("span", "dnb-decision-tool", entry.tool),
    h("span", "dnb-decision-type", shownAs(DECISION_LABEL, type, type)), by);
  const diff = type === "edit" ? str(entry.diff) : "";
  const detail = type === "edit" ? (diff ? "" : str(entry.args)) : str(entry.message);
  if (detail) li.append(h("span", "dnb-decision-detail", detail));
  if (diff) { // what the edit changed: proposed → approved arguments, a line each
    const pre = previewEl({ kind: "diff", text: diff })!;
    pre.classList.add("dnb-decision-diff");
    li.append(pre);
  }
  return li;
}
