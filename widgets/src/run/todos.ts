// The agent's todo list, with its progress ("Task 2 of 5").

import { h, setText, show } from "../lib/dom";
import { shownAs } from "../lib/statuses";
import { str } from "../lib/text";
import { TODO_STATUS_MARK } from "../schema";
import type { RunModel } from "./live_model";
import { BROKEN_OFF, TODO_INTERRUPTED_MARK } from "../schema";

export interface TodosView { el: HTMLElement; render(): void; renderProgress(): void }

export function todosView(model: RunModel): TodosView {
  const el = h("div", "dnb-todos");
  el.setAttribute("role", "region");
  el.setAttribute("aria-label", "Todos");
  const head = h("div", "dnb-todos-head");
  const progress = h("span", "dnb-todos-progress dnb-muted");
  head.append(h("span", "dnb-todos-title", "Todos"), progress);
  const todoList = h("ul", "dnb-todo-list");
  el.append(head, todoList);

  function render(): void {
    const todos = model.get("todos") || [];
    // A failed or stopped run left its in-progress todo unfinished: shown as interrupted.
    const brokenOff = BROKEN_OFF.has(model.get("status"));
    show(el, todos.length > 0);
    const rows = todos.map((todo) => {
      const status = str(todo && todo.status) || "pending";
      const li = h("li", "dnb-todo");
      const interrupted = status === "in_progress" && brokenOff;
      li.setAttribute("data-status", interrupted ? "interrupted" : status);
      li.append(h("span", "dnb-todo-icon", interrupted ? TODO_INTERRUPTED_MARK : shownAs(TODO_STATUS_MARK, status, "○")),
        h("span", "dnb-todo-text", todo && todo.content));
      if (interrupted) li.append(h("span", "dnb-todo-interrupted", "(interrupted)"));
      return li;
    });
    todoList.replaceChildren(...rows);
    renderProgress();
  }

  function renderProgress(): void {
    const todos = model.get("todos") || [];
    let text = str((model.get("progress") || {}).todo_progress);
    if (!text && todos.length) {
      const done = todos.filter((t) => t && t.status === "completed").length;
      text = done === todos.length ? `All ${done} done` : `${done} of ${todos.length} done`;
    }
    setText(progress, text);
  }

  return { el, render, renderProgress };
}
