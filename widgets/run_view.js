// deepnb run view: the live transcript of one Deep Agents run, with its subagent tree,
// summarization cards, approval cards, file peek and async tasks (anywidget ESM module).
//
// Security: every string goes into the DOM through textContent / createTextNode / setAttribute of
// non-URL attributes. The only exceptions are the fields whose name ends in `html` (a finished
// text item's `html`, a summary's `summary_html`, a peeked file's `html`), which Python has already
// rendered and escaped or sanitized (deepnb.render); they alone are set with innerHTML.
//
// Performance: updates arrive up to 20 times a second, `items` can hold thousands of entries and
// `tree` dozens of subagents, so both are patched in place: one record per item id and per node
// id, new elements only for new ids, DOM writes only for fields that changed.

const STATUS_LABEL = {
  running: "running", interrupted: "waiting for your approval", done: "done", error: "failed",
  cancelled: "stopped",
};
const TOOL_MARK = { done: "✓", error: "✗", waiting: "‖", cancelled: "■", interrupted: "■" };
const TODO_MARK = { pending: "○", in_progress: "◐", completed: "✓" };
const KINDS = new Set(["prompt", "text", "tool", "notice", "error", "summary"]);
const NODE_STATUS = {
  running: "running", waiting: "waiting for approval", done: "✓ done", error: "✗ error",
  cancelled: "■ cancelled",
};

// What a view remembers beyond the synced state, per run: expanded tool cards, summaries and
// subagents, the peeked file, and the approval cards' open forms, drafts, sends in flight and caret.
// Keyed by the run (thread and start time), not by `model`: anywidget gives each view its own
// model proxy, and the view is displayed again whenever its output is updated (on pause and on
// finish).
const RUNS = new Map();

function runState(model) {
  const key = `${str(model.get("thread_id"))}@${str((model.get("progress") || {}).started_at)}`;
  let st = RUNS.get(key);
  if (!st) {
    st = {
      expanded: new Set(), // tool item ids, and summary item ids whose text is open
      nodesOpen: new Set(), // subagent node ids whose transcript is shown
      peek: null, // the file panel: {path, loading, html, text, error}
      drafts: new Map(), // approval key → {mode, values: {field: text}}
      sending: new Map(), // approval key → the card_errors key a refusal of that send lands on
      local: new Map(), // approval key → an error found before sending (nothing was sent)
      focus: null, // the form field last focused: {key, field, node, start, end}
      logOpen: false,
    };
    RUNS.set(key, st);
    if (RUNS.size > 64) RUNS.delete(RUNS.keys().next().value);
  }
  return st;
}

function h(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = shownText(text);
  return node;
}

// Untrusted content makes no requests (deepnb.render): Python turns an image from a URL into a
// placeholder naming it; a remote one gets a "load image" button here, and only its click sets an
// <img> src. Bidi control characters (an RTL override can make "txt.exe" read "exe.txt") are shown
// as escapes, \u202e, in every text this view writes.
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const LOADABLE_IMAGE = /^(https?:)?\/\//i;
const shownText = (value) =>
  (value === undefined || value === null ? "" : String(value)).replace(
    BIDI_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

function armImages(container) {
  for (const holder of container.querySelectorAll(".dnb-image-blocked[data-src]")) {
    if (holder.querySelector(".dnb-image-load")) continue;
    const load = document.createElement("button");
    load.type = "button";
    load.className = "dnb-image-load";
    load.textContent = "load image";
    load.title = "Loading it sends a request to that address";
    load.addEventListener("click", (event) => {
      event.preventDefault();
      event.stopPropagation();
      const src = holder.getAttribute("data-src") || "";
      if (!LOADABLE_IMAGE.test(src)) return;
      const img = document.createElement("img");
      img.className = "dnb-image-loaded";
      img.alt = holder.getAttribute("data-alt") || "";
      img.referrerPolicy = "no-referrer";
      img.src = src; // the one place an image URL from content is loaded: after this click
      holder.replaceWith(img);
    });
    holder.append(" ", load);
  }
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
  const value = shownText(text);
  if (node.textContent !== value) node.textContent = value;
}

function setAttr(node, name, value) {
  const v = str(value);
  if (node.getAttribute(name) !== v) node.setAttribute(name, v);
}

const show = (node, visible) => { node.hidden = !visible; };

// Keys pressed on `node` are its own: JupyterLab reads them at the document before the view does
// (Enter in command mode would edit the cell instead of opening a card or pressing a button), and
// stops looking for a shortcut at this attribute.
function ownKeys(node) {
  node.setAttribute("data-lm-suppress-shortcuts", "true");
  return node;
}

function smallButton(cls, label) {
  const node = ownKeys(h("button", cls, label));
  node.type = "button";
  return node;
}

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
  if (kind === "text" || kind === "tool" || kind === "summary") {
    rec.label = h("span", "dnb-agent-label");
    rec.label.hidden = true;
  }
  if (kind === "prompt") {
    el.append(h("span", "dnb-prompt-mark", "›"), (rec.body = h("div", "dnb-prompt-text")));
  } else if (kind === "text") {
    el.append(rec.label, (rec.body = h("div", "dnb-text-body")));
  } else if (kind === "tool") {
    const head = ownKeys(h("div", "dnb-tool-head"));
    head.setAttribute("role", "button");
    head.setAttribute("tabindex", "0");
    rec.head = head;
    rec.caret = h("span", "dnb-tool-caret", "▸");
    rec.name = h("span", "dnb-tool-name");
    rec.args = h("span", "dnb-tool-args");
    rec.badge = h("span", "dnb-badge dnb-tool-status");
    rec.sub = h("span", "dnb-tool-subagent");
    rec.show = smallButton("dnb-show-subagent", "show subagent");
    rec.show.hidden = true;
    head.append(rec.caret, rec.label, rec.name, rec.args, rec.sub, rec.show, rec.badge);
    rec.result = h("div", "dnb-tool-result");
    rec.evalEl = h("div", "dnb-eval");
    rec.evalEl.hidden = true;
    rec.detail = h("div", "dnb-tool-detail");
    rec.argsFull = h("pre", "dnb-pre dnb-tool-args-full");
    rec.resultFull = h("pre", "dnb-pre dnb-tool-result-full");
    rec.resultLabel = h("div", "dnb-detail-label", "Result");
    rec.detail.append(h("div", "dnb-detail-label", "Arguments"), rec.argsFull, rec.resultLabel,
      rec.resultFull);
    el.append(head, rec.evalEl, rec.result, rec.detail);
    setExpanded(rec, expanded.has(key));
  } else if (kind === "notice") {
    rec.body = el;
    if (item.expand === true) { // a folded stretch of a long transcript: the kernel sends it all
      el.append((rec.body = h("span", "dnb-notice-text")), " ",
        smallButton("dnb-expand", "show all"));
    }
  } else if (kind === "error") {
    el.append(h("span", "dnb-error-title", "Error"), (rec.body = h("div", "dnb-error-text")));
  } else if (kind === "summary") {
    makeSummary(rec, expanded);
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
  if (rec.label) agentLabel(rec, item.agent);
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
        armImages(rec.body);
      }
    } else if (htmlChanged || textChanged) {
      const text = str(rec.f.text);
      if (!rec.stream) {
        rec.body.classList.remove("dnb-md");
        rec.body.classList.add("dnb-streaming");
        rec.body.textContent = "";
        rec.stream = document.createTextNode(shownText(text));
        rec.body.appendChild(rec.stream);
      } else if (typeof prevText === "string" && text.startsWith(prevText)) {
        rec.stream.appendData(shownText(text.slice(prevText.length)));
      } else {
        rec.stream.data = shownText(text);
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
      setText(rec.sub, path ? `→ ${nodeLabel(path)}` : "");
      if (path) rec.sub.title = path;
      show(rec.show, path !== "");
      setAttr(rec.show, "data-node", path);
      rec.show.title = path ? `Show subagent ${path} in the Subagents panel` : "";
    }
    const evalChanged = changed(rec, item, "eval");
    if (evalChanged) patchEval(rec, isObj(rec.f.eval) ? rec.f.eval : null);
    if (changed(rec, item, "result") || evalChanged) {
      show(rec.result, str(rec.f.result) !== "" && !isObj(rec.f.eval)); // an eval card shows its parts
      setText(rec.result, rec.f.result);
    }
    const argsChanged = changed(rec, item, "args_full");
    if ((changed(rec, item, "result_full") || argsChanged) && rec.open) fillDetail(rec);
  } else if (rec.kind === "summary") {
    patchSummary(rec, item);
  } else if (rec.kind === "notice") {
    if (changed(rec, item, "level")) setAttr(rec.el, "data-level", rec.f.level);
    if (changed(rec, item, "text")) setText(rec.body, rec.f.text);
  } else if (changed(rec, item, "text")) {
    setText(rec.body, rec.f.text);
  }
}

