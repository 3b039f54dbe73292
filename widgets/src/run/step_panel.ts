// The step state panel: one step of the run's thread as it was (bench.state) with what it changed
// against the step before (bench.diff), asked of the kernel when a step of the timeline is clicked
// or the slider moves (the files and todos as each step left them). Edit changes the todos, a
// file, the last message's text or a tool's result; "Run from here" sends the edits, and the
// kernel forks the thread at the step with them and runs on (the original thread untouched). A
// refusal is one line in the panel, and the edits stay. Every text goes in through textContent or
// a form field's value.

import { h, setText, smallButton } from "../lib/dom";
import { isObj, list, num, str } from "../lib/text";
import { TODO_STATUS_MARK } from "../schema";
import type { StepDiff, StepEdit, StepFileRow, StepMessageRow, StepStateMessage } from "../types";
import { asksKernel } from "./kernel_gate";
import type { RunModel } from "./live_model";
import type { PanelMemory, StepEdits as Edits } from "./memory";

export interface StepPanel {
  el: HTMLElement;
  /** Says `text` under the panel (what Run from here did). */
  say(text: string): void;
  /** Shows step `step` (asks the kernel for it); without one, the run's latest step unless a
   * step shows already. */
  open(step?: number): void;
  receive(msg: unknown): boolean;
}

const STATUSES = Object.keys(TODO_STATUS_MARK);

/** What Run from here said, by the new thread: the view goes on with the new run and is
 * displayed again, and its next render (whose memory is the new run's) says it too. */
export const FORKED = new Map<string, string>();
/** How the diff marks a message: as `diff -u` marks a line (and ~ for one changed in place). */
const MARK = new Map([["added", "+ "], ["removed", "- "], ["changed", "~ "]]);

