// The "Async tasks" panel: the tasks this thread started on a LangGraph server.

import { h, setText, show, smallButton } from "../lib/dom";
import { asksKernel } from "./kernel_gate";
import { isObj, known, list, num, pad2, str } from "../lib/text";
import type { AsyncTask } from "../types";
import type { RunModel } from "./live_model";

/** An ISO time (or epoch seconds) as "14:03:07" today, "2025-01-31 14:03" on other days. */
export function fmtWhen(value: unknown): string {
  if (value === "" || value === null || value === undefined) return "";
  const date = new Date(typeof value === "number" ? value * 1000 : String(value));
  if (Number.isNaN(date.getTime())) return str(value);
  const time = `${pad2(date.getHours())}:${pad2(date.getMinutes())}`;
  if (date.toDateString() !== new Date().toDateString()) {
    return `${date.getFullYear()}-${pad2(date.getMonth() + 1)}-${pad2(date.getDate())} ${time}`;
  }
  return `${time}:${pad2(date.getSeconds())}`;
}

const shortId = (id: string): string => (id.length > 12 ? `${id.slice(0, 8)}…` : id);

/** The `async_tasks` trait as a list of tasks (the refresh's error in the `async_error` trait), or
 * as {tasks, refreshed_at, error}. */
export function asyncState(value: unknown, error: unknown): { tasks: AsyncTask[]; refreshedAt: unknown; error: string } {
  if (Array.isArray(value)) return { tasks: value.filter(isObj) as AsyncTask[], refreshedAt: null, error: str(error) };
  const data = isObj(value) ? value : {};
  return {
    tasks: list(data.tasks).filter(isObj) as AsyncTask[], refreshedAt: data.refreshed_at,
    error: str(data.error) || str(error),
  };
}

function timeCell(cls: string, value: unknown, title: string): HTMLTableCellElement {
  const cell = h("td", cls, fmtWhen(value));
  cell.title = title;
  return cell;
}

function taskRow(task: AsyncTask): HTMLTableRowElement {
  const status = str(task.status);
  const tr = h("tr", "dnb-async-task");
  tr.setAttribute("data-task", str(task.task_id));
  tr.setAttribute("data-status", status);
  const badge = h("span", "dnb-badge dnb-async-status", status);
  badge.setAttribute("data-status", status);
  const statusCell = h("td", "dnb-async-status-cell");
  statusCell.append(badge);
  const thread = str(task.thread_id);
  const threadCell = h("td", "dnb-async-thread");
  const code = h("code", "", shortId(thread));
  code.title = thread;
  threadCell.append(code);
  const agent = h("td", "dnb-async-agent", task.agent_name);
  agent.title = str(task.task_id) ? `task ${str(task.task_id)}` : "";
  const checked = str(task.last_checked_at);
  tr.append(agent, statusCell, threadCell,
    timeCell("dnb-async-created", task.created_at, str(task.created_at)),
    timeCell("dnb-async-updated", task.last_updated_at,
      `${str(task.last_updated_at)}${checked ? ` (checked ${checked})` : ""}`));
  return tr;
}

export interface AsyncView { el: HTMLElement; render(): void; dispose(): void }

export function asyncView(model: RunModel): AsyncView {
  const el = h("div", "dnb-async");
  el.setAttribute("role", "region");
  el.setAttribute("aria-label", "Async tasks");
  el.hidden = true;
  const head = h("div", "dnb-async-head");
  const when = h("span", "dnb-async-refreshed dnb-muted");
  const refreshBtn = asksKernel(smallButton("dnb-btn dnb-async-refresh", "Refresh"));
  refreshBtn.title = "Ask the server for the tasks' current status";
  head.append(h("span", "dnb-async-title", "Async tasks"), when, refreshBtn);
  const errorEl = h("div", "dnb-async-error");
  const table = h("table", "dnb-async-table");
  const headRow = h("tr");
  for (const name of ["Agent", "Status", "Thread", "Created", "Updated"]) {
    headRow.append(h("th", "", name));
  }
  const thead = h("thead");
  thead.append(headRow);
  const tbody = h("tbody");
  table.append(thead, tbody);
  el.append(head, errorEl, table);
  let refreshing: ReturnType<typeof setTimeout> | null = null; // a timer while a refresh is awaited

  function settle(): void {
    if (refreshing !== null) clearTimeout(refreshing);
    refreshing = null;
    refreshBtn.disabled = false;
    setText(refreshBtn, "Refresh");
  }

  function render(): void {
    settle();
    const { tasks, refreshedAt, error } = asyncState(model.get("async_tasks"), model.get("async_error"));
    show(el, tasks.length > 0 || error !== "");
    setText(errorEl, error);
    show(errorEl, error !== "");
    setText(when, known(refreshedAt) ? `refreshed ${fmtWhen(num(refreshedAt))}` : "");
    show(table, tasks.length > 0);
    tbody.replaceChildren(...tasks.map(taskRow));
  }

  function refresh(): void {
    if (refreshing !== null) return;
    refreshBtn.disabled = true;
    setText(refreshBtn, "Refreshing…");
    model.send({ type: "refresh_tasks" });
    refreshing = setTimeout(settle, 10000); // no answer (or an unchanged list): usable again
  }

  refreshBtn.addEventListener("click", refresh);

  function dispose(): void {
    if (refreshing !== null) clearTimeout(refreshing);
    refreshBtn.removeEventListener("click", refresh);
  }

  return { el, render, dispose };
}