// An interpreter `eval` card: the code (highlighted in Python), what it printed, and its result or
// error, each as text.
function patchEval(rec, run) {
  show(rec.evalEl, run !== null);
  if (!run) return;
  rec.el.classList.add("dnb-eval-card");
  const code = h("div", "dnb-eval-code");
  code.innerHTML = str(run.code_html); // highlighted and escaped by Pygments in Python
  const parts = [code];
  if (str(run.stdout)) parts.push(h("div", "dnb-detail-label", "Console"), h("pre", "dnb-pre dnb-eval-stdout", run.stdout));
  if (str(run.error)) {
    const err = h("pre", "dnb-pre dnb-eval-error", `${str(run.error_type) || "Error"}: ${str(run.error)}`);
    parts.push(h("div", "dnb-detail-label", "Error"), err);
  } else if (str(run.result)) {
    parts.push(h("div", "dnb-detail-label", "Result"), h("pre", "dnb-pre dnb-eval-result", run.result));
  }
  rec.evalEl.replaceChildren(...parts);
}

// A summarization card: what was summarized, the summary itself (collapsed), and the offloaded
// history file.
function makeSummary(rec, expanded) {
  const head = h("div", "dnb-summary-head");
  rec.meta = {
    messages: h("span", "dnb-summary-messages"),
    cutoff: h("span", "dnb-summary-cutoff"),
    tokens: h("span", "dnb-summary-tokens"),
  };
  const meta = h("span", "dnb-summary-meta");
  meta.append(rec.meta.messages, rec.meta.cutoff, rec.meta.tokens);
  head.append(h("span", "dnb-summary-icon", "⇊"), rec.label, h("span", "dnb-summary-title",
    "Context summarized"), meta);
  rec.details = h("details", "dnb-summary-details");
  rec.body = h("div", "dnb-summary-text");
  rec.details.append(ownKeys(h("summary", "dnb-summary-toggle", "Summary")), rec.body);
  rec.details.open = expanded.has(rec.key);
  rec.details.addEventListener("toggle", () => {
    if (rec.details.open) expanded.add(rec.key);
    else expanded.delete(rec.key);
  });
  rec.history = h("div", "dnb-summary-history");
  rec.path = h("code", "dnb-summary-path");
  rec.openBtn = smallButton("dnb-summary-open", "Open history file");
  rec.history.append(rec.openBtn, rec.path);
  rec.el.append(head, rec.details, rec.history);
}

const known = (value) => value !== null && value !== undefined && value !== "" &&
  Number.isFinite(Number(value));

function tokensText(before, after) {
  if (known(before) && known(after)) return `tokens ${fmtInt(before)} → ${fmtInt(after)}`;
  if (known(before)) return `tokens before ${fmtInt(before)}`;
  if (known(after)) return `tokens after ${fmtInt(after)}`;
  return "";
}

function patchSummary(rec, item) {
  const { messages, cutoff, tokens } = rec.meta;
  if (changed(rec, item, "messages")) {
    setText(messages, known(rec.f.messages) ? `${plural(rec.f.messages, "message")} summarized` : "");
    show(messages, known(rec.f.messages));
  }
  if (changed(rec, item, "cutoff")) {
    setText(cutoff, known(rec.f.cutoff) ? `cutoff index ${fmtInt(rec.f.cutoff)}` : "");
    show(cutoff, known(rec.f.cutoff));
  }
  const beforeChanged = changed(rec, item, "tokens_before");
  if (changed(rec, item, "tokens_after") || beforeChanged) {
    const text = tokensText(rec.f.tokens_before, rec.f.tokens_after);
    setText(tokens, text);
    show(tokens, text !== "");
  }
  const textChanged = changed(rec, item, "summary");
  if (changed(rec, item, "summary_html") || textChanged) {
    const html = rec.f.summary_html;
    rec.body.classList.toggle("dnb-md", typeof html === "string" && html !== "");
    if (typeof html === "string" && html !== "") {
      rec.body.innerHTML = html; // escaped in Python
      armImages(rec.body);
    } else setText(rec.body, rec.f.summary);
  }
  if (changed(rec, item, "file_path")) {
    const path = str(rec.f.file_path);
    show(rec.history, path !== "");
    setText(rec.path, path);
    setAttr(rec.openBtn, "data-path", path);
    rec.openBtn.title = path ? `Show ${path}` : "";
  }
}

// Item records by their element, for the click and key handlers of every transcript list.
const ITEM_RECS = new WeakMap();

// Gives each item a key: its id, made unique when ids repeat (they should not), or its position.
function keyItems(items) {
  const seen = new Set();
  const entries = [];
  list(items).forEach((item, i) => {
    if (!isObj(item)) return;
    let key = item.id === undefined || item.id === null ? `#${i}` : String(item.id);
    if (seen.has(key)) {
      let n = 1;
      while (seen.has(`${key}~${n}`)) n++;
      key = `${key}~${n}`;
    }
    seen.add(key);
    entries.push({ key, item });
  });
  return entries;
}

// One list of transcript items shown in `container`: the main transcript, or a subagent's.
function itemList(container, expanded) {
  const records = new Map(); // key → record

  function sync(entries) {
    const seen = new Set();
    let prev = null;
    for (const { key, item } of entries) {
      seen.add(key);
      let rec = records.get(key);
      if (rec && rec.kind !== str(item.kind)) {
        rec.el.remove();
        rec = null;
      }
      if (rec) patchItem(rec, item);
      else {
        records.set(key, (rec = makeItem(item, key, expanded)));
        ITEM_RECS.set(rec.el, rec);
      }
      placeAt(container, rec.el, prev);
      prev = rec.el;
    }
    keepOnly(records, seen, (rec) => rec.el.remove());
  }

  function clear() {
    for (const rec of records.values()) rec.el.remove();
    records.clear();
  }

  return { records, sync, clear };
}

// -- approvals --------------------------------------------------------------------------------
//
// One card per gated action, patched in place by "interrupt id:index" so an open form keeps its
// text and focus while updates stream in; the run's state (runState) carries drafts, sends in
// flight and the caret over to a re-displayed view.

const DECISION_LABEL = {
  approve: "✓ approved", edit: "✎ edited", reject: "✗ rejected", respond: "↩ responded",
};
const DECISION_BUTTONS = [
  ["approve", "dnb-approve", "Approve"], ["edit", "dnb-edit", "Edit"],
  ["reject", "dnb-reject", "Reject"], ["respond", "dnb-respond", "Respond"],
];
const ENDED = new Set(["done", "error", "cancelled"]);
// A card whose arguments were too long for a message shows them shortened: its Edit form could
// not hold them, so editing happens from Python, where the engine keeps the real ones.
const CLIPPED_NOTE =
  "Arguments shortened for display; edit them from Python: run.pending[i].edit({...})";