const bytes = (n: number): string => (n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1048576).toFixed(1)} MB`);

function section(title: string): { el: HTMLElement; body: HTMLElement } {
  const el = h("section", "dnb-step-section");
  const head = h("h4", "dnb-step-head", title);
  const body = h("div", "dnb-step-body");
  el.append(head, body);
  return { el, body };
}

function diffLine(line: string): HTMLElement {
  const cls = line.startsWith("+++") || line.startsWith("---") ? "dnb-muted"
    : line.startsWith("+") ? "dnb-add" : line.startsWith("-") ? "dnb-del" : line.startsWith("@") ? "dnb-hunk" : "";
  return h("span", `dnb-diff-line ${cls}`, `${line}\n`);
}

/** How a panel is set up: `runFrom: false` leaves out Run from here (a panel that only reads, as
 * the history's); `hint` is what it says before a step is open. */
export interface StepPanelOptions {
  runFrom?: boolean;
  hint?: string;
}

export function stepPanel(model: Pick<RunModel, "send">, mem: PanelMemory, options: StepPanelOptions = {}): StepPanel {
  const canRun = options.runFrom ?? true;
  const el = h("div", "dnb-step-panel");
  const nav = h("div", "dnb-step-nav");
  const label = h("label", "dnb-step-label", "Step");
  const slider = asksKernel(h("input", "dnb-step-slider"));
  slider.type = "range";
  slider.min = "0";
  slider.step = "1";
  slider.setAttribute("aria-label", "Step of the thread");
  label.append(slider);
  const where = h("span", "dnb-step-where");
  const latest = asksKernel(smallButton("dnb-btn dnb-step-latest", "Latest step", "The run's latest step, as it is now"));
  latest.addEventListener("click", () => askLatest());
  nav.append(label, where, latest);
  const said = h("div", "dnb-step-said dnb-muted",
    options.hint ?? "Click a step of the timeline (or its State button) to see its state.");
  said.setAttribute("role", "status");
  const body = h("div", "dnb-step-content");
  const foot = h("div", "dnb-step-foot");
  const runFrom = asksKernel(smallButton("dnb-btn dnb-run-from", "Run from here",
    "Fork the thread at this step with your edits and run on (the original thread is untouched)"));
  const footSaid = h("span", "dnb-step-result");
  footSaid.setAttribute("role", "status");
  foot.append(runFrom, footSaid);
  el.append(nav, said, body, foot);
  foot.hidden = true;

  let steps: number[] = [];
  let current: StepStateMessage | null = null;
  let asking = -1;
  const edits = mem.edits; // kept across renders, as the step shown is
  const editsOf = (step: number): Edits => {
    if (!edits.has(step)) edits.set(step, { files: new Map(), messages: new Map() });
    return edits.get(step)!;
  };

  function open(step?: number): void {
    if (step === undefined) {
      if (!current && asking === -1) askLatest(); // unless it shows a step, or one is on its way
      return;
    }
    asking = step;
    setText(said, `Reading step ${step}…`);
    said.classList.remove("dnb-error");
    model.send({ type: "step_state", step });
  }

  function askLatest(): void {
    asking = -2; // the latest, whichever it is
    setText(said, "Reading the run's latest step…");
    said.classList.remove("dnb-error");
    model.send({ type: "latest_step" });
  }

  function renderDiff(diff: StepDiff): HTMLElement {
    const s = section(`What it changed (from ${str(diff.before)} to ${str(diff.after)})`);
    s.el.classList.add("dnb-step-diff");
    for (const m of list(diff.messages).filter(isObj)) {
      const row = h("div", "dnb-step-change", MARK.get(str(m.kind)) || "");
      row.append(h("b", "", str(m.role)), `: ${str(m.text)}`);
      s.body.append(row);
    }
    for (const t of list(diff.todos).filter(isObj)) {
      const text = t.kind === "status" ? `~ todo ${str(t.content)}: ${str(t.before)} → ${str(t.status)}`
        : `${t.kind === "added" ? "+" : "-"} todo ${str(t.content)}${t.kind === "added" ? ` [${str(t.status)}]` : ""}`;
      s.body.append(h("div", "dnb-step-change", text));
    }
    for (const f of list(diff.files).filter(isObj)) {
      s.body.append(h("div", "dnb-step-change", `${str(f.kind)} ${str(f.path)}`));
      const pre = h("pre", "dnb-diff");
      pre.append(...list(f.lines).map((line) => diffLine(str(line))));
      if (num(f.more)) pre.append(h("span", "dnb-muted", `… ${num(f.more)} more lines (bench.diff has them)`));
      s.body.append(pre);
    }
    if (num(diff.files_more)) s.body.append(h("div", "dnb-muted", `… ${num(diff.files_more)} more files changed`));
    for (const o of list(diff.other).filter(isObj)) {
      s.body.append(h("div", "dnb-step-change", `~ ${str(o.key)}: ${str(o.old)} → ${str(o.new)}`));
    }
    if (!s.body.childNodes.length) s.body.append(h("div", "dnb-muted", "Nothing changed."));
    return s.el;
  }

  function renderTodos(m: StepStateMessage, mine: Edits): HTMLElement {
    const s = section("Todos");
    const rows = h("ol", "dnb-step-todos");
    const shown = mine.todos || list(m.todos).filter(isObj).map((t) => ({ content: str(t.content), status: str(t.status) }));
    const editable = !!m.todos_editable;
    const changed = (): void => {
      mine.todos = [...rows.querySelectorAll<HTMLElement>(".dnb-step-todo")].map((li) => ({
        content: (li.querySelector("input") as HTMLInputElement).value,
        status: (li.querySelector("select") as HTMLSelectElement).value,
      }));
      markDirty();
    };
    const row = (todo: { content: string; status: string }): HTMLElement => {
      const li = h("li", "dnb-step-todo");
      const input = h("input", "dnb-step-todo-text");
      input.value = todo.content;
      input.disabled = !editable;
      input.setAttribute("aria-label", "Todo");
      const select = h("select", "dnb-step-todo-status");
      for (const status of STATUSES) {
        const option = h("option", "", status);
        option.value = status;
        select.append(option);
      }
      select.value = STATUSES.includes(todo.status) ? todo.status : "pending";
      select.disabled = !editable;
      select.setAttribute("aria-label", "Status");
      const drop = smallButton("dnb-btn dnb-step-todo-drop", "Remove", "Remove this todo");
      drop.disabled = !editable;
      drop.addEventListener("click", () => { li.remove(); changed(); });
      input.addEventListener("input", changed);
      select.addEventListener("change", changed);
      li.append(input, select, drop);
      return li;
    };
    rows.append(...shown.map(row));
    s.body.append(rows);
    if (editable) {
      const add = smallButton("dnb-btn dnb-step-todo-add", "Add todo");
      add.addEventListener("click", () => { rows.append(row({ content: "", status: "pending" })); });
      s.body.append(add);
    }
    if (!shown.length) s.body.prepend(h("div", "dnb-muted", "No todos."));
    return s.el;
  }

  function editor(text: string, onInput: (value: string) => void, name: string): HTMLTextAreaElement {
    const box = h("textarea", "dnb-step-editor");
    box.value = text;
    box.rows = Math.min(16, Math.max(3, text.split("\n").length + 1));
    box.setAttribute("aria-label", name);
    box.setAttribute("data-lm-suppress-shortcuts", "true");
    box.addEventListener("input", () => { onInput(box.value); markDirty(); });
    return box;
  }

  function renderFile(f: StepFileRow, mine: Edits, step: number): HTMLElement {
    const item = h("details", "dnb-step-file");
    item.setAttribute("data-path", str(f.path));
    const summary = h("summary", "", `${str(f.path)} · ${bytes(num(f.size))}${f.binary ? " · binary" : ""}`);
    item.append(summary);
    const pre = h("pre", "dnb-step-file-text", str(f.text) + (f.whole ? "" : "\n…"));
    item.append(pre);
    if (mine.files.has(str(f.path))) item.open = true;
    if (f.editable) {
      const edit = asksKernel(smallButton("dnb-btn dnb-step-edit-file", "Edit", `Edit ${str(f.path)} at this step`));
      const place = (text: string): void => {
        edit.remove();
        pre.replaceWith(editor(text, (value) => mine.files.set(str(f.path), value), `Text of ${str(f.path)}`));
      };
      edit.addEventListener("click", () => {
        if (f.whole) place(str(f.text));
        else {
          edit.disabled = true;
          setText(edit, "loading…");
          model.send({ type: "step_file", step, path: str(f.path) });
        }
      });
      (item as any)._place = place; // the full text, once it came, opens the editor
      item.append(edit);
      if (mine.files.has(str(f.path))) place(mine.files.get(str(f.path))!);
    } else if (!f.binary) {
      item.append(h("div", "dnb-muted", "Holds a secret or is too large to edit here: bench.fork(thread, step, update=...) edits it."));
    }
    return item;
  }

  function renderMessage(row: StepMessageRow, mine: Edits): HTMLElement {
    const item = h("div", `dnb-step-message dnb-step-${str(row.kind) || "message"}`);
    item.setAttribute("data-index", str(row.index));
    item.append(h("b", "dnb-step-role", str(row.role)));
    const text = h("div", "dnb-step-text", str(row.text));
    item.append(text);
    if (row.editable) {
      const what = row.kind === "tool" ? "this tool's result" : "the last message's text";
      const edit = smallButton("dnb-btn dnb-step-edit-message", "Edit", `Edit ${what}`);
      const place = (value: string): void => {
        edit.remove();
        text.replaceWith(editor(value, (v) => mine.messages.set(str(row.id), v), `Text of ${what}`));
      };
      edit.addEventListener("click", () => place(str(row.content)));
      item.append(edit);
      if (mine.messages.has(str(row.id))) place(mine.messages.get(str(row.id))!);
    }
    return item;
  }

  let messagesList: HTMLElement | null = null;
  let earlier: HTMLButtonElement | null = null;

  function renderMessages(m: StepStateMessage, mine: Edits): HTMLElement {
    const page = m.messages!;
    const s = section(`Messages (${num(page.total)})`);
    messagesList = h("div", "dnb-step-messages");
    earlier = asksKernel(smallButton("dnb-btn dnb-step-earlier", "Show earlier messages"));
    earlier.setAttribute("data-before", str(page.start));
    earlier.hidden = !num(page.start);
    earlier.addEventListener("click", () => {
      earlier!.disabled = true;
      model.send({ type: "step_messages", step: m.step, before: Number(earlier!.getAttribute("data-before")) });
    });
    messagesList.append(...list(page.messages).filter(isObj).map((row) => renderMessage(row as StepMessageRow, mine)));
    s.body.append(earlier, messagesList);
    return s.el;
  }

  function render(m: StepStateMessage): void {
    current = mem.step = m;
    steps = list(m.steps).map(num);
    const at = steps.indexOf(num(m.step));
    slider.max = String(Math.max(0, steps.length - 1));
    slider.value = String(Math.max(0, at));
    slider.disabled = steps.length < 2;
    slider.setAttribute("aria-valuetext", `step ${num(m.step)}`);
    setText(where, `${num(m.step)} of ${steps.length ? steps[steps.length - 1] : num(m.step)} · thread ${str(m.thread)}` +
      ` · next: ${list(m.next).map(str).join(", ") || "nothing (the run ended there)"}`);
    setText(said, `The state as step ${num(m.step)} left it, and what it changed.`);
    said.classList.remove("dnb-error");
    const mine = editsOf(num(m.step));
    const parts: HTMLElement[] = [];
    if (m.diff) parts.push(renderDiff(m.diff));
    if (m.todos) parts.push(renderTodos(m, mine));
    if (m.files || m.files_note) {
      const s = section(`Files (${num(m.files_total)})`);
      if (m.files_note) s.body.append(h("div", "dnb-muted dnb-step-files-note", str(m.files_note)));
      s.body.append(...list(m.files).filter(isObj).map((f) => renderFile(f as StepFileRow, mine, num(m.step))));
      if (num(m.files_total) > list(m.files).length) {
        s.body.append(h("div", "dnb-muted", `… ${num(m.files_total) - list(m.files).length} more files: bench.state(thread, ${num(m.step)}).files`));
      }
      if (!list(m.files).length && !m.files_note) s.body.append(h("div", "dnb-muted", "No files."));
      parts.push(s.el);
    }
    if (m.messages) parts.push(renderMessages(m, mine));
    if (list(m.other).length) {
      const s = section("Other keys");
      for (const pair of list(m.other)) s.body.append(h("div", "dnb-step-key", `${str(list(pair)[0])}: ${str(list(pair)[1])}`));
      parts.push(s.el);
    }
    body.replaceChildren(...parts);
    if (canRun) foot.hidden = runFrom.hidden = false;
    markDirty();
  }

  function editsNow(): StepEdit[] {
    if (!current) return [];
    const mine = editsOf(num(current.step));
    const found: StepEdit[] = [];
    if (mine.todos) found.push({ kind: "todos", todos: mine.todos });
    for (const [path, text] of mine.files) found.push({ kind: "file", path, text });
    for (const [id, text] of mine.messages) found.push({ kind: "message", id, text });
    return found;
  }

  function markDirty(): void {
    const count = editsNow().length;
    runFrom.setAttribute("data-edits", String(count));
    if (!footSaid.classList.contains("dnb-error")) {
      setText(footSaid, count ? `${count} edit${count === 1 ? "" : "s"} to run from step ${num(current?.step)}` : "");
    }
  }

  function receive(msg: unknown): boolean {
    if (!isObj(msg) || !["step_state", "step_messages", "step_file", "ran_from"].includes(str(msg.type))) return false;
    if (msg.type === "step_state") {
      if (msg.error) {
        setText(said, str(msg.error));
        said.classList.add("dnb-error");
      } else if (num(msg.step) === asking || asking < 0) render(msg as unknown as StepStateMessage);
      if (msg.error && asking === -2) asking = -1; // opening the tab again asks again
    } else if (msg.type === "step_messages") {
      if (earlier) earlier.disabled = false;
      if (msg.error || !current || num(msg.step) !== num(current.step) || !messagesList) {
        if (msg.error) setText(said, str(msg.error));
        return true;
      }
      const mine = editsOf(num(current.step));
      messagesList.prepend(...list(msg.messages).filter(isObj).map((row) => renderMessage(row as StepMessageRow, mine)));
      if (earlier) {
        earlier.setAttribute("data-before", str(msg.start));
        earlier.hidden = !num(msg.start);
      }
    } else if (msg.type === "step_file") {
      const item = [...body.querySelectorAll<HTMLElement>(".dnb-step-file")].find((f) => f.getAttribute("data-path") === str(msg.path));
      if (msg.error || !msg.editable) {
        setText(said, str(msg.error) || `${str(msg.path)} is too large to edit here: bench.fork(thread, step, update=...) edits it.`);
        said.classList.add("dnb-error");
      } else if (item && (item as any)._place) (item as any)._place(str(msg.text));
    } else {
      runFrom.disabled = false;
      footSaid.classList.toggle("dnb-error", !!msg.error);
      if (msg.error) setText(footSaid, str(msg.error)); // the edits stay, to fix and send again
      else {
        edits.delete(num(msg.step));
        const text = `Running on thread ${str(msg.thread_id)}, forked from step ${num(msg.step)} of thread ` +
          `${str(msg.from_thread)} with your edits (that thread is untouched).`;
        FORKED.set(str(msg.thread_id), text);
        if (FORKED.size > 32) FORKED.delete(FORKED.keys().next().value!);
        say(text);
      }
    }
    return true;
  }

  slider.addEventListener("change", () => {
    const step = steps[Number(slider.value)];
    if (step !== undefined) open(step);
  });
  runFrom.addEventListener("click", () => {
    if (!current) return;
    runFrom.disabled = true;
    footSaid.classList.remove("dnb-error");
    setText(footSaid, `Forking at step ${num(current.step)}…`);
    model.send({ type: "run_from", step: num(current.step), edits: editsNow() });
  });

  function say(text: string): void {
    mem.said = text;
    footSaid.classList.remove("dnb-error");
    setText(footSaid, text);
    foot.hidden = false;
    runFrom.hidden = !current;
  }

  if (mem.step) render(mem.step); // as it was before the view was displayed again
  if (mem.said) say(mem.said);
  return { el, open, say, receive };
}
