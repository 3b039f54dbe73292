// deepnb run view: the live transcript of one Deep Agents run (anywidget ESM module).
//
// Security: every string goes into the DOM through textContent / createTextNode / setAttribute of
// non-URL attributes. The only exception is `item.html` of finished text items, which Python has
// already rendered and sanitized (deepnb.render.markdown); it alone is set with innerHTML.
//
// Performance: updates arrive up to 20 times a second and `items` can hold thousands of entries,
// so the transcript is patched in place: one record per item id, new elements only for new ids,
// DOM writes only for fields that changed.

const STATUS_LABEL = {
  running: "running", interrupted: "waiting for your approval", done: "done", error: "failed",
  cancelled: "stopped",
};
const TOOL_MARK = { done: "✓", error: "✗", waiting: "⏸", cancelled: "■", interrupted: "■" };
const TODO_MARK = { pending: "○", in_progress: "◐", completed: "✓" };
const KINDS = new Set(["prompt", "text", "tool", "notice", "error"]);

// Expanded tool cards, per model, so a re-displayed view keeps them.
const EXPANDED = new WeakMap();

function h(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

const str = (value) => (value === undefined || value === null ? "" : String(value));
const num = (value) => (Number.isFinite(Number(value)) ? Number(value) : 0);
const fmtInt = (value) => Math.round(num(value)).toLocaleString("en-US");

function fmtElapsed(seconds) {
  const s = Math.max(0, Math.floor(num(seconds)));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, "0")}m`;
}

const plural = (n, word) => `${fmtInt(n)} ${word}${num(n) === 1 ? "" : "s"}`;

function setText(node, text) {
  const value = str(text);
  if (node.textContent !== value) node.textContent = value;
}

function setAttr(node, name, value) {
  const v = str(value);
  if (node.getAttribute(name) !== v) node.setAttribute(name, v);
}

const show = (node, visible) => { node.hidden = !visible; };

// -- transcript items -------------------------------------------------------------------------

function agentLabel(rec, agent) {
  agent = str(agent) || "main";
  if (rec.agent === agent) return;
  rec.agent = agent;
  const sub = agent !== "main";
  rec.el.classList.toggle("dnb-sub", sub);
  rec.el.style.setProperty("--dnb-depth", String(sub ? Math.max(1, agent.split("/").length - 1) : 0));
  if (sub) rec.el.setAttribute("data-agent", agent);
  else rec.el.removeAttribute("data-agent");
  if (!rec.label) return;
  show(rec.label, sub);
  setText(rec.label, sub ? agent.split("/").pop() : "");
  if (sub) rec.label.title = agent;
}

function makeItem(item, key, expanded) {
  const kind = str(item.kind);
  const el = h("div", `dnb-item dnb-${KINDS.has(kind) ? kind : "other"}`);
  el.setAttribute("data-kind", kind);
  el.setAttribute("data-id", key);
  const rec = { key, kind, el, f: {} };
  if (kind === "text" || kind === "tool") {
    rec.label = h("span", "dnb-agent-label");
    rec.label.hidden = true;
  }
  if (kind === "prompt") {
    el.append(h("span", "dnb-prompt-mark", "›"), (rec.body = h("div", "dnb-prompt-text")));
  } else if (kind === "text") {
    el.append(rec.label, (rec.body = h("div", "dnb-text-body")));
  } else if (kind === "tool") {
    const head = h("div", "dnb-tool-head");
    head.setAttribute("role", "button");
    head.setAttribute("tabindex", "0");
    rec.head = head;
    rec.caret = h("span", "dnb-tool-caret", "▸");
    rec.name = h("span", "dnb-tool-name");
    rec.args = h("span", "dnb-tool-args");
    rec.badge = h("span", "dnb-badge dnb-tool-status");
    rec.sub = h("span", "dnb-tool-subagent");
    head.append(rec.caret, rec.label, rec.name, rec.args, rec.sub, rec.badge);
    rec.result = h("div", "dnb-tool-result");
    rec.detail = h("div", "dnb-tool-detail");
    rec.argsFull = h("pre", "dnb-pre dnb-tool-args-full");
    rec.resultFull = h("pre", "dnb-pre dnb-tool-result-full");
    rec.resultLabel = h("div", "dnb-detail-label", "Result");
    rec.detail.append(h("div", "dnb-detail-label", "Arguments"), rec.argsFull, rec.resultLabel,
      rec.resultFull);
    el.append(head, rec.result, rec.detail);
    setExpanded(rec, expanded.has(key));
  } else if (kind === "notice") {
    rec.body = el;
  } else if (kind === "error") {
    el.append(h("span", "dnb-error-title", "Error"), (rec.body = h("div", "dnb-error-text")));
  } else {
    rec.body = el;
  }
  patchItem(rec, item);
  return rec;
}

function setExpanded(rec, open) {
  rec.open = open;
  rec.el.classList.toggle("dnb-open", open);
  rec.head.setAttribute("aria-expanded", open ? "true" : "false");
  rec.caret.textContent = open ? "▾" : "▸";
  show(rec.detail, open);
  if (open) fillDetail(rec);
}

function fillDetail(rec) {
  // The full texts are only put into the DOM while a card is open.
  setText(rec.argsFull, rec.f.args_full || "(no arguments)");
  const result = rec.f.result_full || "";
  show(rec.resultLabel, result !== "");
  show(rec.resultFull, result !== "");
  setText(rec.resultFull, result);
}

// Returns true when `name` differs from the last value seen, and remembers the new value.
function changed(rec, item, name) {
  const value = item[name] === undefined ? null : item[name];
  if (rec.f[name] === value) return false;
  rec.f[name] = value;
  return true;
}

function patchItem(rec, item) {
  if (rec.kind === "text" || rec.kind === "tool") agentLabel(rec, item.agent);
  if (rec.kind === "text") {
    const htmlChanged = changed(rec, item, "html");
    const prevText = rec.f.text;
    const textChanged = changed(rec, item, "text");
    const html = rec.f.html;
    if (typeof html === "string") {
      if (htmlChanged) {
        rec.stream = null;
        rec.body.classList.remove("dnb-streaming");
        rec.body.classList.add("dnb-md");
        rec.body.innerHTML = html; // Sanitized in Python; the only innerHTML in this view.
      }
    } else if (htmlChanged || textChanged) {
      const text = str(rec.f.text);
      if (!rec.stream) {
        rec.body.classList.remove("dnb-md");
        rec.body.classList.add("dnb-streaming");
        rec.body.textContent = "";
        rec.stream = document.createTextNode(text);
        rec.body.appendChild(rec.stream);
      } else if (typeof prevText === "string" && text.startsWith(prevText)) {
        rec.stream.appendData(text.slice(prevText.length));
      } else {
        rec.stream.data = text;
      }
    }
  } else if (rec.kind === "tool") {
    if (changed(rec, item, "name")) setText(rec.name, rec.f.name);
    if (changed(rec, item, "args")) setText(rec.args, rec.f.args);
    if (changed(rec, item, "status")) {
      const status = str(rec.f.status) || "running";
      rec.el.setAttribute("data-status", status);
      rec.badge.setAttribute("data-status", status);
      const mark = TOOL_MARK[status];
      rec.badge.textContent = mark ? `${mark} ${status}` : status;
    }
    if (changed(rec, item, "subagent")) {
      const path = str(rec.f.subagent);
      show(rec.sub, path !== "");
      setText(rec.sub, path ? `→ ${path.split("/").pop()}` : "");
      if (path) rec.sub.title = path;
    }
    if (changed(rec, item, "result")) {
      show(rec.result, str(rec.f.result) !== "");
      setText(rec.result, rec.f.result);
    }
    const argsChanged = changed(rec, item, "args_full");
    if ((changed(rec, item, "result_full") || argsChanged) && rec.open) fillDetail(rec);
  } else if (rec.kind === "notice") {
    if (changed(rec, item, "level")) setAttr(rec.el, "data-level", rec.f.level);
    if (changed(rec, item, "text")) setText(rec.body, rec.f.text);
  } else if (changed(rec, item, "text")) {
    setText(rec.body, rec.f.text);
  }
}

// -- the view ---------------------------------------------------------------------------------

function render({ model, el }) {
  let expanded = EXPANDED.get(model);
  if (!expanded) EXPANDED.set(model, (expanded = new Set()));
  const records = new Map(); // key (item id) → record
  let stopping = false;
  let timer = null;
  let anchor = null; // Date.now() - elapsed at the last progress update (clock-skew fallback)

  const root = h("div", "deepnb deepnb-run");
  const style = h("style");
  const bar = h("div", "dnb-progress");
  const pill = h("span", "dnb-pill dnb-status");
  const agentEl = h("span", "dnb-agent");
  const threadEl = h("span", "dnb-thread dnb-muted");
  const stepsEl = h("span", "dnb-steps");
  const callsEl = h("span", "dnb-calls");
  const elapsedEl = h("span", "dnb-elapsed");
  const tokensEl = h("span", "dnb-tokens");
  const controls = h("span", "dnb-controls");
  const stopBtn = h("button", "dnb-stop", "Stop");
  stopBtn.type = "button";
  const hintEl = h("span", "dnb-stop-hint dnb-muted");
  controls.append(stopBtn, hintEl);
  const stats = h("span", "dnb-stats");
  stats.append(stepsEl, callsEl, elapsedEl, tokensEl);
  bar.append(pill, agentEl, threadEl, stats, controls);

  const todosEl = h("div", "dnb-todos");
  const todosHead = h("div", "dnb-todos-head");
  const todosProgress = h("span", "dnb-todos-progress dnb-muted");
  todosHead.append(h("span", "dnb-todos-title", "Todos"), todosProgress);
  const todoList = h("ul", "dnb-todo-list");
  todosEl.append(todosHead, todoList);

  const transcript = h("div", "dnb-transcript");
  const pendingEl = h("div", "dnb-pending");
  const filesEl = h("div", "dnb-files");
  const errorEl = h("div", "dnb-error dnb-run-error");
  root.append(style, bar, todosEl, transcript, pendingEl, filesEl, errorEl);
  el.replaceChildren(root);

  function renderItems() {
    const items = model.get("items") || [];
    const seen = new Set();
    let prev = null;
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (!item || typeof item !== "object") continue;
      let key = item.id === undefined || item.id === null ? `#${i}` : String(item.id);
      if (seen.has(key)) { // ids should be unique; stay correct if they are not
        let n = 1;
        while (seen.has(`${key}~${n}`)) n++;
        key = `${key}~${n}`;
      }
      seen.add(key);
      let rec = records.get(key);
      if (rec && rec.kind !== str(item.kind)) {
        rec.el.remove();
        rec = null;
      }
      if (rec) patchItem(rec, item);
      else records.set(key, (rec = makeItem(item, key, expanded)));
      const want = prev ? prev.nextSibling : transcript.firstChild;
      if (want !== rec.el) transcript.insertBefore(rec.el, want);
      prev = rec.el;
    }
    for (const [key, rec] of records) {
      if (!seen.has(key)) {
        rec.el.remove();
        records.delete(key);
      }
    }
    renderError();
  }

  function toggle(event) {
    const head = event.target.closest && event.target.closest(".dnb-tool-head");
    if (!head || !transcript.contains(head)) return;
    if (event.type === "keydown") {
      if (event.key !== "Enter" && event.key !== " ") return;
      event.preventDefault();
    } else {
      const sel = window.getSelection && window.getSelection();
      if (sel && !sel.isCollapsed && head.contains(sel.anchorNode)) return; // selecting text
    }
    const rec = records.get(head.parentNode.getAttribute("data-id"));
    if (!rec || rec.kind !== "tool") return;
    if (rec.open) expanded.delete(rec.key);
    else expanded.add(rec.key);
    setExpanded(rec, !rec.open);
  }

  function renderTodos() {
    const todos = model.get("todos") || [];
    show(todosEl, todos.length > 0);
    const rows = todos.map((todo) => {
      const status = str(todo && todo.status) || "pending";
      const li = h("li", "dnb-todo");
      li.setAttribute("data-status", status);
      li.append(h("span", "dnb-todo-icon", TODO_MARK[status] || "○"),
        h("span", "dnb-todo-text", todo && todo.content));
      return li;
    });
    todoList.replaceChildren(...rows);
    renderTodoProgress();
  }

  function renderTodoProgress() {
    const todos = model.get("todos") || [];
    let text = str((model.get("progress") || {}).todo_progress);
    if (!text && todos.length) {
      const done = todos.filter((t) => t && t.status === "completed").length;
      text = done === todos.length ? `All ${done} done` : `${done} of ${todos.length} done`;
    }
    setText(todosProgress, text);
  }

  function elapsedNow() {
    const p = model.get("progress") || {};
    const elapsed = num(p.elapsed);
    if (model.get("status") !== "running") return elapsed;
    const fromStart = p.started_at ? Date.now() / 1000 - num(p.started_at) : 0;
    const fromAnchor = anchor === null ? elapsed : (Date.now() - anchor) / 1000;
    return Math.max(fromStart, fromAnchor, elapsed);
  }

  const tick = () => setText(elapsedEl, fmtElapsed(elapsedNow()));

  function renderProgress() {
    const p = model.get("progress") || {};
    anchor = Date.now() - num(p.elapsed) * 1000;
    setText(stepsEl, `step ${fmtInt(p.steps)}`);
    setText(callsEl, plural(p.tool_calls, "tool call"));
    setText(tokensEl, `tokens ${fmtInt(p.tokens_in)} in / ${fmtInt(p.tokens_out)} out`);
    tick();
    renderTodoProgress();
  }

  function renderStatus() {
    const status = str(model.get("status")) || "running";
    root.setAttribute("data-status", status);
    pill.setAttribute("data-status", status);
    setText(pill, STATUS_LABEL[status] || status);
    const running = status === "running";
    if (!running) stopping = false;
    show(controls, running);
    stopBtn.disabled = stopping;
    setText(stopBtn, stopping ? "Stopping…" : "Stop");
    if (running && timer === null) timer = setInterval(tick, 1000);
    if (!running && timer !== null) {
      clearInterval(timer);
      timer = null;
    }
    tick();
    renderPending();
  }

  function renderHeader() {
    setText(agentEl, model.get("agent"));
    const thread = str(model.get("thread_id"));
    setText(threadEl, thread ? `thread ${thread}` : "");
    show(threadEl, thread !== "");
  }

  function renderControls() {
    const hint = str(model.get("stop_hint"));
    setText(hintEl, hint);
    show(hintEl, hint !== "");
    stopBtn.title = model.get("live_controls") === false && hint ? hint : "Stop the run";
  }

  function renderPending() {
    const pending = model.get("pending") || [];
    const visible = model.get("status") === "interrupted" && pending.length > 0;
    show(pendingEl, visible);
    if (!visible) {
      pendingEl.replaceChildren();
      return;
    }
    const list = h("ul", "dnb-actions");
    for (const request of pending) {
      for (const action of (request && request.actions) || []) {
        const li = h("li", "dnb-action");
        li.append(h("span", "dnb-action-name", action && action.name),
          h("span", "dnb-action-args", action && action.args));
        if (action && action.description) {
          li.append(h("div", "dnb-action-desc", action.description));
        }
        list.append(li);
      }
    }
    pendingEl.replaceChildren(h("div", "dnb-pending-title", "Waiting for your approval"), list);
  }

  function renderFiles() {
    const files = model.get("files_changed") || [];
    show(filesEl, files.length > 0);
    const parts = [h("span", "dnb-files-label", "Files changed: ")];
    files.forEach((path, i) => {
      if (i) parts.push(document.createTextNode(", "));
      parts.push(h("code", "dnb-file", path));
    });
    filesEl.replaceChildren(...parts);
  }

  function renderError() {
    // The run's error also arrives as an error item; only show it here when it does not.
    const error = str(model.get("error"));
    const visible = error !== "" &&
      ![...records.values()].some((rec) => rec.kind === "error" && rec.f.text === error);
    show(errorEl, visible);
    setText(errorEl, visible ? `Error: ${error}` : "");
  }

  const renderCss = () => setText(style, model.get("code_css"));

  function onStop() {
    if (stopping || model.get("status") !== "running") return;
    stopping = true;
    stopBtn.disabled = true;
    stopBtn.textContent = "Stopping…";
    model.send({ type: "stop" });
  }

  const handlers = {
    "change:items": renderItems,
    "change:todos": renderTodos,
    "change:progress": renderProgress,
    "change:status": renderStatus,
    "change:pending": renderPending,
    "change:files_changed": renderFiles,
    "change:error": renderError,
    "change:agent": renderHeader,
    "change:thread_id": renderHeader,
    "change:live_controls": renderControls,
    "change:stop_hint": renderControls,
    "change:code_css": renderCss,
  };

  renderCss();
  renderHeader();
  renderControls();
  renderProgress();
  renderTodos();
  renderItems();
  renderFiles();
  renderStatus();
  for (const [name, fn] of Object.entries(handlers)) model.on(name, fn);
  transcript.addEventListener("click", toggle);
  transcript.addEventListener("keydown", toggle);
  stopBtn.addEventListener("click", onStop);

  return () => {
    for (const [name, fn] of Object.entries(handlers)) model.off(name, fn);
    transcript.removeEventListener("click", toggle);
    transcript.removeEventListener("keydown", toggle);
    stopBtn.removeEventListener("click", onStop);
    if (timer !== null) clearInterval(timer);
    timer = null;
    records.clear();
  };
}

export default { render };