const isObj = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const list = (value) => (Array.isArray(value) ? value : []);

function button(cls, label, act) {
  const node = h("button", cls, label);
  node.type = "button";
  node.setAttribute("data-act", act);
  return node;
}

function keepOnly(map, keys, drop) {
  for (const [key, value] of map) {
    if (keys.has(key)) continue;
    map.delete(key);
    if (drop) drop(value);
  }
}

// The "interrupt id:index" of the card holding `node`.
function keyOf(node) {
  const card = node.closest(".dnb-approval");
  return card ? `${card.getAttribute("data-interrupt")}:${card.getAttribute("data-index")}` : "";
}

function placeAt(parent, node, prev) {
  const want = prev ? prev.nextSibling : parent.firstChild;
  if (want !== node) parent.insertBefore(node, want);
}

// "main/general-purpose#2" → "general-purpose #2", as the Subagents panel labels it.
function nodeLabel(path) {
  return str(path).split("/").pop().replace("#", " #");
}

function agentName(agent) {
  const path = str(agent) || "main";
  return path === "main" ? "main agent" : `subagent ${nodeLabel(path)}`;
}

function decisionText(decision) {
  const type = str(decision.type);
  const detail = type === "edit" ? str(decision.args) : str(decision.message);
  const text = `${DECISION_LABEL[type] || type}${detail ? `: ${detail}` : ""}`;
  return decision.auto ? `${text} (auto)` : text;
}

function diffLineClass(line) {
  if (line.startsWith("@@")) return "dnb-hunk";
  if (line.startsWith("+") && !line.startsWith("+++")) return "dnb-add";
  if (line.startsWith("-") && !line.startsWith("---")) return "dnb-del";
  return "";
}

function previewEl(preview) {
  if (!isObj(preview)) return null;
  if (preview.kind === "content") return h("pre", "dnb-pre dnb-preview", preview.text);
  if (preview.kind !== "diff") return null;
  const pre = h("pre", "dnb-pre dnb-diff");
  for (const line of str(preview.text).split("\n")) {
    pre.append(h("span", diffLineClass(line), `${line}\n`)); // one span a line, as text
  }
  return pre;
}

// The edit form's fields: strings as raw text, anything else as JSON. Arguments that are not a
// JSON object (should not happen) are edited whole, as one JSON field.
function editFields(argsJson) {
  let args = null;
  try {
    args = JSON.parse(str(argsJson) || "{}");
  } catch (_) { /* edited whole below */ }
  if (!isObj(args)) return [{ name: "", text: str(argsJson), json: true, whole: true }];
  return Object.entries(args).map(([name, value]) => (typeof value === "string"
    ? { name, text: value, json: false }
    : { name, text: JSON.stringify(value, null, 2), json: true }));
}

function fieldArea(cls, field, text) {
  const area = h("textarea", cls);
  area.setAttribute("data-field", field);
  area.spellcheck = false;
  area.value = text;
  area.rows = Math.min(10, Math.max(1, text.split("\n").length));
  return area;
}

function labelled(text, hint, area) {
  const label = h("label", "dnb-field");
  const name = h("span", "dnb-field-name", text);
  if (hint) name.append(h("span", "dnb-field-hint", ` ${hint}`));
  label.append(name, area);
  return label;
}

function makeForm(mode, action, values) {
  const form = h("div", `dnb-approval-form dnb-${mode}-form`);
  const text = (field, fallback) => (typeof values[field] === "string" ? values[field] : fallback);
  let send;
  if (mode === "edit") {
    for (const f of editFields(action.args_json)) {
      const area = fieldArea("dnb-arg", `arg:${f.name}`, text(`arg:${f.name}`, f.text));
      area.setAttribute("data-arg", f.name);
      if (f.json) area.setAttribute("data-json", "1");
      if (f.whole) area.setAttribute("data-whole", "1");
      form.append(labelled(f.whole ? "arguments" : f.name, f.json ? "(JSON)" : "", area));
    }
    send = button("dnb-edit-send", "Send edit", "edit-send");
  } else if (mode === "reject") {
    form.append(labelled("Reason", "(optional, told to the agent)",
      fieldArea("dnb-reason", "message", text("message", ""))));
    send = button("dnb-reject-send", "Reject", "reject-send");
  } else {
    form.append(labelled("Message", "(required, returned in place of the tool's result)",
      fieldArea("dnb-message", "message", text("message", ""))));
    send = button("dnb-respond-send", "Send response", "respond-send");
  }
  const row = h("div", "dnb-form-buttons");
  row.append(send, button("dnb-form-cancel", "Cancel", "cancel"));
  form.append(row);
  return form;
}

// Reads the edit form: `{args}`, or `{error}` when a JSON field does not parse.
function readEditArgs(form) {
  const args = {};
  for (const area of form.querySelectorAll("textarea.dnb-arg")) {
    const name = str(area.getAttribute("data-arg"));
    if (area.getAttribute("data-json") !== "1") {
      args[name] = area.value;
      continue;
    }
    let value;
    try {
      value = JSON.parse(area.value);
    } catch (err) {
      return { error: `${name || "The arguments"}: not valid JSON (${err.message}). Nothing was sent.` };
    }
    if (!area.hasAttribute("data-whole")) args[name] = value;
    else if (isObj(value)) return { args: value };
    else return { error: "The arguments must be a JSON object. Nothing was sent." };
  }
  return { args };
}

function signature(request, action) {
  return JSON.stringify([request.agent, action.name, action.args, action.args_json, action.description,
    action.allowed, action.preview, Boolean(action.clipped)]);
}

function makeCard(request, action, key) {
  const el = h("div", "dnb-approval");
  el.setAttribute("data-interrupt", str(request.id));
  el.setAttribute("data-index", str(action.index));
  const head = h("div", "dnb-approval-head");
  const agent = h("span", "dnb-approval-agent", agentName(request.agent));
  agent.title = str(request.agent) || "main";
  head.append(h("span", "dnb-approval-tool", action.name), agent,
    h("span", "dnb-approval-args", action.args));
  el.append(head);
  if (str(action.description)) el.append(h("div", "dnb-approval-desc", action.description));
  const preview = previewEl(action.preview);
  if (preview) el.append(preview);
  if (action.clipped) el.append(h("div", "dnb-approval-clipped", CLIPPED_NOTE));
  const card = {
    key, el, iid: str(request.id), index: num(action.index), action, sig: signature(request, action),
    buttons: [], form: null, mode: null,
  };
  const bar = h("div", "dnb-approval-buttons");
  const allowed = new Set(list(action.allowed).map(str));
  for (const [kind, cls, label] of DECISION_BUTTONS) {
    if (allowed.has(kind)) bar.append(button(cls, label, kind));
  }
  card.sendingEl = h("span", "dnb-approval-sending", "Sending…");
  bar.append(card.sendingEl);
  if (allowed.has("approve")) {
    bar.append(button("dnb-always", `Always approve ${str(action.name)} in this thread`, "always"));
  }
  card.buttons = [...bar.querySelectorAll("button")];
  const edit = bar.querySelector("[data-act='edit']");
  if (edit && action.clipped) {
    edit.title = CLIPPED_NOTE;
    edit.setAttribute("aria-description", CLIPPED_NOTE);
  }
  card.errorEl = h("div", "dnb-card-error");
  card.decisionEl = h("div", "dnb-approval-decision");
  el.append(bar, card.errorEl, card.decisionEl);
  return card;
}

function pendingTitle(status, undecided) {
  if (status === "interrupted") {
    return undecided ? `Waiting for your approval — ${plural(undecided, "action")}`
      : "Decisions sent — resuming…";
  }
  if (status === "running") {
    return "Decisions pending — the run resumes each subagent as its actions are decided";
  }
  return "Not decided — the run ended before these were decided";
}

// A view whose kernel restarted, shut down, or that was drawn from a saved notebook: nothing
// behind it can act on a click any more.
const goneText = (thread) => `kernel restarted — %deepagent approvals -t ${thread} brings these back`;

function logEntry(entry) {
  const type = str(entry.type);
  const li = h("li", "dnb-decision");
  li.setAttribute("data-type", type);
  const at = str(entry.at);
  const time = h("span", "dnb-decision-at", at.split(" ").pop());
  time.title = at;
  li.append(time, h("span", "dnb-decision-tool", entry.tool),
    h("span", "dnb-decision-type", DECISION_LABEL[type] || type));
  const detail = type === "edit" ? str(entry.args) : str(entry.message);
  if (detail) li.append(h("span", "dnb-decision-detail", detail));
  if (entry.auto) li.append(h("span", "dnb-decision-auto", "(auto)"));
  return li;
}

// The approval cards (`el`) and the decision log (`log`) of one view. `read(name)` gives the
// current value of a synced field (status, pending, card_errors, decisions).
function approvalsView(model, st, read = (name) => model.get(name), gone = () => false) {
  const cards = new Map(); // key → card
  const groups = new Map(); // interrupt id → {el, all, cardsEl}
  const el = h("div", "dnb-pending");
  // JupyterLab's shortcuts (Shift+Enter runs the cell, A/B/D… in command mode) stay out of the
  // forms and buttons: Lumino stops looking for a shortcut at this attribute.
  el.setAttribute("data-lm-suppress-shortcuts", "true");
  const title = h("div", "dnb-pending-title");
  const groupsEl = h("div", "dnb-interrupts");
  el.append(title, groupsEl);
  const log = h("details", "dnb-decisions");
  const logSummary = h("summary", "dnb-decisions-summary");
  const logList = h("ol", "dnb-decision-list");
  log.append(logSummary, logList);
  log.open = st.logOpen;

  function groupFor(iid) {
    let group = groups.get(iid);
    if (!group) {
      group = { el: h("div", "dnb-interrupt"), all: button("dnb-approve-all", "", "approve-all"),
        cardsEl: h("div", "dnb-approval-cards") };
      group.el.setAttribute("data-interrupt", iid);
      group.all.setAttribute("data-interrupt", iid);
      group.el.append(group.all, group.cardsEl);
      groups.set(iid, group);
    }
    return group;
  }

  function patchCard(card, errors, ended) {
    const decision = isObj(card.action.decision) ? card.action.decision : null;
    if (decision) {
      st.sending.delete(card.key);
      st.local.delete(card.key);
      st.drafts.delete(card.key);
      if (card.form) closeForm(card);
    } else if (card.action.clipped && st.drafts.get(card.key)?.mode === "edit") {
      if (card.form) closeForm(card); // the arguments were shortened since: edit from Python
      else st.drafts.delete(card.key);
    } else if (!card.form && st.drafts.has(card.key)) {
      openForm(card, st.drafts.get(card.key).mode);
    }
    const sending = st.sending.has(card.key);
    setAttr(card.el, "data-decided", decision ? "true" : "false");
    setAttr(card.el, "data-decision", decision ? decision.type : "");
    card.el.classList.toggle("dnb-sending", sending);
    const locked = Boolean(decision) || sending || ended;
    for (const b of card.buttons) {
      b.disabled = locked || (card.action.clipped && b.getAttribute("data-act") === "edit");
    }
    if (card.form) {
      for (const b of card.form.querySelectorAll("button")) b.disabled = sending || ended;
    }
    show(card.sendingEl, sending);
    const error = st.local.get(card.key) || str(errors[card.key]);
    setText(card.errorEl, error);
    show(card.errorEl, error !== "");
    setText(card.decisionEl, decision ? decisionText(decision) : "");
    show(card.decisionEl, Boolean(decision));
  }

  // Places (and patches) the cards of one interrupt; returns how many are undecided.
  function renderGroup(request, seen, errors, ended) {
    const iid = str(request.id);
    const group = groupFor(iid);
    let prev = null;
    let undecided = 0;
    let idle = 0; // undecided and not in flight
    for (const action of list(request.actions)) {
      if (!isObj(action)) continue;
      const key = `${iid}:${str(action.index)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      let card = cards.get(key);
      if (card && card.sig !== signature(request, action)) {
        card.el.remove();
        card = null;
      }
      if (!card) cards.set(key, (card = makeCard(request, action, key)));
      card.action = action;
      patchCard(card, errors, ended);
      placeAt(group.cardsEl, card.el, prev);
      prev = card.el;
      if (!isObj(action.decision)) {
        undecided++;
        if (!st.sending.has(key)) idle++;
      }
    }
    show(group.all, undecided > 1);
    setText(group.all, `Approve all ${undecided}`);
    group.all.disabled = ended || idle === 0;
    return undecided;
  }

  function render() {
    const status = str(read("status")) || "running";
    const errors = isObj(read("card_errors")) ? read("card_errors") : {};
    const ended = ENDED.has(status) || gone();
    for (const [key, errorKey] of st.sending) if (errors[errorKey]) st.sending.delete(key);
    const requests = list(read("pending")).filter(isObj);
    prune(requests); // first: moving a card past a stale one would blur a field it holds
    const seen = new Set();
    let prev = null;
    let undecided = 0;
    for (const request of requests) {
      const group = groupFor(str(request.id));
      if (seen.has(group)) continue; // an interrupt listed twice
      seen.add(group);
      undecided += renderGroup(request, seen, errors, ended);
      placeAt(groupsEl, group.el, prev);
      prev = group.el;
    }
    setAttr(el, "data-status", status);
    setText(title, gone() && undecided ? goneText(str(read("thread_id"))) : pendingTitle(status, undecided));
    show(el, cards.size > 0);
  }

  function prune(requests) {
    const keys = new Set();
    for (const request of requests) {
      for (const action of list(request.actions)) {
        if (isObj(action)) keys.add(`${str(request.id)}:${str(action.index)}`);
      }
    }
    keepOnly(cards, keys, (card) => card.el.remove());
    keepOnly(groups, new Set(requests.map((request) => str(request.id))), (group) => group.el.remove());
    for (const map of [st.drafts, st.sending, st.local]) keepOnly(map, keys);
  }

  function renderLog() {
    const entries = list(read("decisions")).filter(isObj);
    show(log, entries.length > 0);
    setText(logSummary, `Decisions (${entries.length})`);
    logList.replaceChildren(...entries.map(logEntry));
  }

  // -- forms ------------------------------------------------------------------------------------

  function openForm(card, mode, focus = false) {
    if (card.form) card.form.remove();
    let draft = st.drafts.get(card.key);
    if (!draft || draft.mode !== mode) st.drafts.set(card.key, (draft = { mode, values: {} }));
    card.form = makeForm(mode, card.action, draft.values);
    card.mode = mode;
    card.el.insertBefore(card.form, card.errorEl);
    for (const b of card.buttons) {
      if (b.getAttribute("data-act") === mode) b.setAttribute("aria-expanded", "true");
      else b.removeAttribute("aria-expanded");
    }
    if (focus) card.form.querySelector("textarea")?.focus({ preventScroll: true });
  }

  function closeForm(card) {
    if (card.form) card.form.remove();
    card.form = null;
    card.mode = null;
    st.drafts.delete(card.key);
    for (const b of card.buttons) b.removeAttribute("aria-expanded");
  }

  // -- sending ----------------------------------------------------------------------------------

  function dispatch(keys, errorKey, message) {
    if (keys.length === 0 || keys.some((key) => st.sending.has(key))) return; // sent already
    for (const key of keys) {
      st.sending.set(key, errorKey);
      st.local.delete(key);
    }
    // Forget earlier refusals first, so one worded the same way still arrives as a change.
    const errors = isObj(read("card_errors")) ? read("card_errors") : {};
    const stale = [...keys, errorKey].filter((key) => key in errors);
    if (stale.length) {
      const next = { ...errors };
      for (const key of stale) delete next[key];
      model.set("card_errors", next);
      model.save_changes();
    }
    model.send(message);
    render();
  }

  function decide(card, decision) {
    dispatch([card.key], card.key,
      { type: "decide", interrupt_id: card.iid, index: card.index, decision });
  }

  function refuse(card, why) {
    st.local.set(card.key, why);
    render();
  }

  function sendForm(card, act) {
    if (act === "edit-send") {
      const { args, error } = readEditArgs(card.form);
      if (error) refuse(card, error);
      else decide(card, { type: "edit", args });
      return;
    }
    const message = str(card.form.querySelector("textarea")?.value);
    if (act === "reject-send") decide(card, { type: "reject", message });
    else if (message.trim()) decide(card, { type: "respond", message });
    else refuse(card, "Write a message: it is what the agent gets instead of the tool's result.");
  }

  function approveAll(iid) {
    const keys = [...cards.values()]
      .filter((card) => card.iid === iid && !isObj(card.action.decision) && !st.sending.has(card.key))
      .map((card) => card.key);
    dispatch(keys, `${iid}:0`, { type: "approve_all", interrupt_id: iid });
  }

  // Keys typed in a form stay there: JupyterLab would otherwise hold back Enter's line break
  // (its guard for pending shortcuts). Ctrl/Cmd+Enter sends the form.
  function onKeyDown(event) {
    if (event.target.tagName !== "TEXTAREA") return;
    event.stopPropagation();
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
    event.preventDefault();
    event.target.closest(".dnb-approval-form")?.querySelector("[data-act$='-send']")?.click();
  }

  function onClick(event) {
    const btn = event.target.closest && event.target.closest("button[data-act]");
    if (!btn || !el.contains(btn) || btn.disabled) return;
    const act = btn.getAttribute("data-act");
    if (act === "approve-all") return approveAll(str(btn.getAttribute("data-interrupt")));
    const card = cards.get(keyOf(btn));
    if (!card) return;
    if (act === "approve") decide(card, { type: "approve" });
    else if (act === "always") {
      dispatch([card.key], card.key,
        { type: "always", interrupt_id: card.iid, index: card.index, tool: str(card.action.name) });
    } else if (act === "cancel") {
      closeForm(card);
      st.local.delete(card.key);
      render();
    } else if (act.endsWith("-send")) sendForm(card, act);
    else if (card.mode === act) closeForm(card);
    else openForm(card, act, true);
  }

  // -- what was typed, and where the caret was ----------------------------------------------------

  function fieldOf(target) {
    if (!target || target.tagName !== "TEXTAREA" || !el.contains(target)) return null;
    return { key: keyOf(target), field: str(target.getAttribute("data-field")) };
  }

  function onInput(event) {
    const where = fieldOf(event.target);
    const draft = where && st.drafts.get(where.key);
    if (draft) draft.values[where.field] = event.target.value;
    if (where) noteCaret(event);
  }

  function noteCaret(event) {
    const where = fieldOf(event.target);
    if (where) {
      const { selectionStart: start, selectionEnd: end } = event.target;
      st.focus = { ...where, node: event.target, start, end };
    }
  }

  // Forget the field when the user leaves it; not when it leaves the page with its view.
  function onFocusOut(event) {
    const f = st.focus;
    if (!f || f.node !== event.target) return;
    if (event.relatedTarget) st.focus = null;
    else setTimeout(() => { if (st.focus === f && f.node.isConnected) st.focus = null; }, 0);
  }

  // A re-displayed view gets the focus back, caret included, when the field that had it left the
  // page with the old view and nothing else took it. Both views can be on the page for a moment,
  // and a new one is rendered before it is attached: so try again for a few frames.
  function restoreFocus(tries = 20) {
    const f = st.focus;
    if (!f || disposed) return;
    if (f.node.isConnected || !el.isConnected) {
      if (tries > 0) requestAnimationFrame(() => restoreFocus(tries - 1));
      return;
    }
    const active = document.activeElement;
    const card = cards.get(f.key);
    const area = card && card.form &&
      [...card.form.querySelectorAll("textarea")].find((a) => a.getAttribute("data-field") === f.field);
    if (!area || (active && active !== document.body)) return;
    area.focus({ preventScroll: true });
    area.setSelectionRange(f.start, f.end);
    st.focus = { ...f, node: area };
  }

  let disposed = false;
  const onToggle = () => { st.logOpen = log.open; };
  const listeners = [[el, "click", onClick], [el, "keydown", onKeyDown], [el, "input", onInput],
    [el, "focusin", noteCaret], [el, "keyup", noteCaret], [el, "mouseup", noteCaret],
    [el, "focusout", onFocusOut], [log, "toggle", onToggle]];
  for (const [node, name, fn] of listeners) node.addEventListener(name, fn);
  render();
  renderLog();
  restoreFocus();

  function dispose() {
    disposed = true;
    for (const [node, name, fn] of listeners) node.removeEventListener(name, fn);
  }

  return { el, log, render, renderLog, dispose };
}

// -- subagent tree ------------------------------------------------------------------------------
//
// One card per subagent node, patched in place by node id. Parallel siblings share a wrapping
// row; a nested subagent's card sits inside its parent's card. Opening a card shows the
// transcript items whose agent is that node, rendered like the main transcript's.

// Remembers `value` under `name`; true when it differs from the last one.
function differs(rec, name, value) {
  if (rec.f[name] === value) return false;
  rec.f[name] = value;
  return true;
}

function makeNode(id, expanded) {
  const el = h("div", "dnb-node");
  el.setAttribute("data-node", id);
  const head = ownKeys(h("div", "dnb-node-head"));
  head.setAttribute("role", "button");
  head.setAttribute("tabindex", "0");
  const rec = { id, el, head, f: {}, open: false };
  rec.caret = h("span", "dnb-node-caret", "▸");
  rec.label = h("span", "dnb-node-label");
  rec.badge = h("span", "dnb-badge dnb-node-status");
  const top = h("div", "dnb-node-top");
  top.append(rec.caret, rec.label, rec.badge);
  rec.desc = h("div", "dnb-node-desc");
  rec.duration = h("span", "dnb-node-duration");
  rec.calls = h("span", "dnb-node-calls");
  rec.tokens = h("span", "dnb-node-tokens");
  const stats = h("div", "dnb-node-stats");
  stats.append(rec.duration, rec.calls, rec.tokens);
  rec.activity = h("div", "dnb-node-activity");
  rec.result = h("div", "dnb-node-result");
  head.append(top, rec.desc, stats, rec.activity, rec.result);
  rec.body = h("div", "dnb-node-body");
  rec.transcript = h("div", "dnb-node-transcript");
  rec.empty = h("div", "dnb-node-empty dnb-muted", "No messages yet.");
  rec.resultLabel = h("div", "dnb-detail-label", "Result");
  rec.resultFull = h("pre", "dnb-pre dnb-node-result-full");
  rec.body.append(rec.transcript, rec.empty, rec.resultLabel, rec.resultFull);
  rec.children = h("div", "dnb-node-row dnb-node-children");
  rec.children.hidden = true;
  el.append(head, rec.body, rec.children);
  rec.items = itemList(rec.transcript, expanded);
  setNodeOpen(rec, false);
  return rec;
}

function setNodeOpen(rec, open) {
  rec.open = open;
  rec.el.classList.toggle("dnb-open", open);
  rec.head.setAttribute("aria-expanded", open ? "true" : "false");
  rec.caret.textContent = open ? "▾" : "▸";
  show(rec.body, open);
  if (open) fillNodeResult(rec);
  else rec.items.clear(); // a closed card keeps no transcript elements
}

function fillNodeResult(rec) {
  // As with tool cards, the full result is only put into the DOM while the card is open.
  const result = str(rec.f.result_full);
  show(rec.resultLabel, result !== "");
  show(rec.resultFull, result !== "");
  setText(rec.resultFull, result);
}

function patchNode(rec, node) {
  if (differs(rec, "label", str(node.label) || str(node.name) || rec.id.split("/").pop())) {
    setText(rec.label, rec.f.label);
  }
  if (differs(rec, "title", `${rec.id}${node.source ? ` · via ${str(node.source)}` : ""}`)) {
    rec.label.title = rec.f.title;
  }
  if (changed(rec, node, "status")) {
    const status = str(rec.f.status) || "running";
    setAttr(rec.el, "data-status", status);
    setAttr(rec.badge, "data-status", status);
    setText(rec.badge, NODE_STATUS[status] || status);
  }
  if (changed(rec, node, "description")) {
    const text = str(rec.f.description);
    setText(rec.desc, text);
    rec.desc.title = text;
    show(rec.desc, text !== "");
  }
  if (changed(rec, node, "tool_calls")) setText(rec.calls, plural(rec.f.tool_calls, "tool call"));
  const inChanged = changed(rec, node, "tokens_in");
  if (changed(rec, node, "tokens_out") || inChanged) {
    setText(rec.tokens, `tokens ${fmtInt(rec.f.tokens_in)} in / ${fmtInt(rec.f.tokens_out)} out`);
  }
  const resultChanged = changed(rec, node, "result");
  if (changed(rec, node, "activity") || resultChanged) {
    const result = str(rec.f.result);
    const activity = str(rec.f.activity);
    setText(rec.result, result);
    rec.result.title = result;
    show(rec.result, result !== "");
    setText(rec.activity, activity);
    rec.activity.title = activity;
    show(rec.activity, activity !== "" && result === ""); // the result replaces the activity
  }
  if (changed(rec, node, "result_full") && rec.open) fillNodeResult(rec);
  changed(rec, node, "started_at");
  changed(rec, node, "finished_at");
}

// How long a subagent ran, or has been running by the kernel's clock `now` (epoch seconds).
function nodeDuration(rec, now) {
  if (!known(rec.f.started_at)) return "";
  const start = num(rec.f.started_at);
  if (!known(rec.f.finished_at)) return fmtElapsed(now - start);
  const seconds = Math.max(0, num(rec.f.finished_at) - start);
  return seconds < 10 ? `${seconds.toFixed(1)}s` : fmtElapsed(seconds);
}

// Each node's parent id ("" for the top level): its `parent` when that node exists, else the
// node that lists it among its `children`.
function parentsOf(byId) {
  const parents = new Map();
  for (const [id, node] of byId) {
    for (const child of list(node.children).map(str)) {
      if (child !== id && byId.has(child) && !parents.has(child)) parents.set(child, id);
    }
  }
  for (const [id, node] of byId) {
    const parent = str(node.parent);
    if (parent !== id && byId.has(parent)) parents.set(id, parent);
    else if (!parents.has(id)) parents.set(id, "");
  }
  return parents;
}

function countsText(byId) {
  const counts = new Map();
  for (const node of byId.values()) {
    const status = str(node.status) || "running";
    counts.set(status, (counts.get(status) || 0) + 1);
  }
  const order = ["running", "waiting", "done", "error", "cancelled"];
  const statuses = [...counts.keys()].sort((a, b) =>
    (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
  return statuses.map((status) => `${fmtInt(counts.get(status))} ${status}`).join(" · ");
}

// The "Subagents" panel. `now()` gives the kernel's clock; `fill()` renders the transcripts of
// the open cards (it calls `syncItems`).
function treeView(model, st, expanded, now, fill) {
  const nodes = new Map(); // node id → record
  const ticking = new Set(); // records of nodes that have not finished
  const el = h("div", "dnb-tree");
  el.setAttribute("role", "region");
  el.setAttribute("aria-label", "Subagents");
  el.hidden = true;
  const head = h("div", "dnb-tree-head");
  const counts = h("span", "dnb-tree-counts dnb-muted");
  head.append(h("span", "dnb-tree-title", "Subagents"), counts);
  const roots = h("div", "dnb-node-row dnb-tree-roots");
  el.append(head, roots);
  let flash = null;

  // Patches the cards; returns true when nodes came or went (items may then change lists).
  function render() {
    const byId = new Map();
    for (const node of list(model.get("tree"))) {
      if (isObj(node) && str(node.id) !== "" && !byId.has(str(node.id))) byId.set(str(node.id), node);
    }
    const parents = parentsOf(byId);
    const kids = new Map([["", []]]);
    for (const id of byId.keys()) {
      const parent = parents.get(id);
      if (!kids.has(parent)) kids.set(parent, []);
      kids.get(parent).push(id);
    }
    const clock = now();
    const seen = new Set();
    let added = false;
    const place = (container, ids, prev = null) => {
      for (const id of ids) {
        if (seen.has(id)) continue;
        seen.add(id);
        let rec = nodes.get(id);
        if (!rec) {
          nodes.set(id, (rec = makeNode(id, expanded)));
          if (st.nodesOpen.has(id)) setNodeOpen(rec, true);
          added = true;
        }
        patchNode(rec, byId.get(id));
        if (known(rec.f.finished_at)) ticking.delete(rec);
        else ticking.add(rec);
        setText(rec.duration, nodeDuration(rec, clock));
        placeAt(container, rec.el, prev);
        prev = rec.el;
        place(rec.children, kids.get(id) || []);
      }
      return prev;
    };
    let last = place(roots, kids.get(""));
    for (const id of byId.keys()) { // a loop of parents: shown at the top level
      if (!seen.has(id)) last = place(roots, [id], last);
    }
    const removed = nodes.size > seen.size;
    keepOnly(nodes, seen, (rec) => {
      rec.el.remove();
      ticking.delete(rec);
    });
    for (const rec of nodes.values()) {
      const nested = rec.children.firstElementChild !== null;
      if (differs(rec, "nested", nested)) {
        show(rec.children, nested);
        rec.el.classList.toggle("dnb-has-children", nested);
      }
    }
    setText(counts, countsText(byId));
    show(el, byId.size > 0);
    return added || removed;
  }

  // Shows each open card's items; `groups` maps a node id to its {key, item} entries.
  function syncItems(groups) {
    for (const rec of nodes.values()) {
      if (!rec.open) continue;
      const entries = groups.get(rec.id) || [];
      rec.items.sync(entries);
      show(rec.empty, entries.length === 0);
    }
  }

  const has = (id) => nodes.has(id);

  function setOpen(rec, open) {
    if (open) st.nodesOpen.add(rec.id);
    else st.nodesOpen.delete(rec.id);
    setNodeOpen(rec, open);
    if (open) fill();
  }

  function toggle(head) {
    const rec = nodes.get(str(head.parentNode.getAttribute("data-node")));
    if (rec) setOpen(rec, !rec.open);
  }

  // Opens a node's card and brings it into view (the task card's "show subagent").
  function reveal(id) {
    const rec = nodes.get(id);
    if (!rec) return;
    if (!rec.open) setOpen(rec, true);
    if (rec.el.scrollIntoView) rec.el.scrollIntoView({ block: "nearest", behavior: "smooth" });
    rec.head.focus({ preventScroll: true });
    for (const other of nodes.values()) other.el.classList.remove("dnb-flash");
    rec.el.classList.add("dnb-flash");
    clearTimeout(flash);
    flash = setTimeout(() => rec.el.classList.remove("dnb-flash"), 1500);
  }

  function tick() {
    if (!ticking.size) return;
    const clock = now();
    for (const rec of ticking) setText(rec.duration, nodeDuration(rec, clock));
  }

  function dispose() {
    clearTimeout(flash);
    for (const rec of nodes.values()) rec.items.clear();
    nodes.clear();
    ticking.clear();
  }

  return { el, render, syncItems, has, toggle, reveal, tick, dispose };
}

// -- file peek ----------------------------------------------------------------------------------
//
// A closable panel showing one file the kernel sent back for {"type": "open_file"}. Its `html`
// was escaped (and highlighted or rendered) in Python; everything else is text.

function peekView(model, st) {
  const el = h("div", "dnb-filepeek");
  el.setAttribute("role", "region");
  const head = h("div", "dnb-filepeek-head");
  const pathEl = h("code", "dnb-filepeek-path");
  const closeBtn = smallButton("dnb-filepeek-close", "×");
  closeBtn.title = "Close";
  closeBtn.setAttribute("aria-label", "Close the file");
  head.append(h("span", "dnb-filepeek-title", "File"), pathEl, closeBtn);
  const body = h("div", "dnb-filepeek-body");
  el.append(head, body);
  let slow = null;

  function render() {
    const peek = st.peek;
    show(el, Boolean(peek));
    if (!peek) {
      body.replaceChildren();
      return;
    }
    const path = str(peek.path);
    setText(pathEl, path);
    pathEl.title = path;
    setAttr(el, "data-path", path);
    el.setAttribute("aria-label", `File ${path}`);
    setAttr(el, "data-state", peek.loading ? "loading" : peek.error ? "error" : "ready");
    body.classList.remove("dnb-md");
    if (peek.loading) {
      body.replaceChildren(h("div", "dnb-filepeek-loading dnb-muted", peek.slow
        ? "Waiting for the kernel… (it answers once the running cell has finished)" : "Loading…"));
    } else if (peek.error) {
      body.replaceChildren(h("div", "dnb-filepeek-error", peek.error));
    } else if (peek.html) {
      body.classList.add("dnb-md");
      body.innerHTML = peek.html; // escaped in Python
      armImages(body);
    } else {
      body.replaceChildren(h("pre", "dnb-pre dnb-filepeek-text", peek.text));
    }
  }

  function open(path) {
    if (!path) return;
    st.peek = { path, loading: true, slow: false };
    render();
    model.send({ type: "open_file", path });
    clearTimeout(slow);
    slow = setTimeout(() => {
      if (st.peek && st.peek.loading && st.peek.path === path) {
        st.peek.slow = true;
        render();
      }
    }, 5000);
    if (el.scrollIntoView) el.scrollIntoView({ block: "nearest", behavior: "smooth" });
  }

  // The kernel's answer; dropped when the panel was closed meanwhile.
  function receive(msg) {
    if (!st.peek) return;
    st.peek = {
      path: str(msg.path), loading: false, html: typeof msg.html === "string" ? msg.html : "",
      text: str(msg.text), error: str(msg.error),
    };
    render();
  }

  function close() {
    st.peek = null;
    render();
  }

  closeBtn.addEventListener("click", close);

  function dispose() {
    clearTimeout(slow);
    closeBtn.removeEventListener("click", close);
  }

  return { el, render, open, receive, dispose };
}

// -- async tasks --------------------------------------------------------------------------------

const pad2 = (n) => String(n).padStart(2, "0");

// An ISO time (or epoch seconds) as "14:03:07" today, "2025-01-31 14:03" on other days.
function fmtWhen(value) {
  if (value === "" || value === null || value === undefined) return "";
  const date = new Date(typeof value === "number" ? value * 1000 : String(value));
  if (Number.isNaN(date.getTime())) return str(value);
  const time = `${pad2(date.getHours())}:${pad2(date.getMinutes())}`;
  if (date.toDateString() !== new Date().toDateString()) {
    return `${date.getFullYear()}-${pad2(date.getMonth() + 1)}-${pad2(date.getDate())} ${time}`;
  }
  return `${time}:${pad2(date.getSeconds())}`;
}

const shortId = (id) => (id.length > 12 ? `${id.slice(0, 8)}…` : id);

// The `async_tasks` trait as a list of tasks (the refresh's error in the `async_error` trait), or
// as {tasks, refreshed_at, error}.
function asyncState(value, error) {
  if (Array.isArray(value)) return { tasks: value.filter(isObj), refreshedAt: null, error: str(error) };
  const data = isObj(value) ? value : {};
  return {
    tasks: list(data.tasks).filter(isObj), refreshedAt: data.refreshed_at,
    error: str(data.error) || str(error),
  };
}

function timeCell(cls, value, title) {
  const cell = h("td", cls, fmtWhen(value));
  cell.title = title;
  return cell;
}

function taskRow(task) {
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

// The "Async tasks" panel: the tasks this thread started on a LangGraph server.
function asyncView(model) {
  const el = h("div", "dnb-async");
  el.setAttribute("role", "region");
  el.setAttribute("aria-label", "Async tasks");
  el.hidden = true;
  const head = h("div", "dnb-async-head");
  const when = h("span", "dnb-async-refreshed dnb-muted");
  const refreshBtn = smallButton("dnb-async-refresh", "Refresh");
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
  let refreshing = null; // a timer while a refresh is awaited

  function settle() {
    clearTimeout(refreshing);
    refreshing = null;
    refreshBtn.disabled = false;
    setText(refreshBtn, "Refresh");
  }

  function render() {
    settle();
    const { tasks, refreshedAt, error } = asyncState(model.get("async_tasks"), model.get("async_error"));
    show(el, tasks.length > 0 || error !== "");
    setText(errorEl, error);
    show(errorEl, error !== "");
    setText(when, known(refreshedAt) ? `refreshed ${fmtWhen(num(refreshedAt))}` : "");
    show(table, tasks.length > 0);
    tbody.replaceChildren(...tasks.map(taskRow));
  }

  function refresh() {
    if (refreshing !== null) return;
    refreshBtn.disabled = true;
    setText(refreshBtn, "Refreshing…");
    model.send({ type: "refresh_tasks" });
    refreshing = setTimeout(settle, 10000); // no answer (or an unchanged list): usable again
  }

  refreshBtn.addEventListener("click", refresh);

  function dispose() {
    clearTimeout(refreshing);
    refreshBtn.removeEventListener("click", refresh);
  }

  return { el, render, dispose };
}

// -- live patches -------------------------------------------------------------------------------

// While a run streams, the kernel sends `{type: "patch"}` messages with only what changed (the
// transcript items that changed, the subagent nodes that changed, the other fields that changed,
// and the item order when it changed) instead of re-sending every trait. `liveModel` folds them
// over the synced traits and offers the model's get/set/on/off/send, so the view reads one source.
// A full sync (the run stopped; the `revision` trait grows) supersedes every patch.
function liveModel(widget) {
  const overlay = new Map(); // trait name → value from patches
  const listeners = new Map(); // "change:name" → Set of callbacks
  const relays = new Map(); // callback → the function registered on the widget
  const get = (name) => (overlay.has(name) ? overlay.get(name) : widget.get(name));
  const fire = (name) => {
    for (const fn of listeners.get(`change:${name}`) || []) fn();
  };

  function onPatch(msg) {
    if (!isObj(msg) || msg.type !== "patch") return;
    for (const [name, value] of Object.entries(isObj(msg.state) ? msg.state : {})) {
      overlay.set(name, value);
      fire(name);
    }
    upsertNodes(list(msg.nodes).filter((node) => isObj(node) && str(node.id) !== ""));
    const upsert = list(msg.upsert).filter(isObj);
    const appended = list(msg.append_ids);
    if (!upsert.length && !Array.isArray(msg.ids) && !appended.length) return;
    const current = list(get("items")).filter(isObj);
    const byId = new Map(current.map((item) => [item.id, item]));
    for (const item of upsert) byId.set(item.id, item);
    // `ids` is the whole order; `append_ids` names only the items added at the end.
    const ids = Array.isArray(msg.ids) ? msg.ids : current.map((item) => item.id).concat(appended);
    overlay.set("items", ids.map((id) => byId.get(id)).filter(Boolean));
    fire("items");
  }

  // Changed nodes replace theirs by id; new ones go at the end (the tree is in start order). Done
  // before the items, so a subagent's first items arrive to its node.
  function upsertNodes(nodes) {
    if (!nodes.length) return;
    const tree = list(get("tree")).filter(isObj);
    const at = new Map(tree.map((node, i) => [str(node.id), i]));
    for (const node of nodes) {
      const i = at.get(str(node.id));
      if (i === undefined) at.set(str(node.id), tree.push(node) - 1);
      else tree[i] = node;
    }
    overlay.set("tree", tree);
    fire("tree");
  }

  function onFullSync() {
    const names = [...overlay.keys()];
    overlay.clear();
    for (const name of names) fire(name);
  }

  widget.on("msg:custom", onPatch);
  widget.on("change:revision", onFullSync);

  return {
    get,
    set: (name, value) => widget.set(name, value),
    save_changes: () => widget.save_changes(),
    send(...args) {
      // A comm closed by a kernel restart throws ("Cannot send"): the view says the kernel is
      // gone instead.
      try {
        widget.send(...args);
      } catch (error) {
        console.warn("deepnb: the kernel is gone, nothing was sent", error);
      }
    },
    on(event, fn) {
      const name = event.startsWith("change:") ? event.slice(7) : null;
      const relay = (...args) => {
        if (name !== null) overlay.delete(name);
        fn(...args);
      };
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event).add(fn);
      relays.set(fn, relay);
      widget.on(event, relay);
    },
    off(event, fn) {
      listeners.get(event)?.delete(fn);
      const relay = relays.get(fn);
      if (relay) widget.off(event, relay);
      relays.delete(fn);
    },
    dispose() {
      widget.off("msg:custom", onPatch);
      widget.off("change:revision", onFullSync);
      listeners.clear();
    },
  };
}

// -- the view ---------------------------------------------------------------------------------

function render({ model: widget, el }) {
  saveViewsAsSnapshots(widget.widget_manager);
  const model = liveModel(widget);
  const st = runState(model);
  const expanded = st.expanded;
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
  const main = itemList(transcript, expanded);
  const tree = treeView(model, st, expanded, kernelNow, () => renderItems());
  const peek = peekView(model, st);
  const tasks = asyncView(model);
  let gone = false; // no kernel behind the view: cards and Stop go, the view says how to get them back
  const approvals = approvalsView(model, st, undefined, () => gone);
  const filesEl = h("div", "dnb-files");
  const errorEl = h("div", "dnb-error dnb-run-error");
  root.append(style, bar, peek.el, todosEl, tree.el, tasks.el, transcript, approvals.el,
    approvals.log, filesEl, errorEl);
  el.replaceChildren(root);

  // The main transcript shows the main agent's items; a subagent's items go to its node in the
  // tree (and stay here, indented, when the tree has no such node).
  function renderItems() {
    const mainItems = [];
    const byNode = new Map(); // node id → its {key, item} entries
    for (const entry of keyItems(model.get("items"))) {
      const agent = str(entry.item.agent) || "main";
      if (agent === "main" || !tree.has(agent)) mainItems.push(entry);
      else if (byNode.has(agent)) byNode.get(agent).push(entry);
      else byNode.set(agent, [entry]);
    }
    main.sync(mainItems);
    tree.syncItems(byNode);
    renderError();
  }

  function renderTree() {
    if (tree.render()) renderItems(); // nodes came or went: items may move between lists
  }

  const HEADS = ".dnb-tool-head, .dnb-node-head";

  function onClick(event) {
    const target = event.target;
    if (!target || !target.closest) return;
    const btn = target.closest("button");
    if (btn) {
      const node = btn.classList.contains("dnb-show-subagent") && btn.getAttribute("data-node");
      const path = btn.classList.contains("dnb-summary-open") && btn.getAttribute("data-path");
      if (node) tree.reveal(node);
      if (path) peek.open(path);
      if (btn.classList.contains("dnb-expand")) {
        btn.disabled = true;
        btn.textContent = "loading…";
        model.send({ type: "expand" });
      }
      return; // other buttons have their own handlers
    }
    const head = target.closest(HEADS);
    if (!head || !root.contains(head)) return;
    const sel = window.getSelection && window.getSelection();
    if (sel && !sel.isCollapsed && head.contains(sel.anchorNode)) return; // selecting text
    toggle(head);
  }

  function onKeyDown(event) {
    if (event.key !== "Enter" && event.key !== " ") return;
    const head = event.target;
    if (!head.matches || !head.matches(HEADS) || !root.contains(head)) return; // not a button in it
    event.preventDefault();
    toggle(head);
  }

  function toggle(head) {
    if (head.classList.contains("dnb-node-head")) return tree.toggle(head);
    const rec = ITEM_RECS.get(head.parentNode);
    if (!rec || rec.kind !== "tool") return;
    if (rec.open) expanded.delete(rec.key);
    else expanded.add(rec.key);
    setExpanded(rec, !rec.open);
  }

  function onMessage(msg) {
    if (isObj(msg) && msg.type === "file") peek.receive(msg);
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

  // The kernel's clock (epoch seconds): the run's start plus its elapsed time, so subagent
  // durations agree with the run's even when the browser's clock is off.
  function kernelNow() {
    const p = model.get("progress") || {};
    return p.started_at ? num(p.started_at) + elapsedNow() : Date.now() / 1000;
  }

  function tick() {
    setText(elapsedEl, fmtElapsed(elapsedNow()));
    tree.tick();
  }

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
    show(controls, running && !gone);
    root.classList.toggle("dnb-kernel-gone", gone);
    stopBtn.disabled = stopping;
    setText(stopBtn, stopping ? "Stopping…" : "Stop");
    if (running && timer === null) timer = setInterval(tick, 1000);
    if (!running && timer !== null) {
      clearInterval(timer);
      timer = null;
    }
    tick();
    approvals.render();
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
      ![...main.records.values()].some((rec) => rec.kind === "error" && rec.f.text === error);
    show(errorEl, visible);
    setText(errorEl, visible ? `Error: ${error}` : "");
  }

  const renderCss = () => setText(style, model.get("code_css"));

  function onStop() {
    if (gone || stopping || model.get("status") !== "running") return;
    stopping = true;
    stopBtn.disabled = true;
    stopBtn.textContent = "Stopping…";
    model.send({ type: "stop" });
  }

  const handlers = {
    "change:items": renderItems,
    "change:tree": renderTree,
    "change:async_tasks": tasks.render,
    "change:async_error": tasks.render,
    "msg:custom": onMessage,
    "change:todos": renderTodos,
    "change:progress": renderProgress,
    "change:status": renderStatus,
    "change:pending": approvals.render,
    "change:card_errors": approvals.render,
    "change:decisions": approvals.renderLog,
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
  tree.render();
  renderItems();
  tasks.render();
  peek.render();
  renderFiles();
  renderStatus();
  for (const [name, fn] of Object.entries(handlers)) model.on(name, fn);
  root.addEventListener("click", onClick);
  root.addEventListener("keydown", onKeyDown);
  stopBtn.addEventListener("click", onStop);
  const unwatch = watchKernel(widget, () => {
    gone = true;
    renderStatus();
  });
  // A view rendered while the run streams asks for what the traits don't have yet.
  if (model.get("status") === "running" && !gone) model.send({ type: "sync" });

  return () => {
    for (const [name, fn] of Object.entries(handlers)) model.off(name, fn);
    root.removeEventListener("click", onClick);
    root.removeEventListener("keydown", onKeyDown);
    stopBtn.removeEventListener("click", onStop);
    unwatch();
    approvals.dispose();
    tree.dispose();
    peek.dispose();
    tasks.dispose();
    model.dispose();
    if (timer !== null) clearInterval(timer);
    timer = null;
    main.clear();
  };
}

export default { render };
