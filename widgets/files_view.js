// deepnb file browser: a thread's files as a lazily expanded tree, a search box (glob / grep), a
// viewer with an editor, downloads, and the diffs of the run the view follows (anywidget ESM module).
//
// Security: every string goes into the DOM through textContent / setAttribute of non-URL
// attributes. The one exception is a file's `html`, rendered and escaped in Python
// (deepnb.files.render.render_file), which alone is set with innerHTML. A download's link is a
// Blob URL made here from the bytes the kernel sent; nothing from a file becomes a URL or runs.
//
// Protocol (see deepnb/views/files_view.py): requests carry a `seq` unique to this view, and each
// reply echoes it; `{type: "changed", paths}` arrives unasked while a run writes files, and the
// view asks again for what it shows.

const str = (value) => (value === undefined || value === null ? "" : String(value));
const num = (value) => (Number.isFinite(Number(value)) ? Number(value) : 0);
const isObj = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const list = (value) => (Array.isArray(value) ? value : []);
const show = (node, visible) => { node.hidden = !visible; };
const GONE = "The kernel restarted or shut down: run %deepagent files again to browse.";
const KIND_LABEL = { markdown: "Markdown", code: "code", table: "table", image: "image", binary: "binary" };
const TEXT_KINDS = new Set(["markdown", "code", "table"]);
const CHANGE_MARK = { added: "+", modified: "~", deleted: "−" };
const REFRESH_DELAY = 150; // ms: `changed` messages close together make one refresh

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

function setText(node, text) {
  const value = shownText(text);
  if (node.textContent !== value) node.textContent = value;
}

// Keys pressed on `node` are its own: JupyterLab reads them at the document first (Enter or the
// arrow keys in command mode would move between cells) and stops looking at this attribute.
function ownKeys(node) {
  node.setAttribute("data-lm-suppress-shortcuts", "true");
  return node;
}

function button(cls, label, title) {
  const node = ownKeys(h("button", cls, label));
  node.type = "button";
  if (title) node.title = title;
  return node;
}

function fmtSize(size) {
  if (size === null || size === undefined || size === "") return "";
  const n = num(size);
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} kB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

function fmtTime(iso) {
  const text = str(iso);
  const date = text ? new Date(text) : null;
  if (!date || Number.isNaN(date.getTime())) return text;
  const pad = (n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

const parentOf = (path) => {
  const trimmed = str(path).replace(/\/$/, "");
  return trimmed.slice(0, trimmed.lastIndexOf("/") + 1) || "/";
};

// Whether a change at `changed` can alter what folder `folder` lists.
const touches = (folder, changed) => changed === "/" || str(changed).startsWith(folder);

function saveBlob(msg) {
  const raw = atob(str(msg.base64));
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  const url = URL.createObjectURL(new Blob([bytes], { type: str(msg.mime) || "application/octet-stream" }));
  const link = document.createElement("a");
  link.href = url; // a Blob URL made here, never a URL from the kernel
  link.download = str(msg.name) || "download";
  link.hidden = true;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// -- the tree ---------------------------------------------------------------------------------
//
// One record per entry shown, by path. A folder's children load when it is first opened, a page
// at a time ("Show more"); a refresh asks again for as many as it shows and patches them in place,
// so open subfolders and focus survive live updates.

function treeView(request, onOpenFile) {
  const el = ownKeys(h("ul", "dnb-fv-tree"));
  el.setAttribute("role", "tree");
  el.setAttribute("aria-label", "Files");
  const records = new Map(); // path → record
  const root = { path: "/", isDir: true, open: true, loaded: true, kids: new Map(), group: el, total: 0,
    depth: 0, seq: null };
  let current = null; // the row that takes Tab focus (roving tabindex)
  let selected = "";

  function makeRecord(entry, depth) {
    const isDir = Boolean(entry.is_dir);
    const li = h("li", "dnb-fv-entry");
    li.setAttribute("role", "none");
    const row = ownKeys(h("div", "dnb-fv-row"));
    row.setAttribute("role", "treeitem");
    row.setAttribute("tabindex", "-1");
    row.setAttribute("aria-level", String(depth));
    row.style.setProperty("--dnb-fv-depth", String(depth - 1));
    const rec = {
      path: str(entry.path), isDir, depth, li, row, open: false, loaded: false, kids: new Map(),
      total: 0, seq: null,
      caret: h("span", "dnb-fv-caret", isDir ? "▸" : ""),
      name: h("span", "dnb-fv-name"),
      mount: h("span", "dnb-fv-mount"),
      lock: h("span", "dnb-fv-lock", "read-only"),
      size: h("span", "dnb-fv-size"),
      time: h("span", "dnb-fv-time"),
    };
    rec.caret.setAttribute("aria-hidden", "true");
    row.setAttribute("data-path", rec.path);
    row.setAttribute("data-kind", isDir ? "folder" : "file");
    row.append(rec.caret, rec.name, rec.mount, rec.lock, rec.size, rec.time);
    li.append(row);
    if (isDir) {
      row.setAttribute("aria-expanded", "false");
      rec.group = h("ul", "dnb-fv-group");
      rec.group.setAttribute("role", "group");
      rec.group.hidden = true;
      li.append(rec.group);
    }
    records.set(rec.path, rec);
    updateRecord(rec, entry);
    return rec;
  }

  function updateRecord(rec, entry) {
    setText(rec.name, entry.name || rec.path);
    rec.row.title = rec.path;
    const mount = str(entry.mount);
    show(rec.mount, mount !== "");
    setText(rec.mount, mount ? "mount" : "");
    rec.mount.title = mount ? `Another backend is mounted at ${mount}` : "";
    rec.row.classList.toggle("dnb-fv-mounted", mount !== "");
    show(rec.lock, !rec.isDir && entry.writable === false);
    rec.lock.title = "The agent's permission rules deny writing this file.";
    setText(rec.size, rec.isDir ? "" : fmtSize(entry.size));
    setText(rec.time, fmtTime(entry.modified_at));
    rec.time.title = str(entry.modified_at);
  }

  function forget(rec) {
    for (const kid of rec.kids.values()) forget(kid);
    records.delete(rec.path);
    if (current === rec.row) current = null;
  }

  // Put a listing into `folder`: the first page replaces what it shows, a later page appends.
  function fill(folder, msg) {
    const entries = list(msg.entries).filter(isObj);
    const replace = num(msg.offset) === 0;
    const kids = replace ? new Map() : folder.kids; // in display order
    let prev = replace ? null : [...folder.kids.values()].pop()?.li || null;
    for (const entry of entries) {
      const path = str(entry.path);
      let rec = folder.kids.get(path);
      if (rec && rec.isDir !== Boolean(entry.is_dir)) { // a file became a folder, or back
        rec.li.remove();
        forget(rec);
        folder.kids.delete(path);
        rec = null;
      }
      if (rec && !replace) { // a later page repeating an entry shown already: leave it in place
        updateRecord(rec, entry);
        continue;
      }
      if (rec) updateRecord(rec, entry);
      else rec = makeRecord(entry, folder.depth + 1);
      kids.set(path, rec);
      const next = prev ? prev.nextSibling : folder.group.firstChild;
      if (next !== rec.li) folder.group.insertBefore(rec.li, next);
      prev = rec.li;
    }
    if (replace) {
      for (const [path, rec] of folder.kids) {
        if (kids.has(path)) continue;
        rec.li.remove();
        forget(rec);
      }
      folder.kids = kids;
      if (selected && !records.has(selected)) selected = "";
    }
    folder.total = num(msg.total);
    folder.loaded = true;
    status(folder, "", "");
    const missing = folder.total - folder.kids.size;
    if (missing > 0) {
      folder.more = folder.more || button("dnb-fv-more", "");
      folder.more.setAttribute("data-path", folder.path);
      setText(folder.more, `Show more (${folder.kids.size.toLocaleString("en-US")} of ` +
        `${folder.total.toLocaleString("en-US")} shown)`);
      const li = folder.moreLi || (folder.moreLi = h("li", "dnb-fv-more-item"));
      li.setAttribute("role", "none");
      li.replaceChildren(folder.more);
      folder.group.appendChild(li);
    } else if (folder.moreLi) {
      folder.moreLi.remove();
    }
    if (folder.kids.size === 0) status(folder, "dnb-fv-empty-folder", "(empty)");
    if (!current || !current.isConnected) setCurrent(firstRow());
    markSelected();
  }

  // A one-line note inside a folder: loading, empty, or why it could not be listed.
  function status(folder, cls, text) {
    if (!text) {
      if (folder.note) folder.note.remove();
      folder.note = null;
      return;
    }
    if (!folder.note) {
      folder.note = h("li", "dnb-fv-note");
      folder.note.setAttribute("role", "none");
    }
    folder.note.className = `dnb-fv-note ${cls}`;
    folder.note.style.setProperty("--dnb-fv-depth", String(folder.depth));
    setText(folder.note, text);
    folder.group.insertBefore(folder.note, folder.group.firstChild);
  }

  function load(folder, { offset = 0, quiet = false } = {}) {
    const limit = offset === 0 ? Math.max(200, folder.kids.size) : 200;
    if (!quiet && !folder.loaded) status(folder, "dnb-fv-loading", "Loading…");
    const seq = request({ type: "ls", path: folder.path, offset, limit }, (msg) => {
      if (folder.seq !== seq) return; // a newer listing was asked for
      folder.seq = null;
      if (msg.error) {
        status(folder, "dnb-fv-error", msg.error);
        return;
      }
      fill(folder, msg);
    });
    folder.seq = seq;
  }

  function setOpen(rec, open) {
    if (!rec.isDir || rec.open === open) return;
    rec.open = open;
    rec.row.setAttribute("aria-expanded", open ? "true" : "false");
    setText(rec.caret, open ? "▾" : "▸");
    rec.group.hidden = !open;
    if (open && !rec.loaded) load(rec);
  }

  function activate(rec) {
    if (rec.isDir) setOpen(rec, !rec.open);
    else onOpenFile(rec.path);
  }

  function visibleRows() {
    const rows = [];
    const walk = (folder) => {
      for (const rec of folder.kids.values()) {
        rows.push(rec);
        if (rec.isDir && rec.open) walk(rec);
      }
    };
    walk(root);
    return rows;
  }

  function firstRow() {
    const first = root.kids.values().next().value;
    return first ? first.row : null;
  }

  function setCurrent(row) {
    if (current && current !== row) current.setAttribute("tabindex", "-1");
    current = row;
    if (row) row.setAttribute("tabindex", "0");
  }

  function focusRec(rec) {
    if (!rec) return;
    setCurrent(rec.row);
    rec.row.focus();
  }

  function recOf(target) {
    const row = target && target.closest ? target.closest(".dnb-fv-row") : null;
    return row && el.contains(row) ? records.get(row.getAttribute("data-path")) : null;
  }

  function onClick(event) {
    const more = event.target.closest && event.target.closest(".dnb-fv-more");
    if (more && el.contains(more)) {
      const path = more.getAttribute("data-path");
      const folder = path === root.path ? root : records.get(path);
      if (folder) load(folder, { offset: folder.kids.size });
      return;
    }
    const rec = recOf(event.target);
    if (!rec) return;
    setCurrent(rec.row);
    activate(rec);
  }

  function onKeyDown(event) {
    const rec = recOf(event.target);
    if (!rec || event.target !== rec.row) return;
    const rows = visibleRows();
    const at = rows.indexOf(rec);
    let handled = true;
    switch (event.key) {
      case "Enter":
      case " ":
        activate(rec);
        break;
      case "ArrowDown":
        focusRec(rows[at + 1]);
        break;
      case "ArrowUp":
        focusRec(rows[at - 1]);
        break;
      case "Home":
        focusRec(rows[0]);
        break;
      case "End":
        focusRec(rows[rows.length - 1]);
        break;
      case "ArrowRight":
        if (rec.isDir && !rec.open) setOpen(rec, true);
        else if (rec.isDir) focusRec(rec.kids.values().next().value);
        break;
      case "ArrowLeft":
        if (rec.isDir && rec.open) setOpen(rec, false);
        else focusRec(records.get(parentOf(rec.path)));
        break;
      default:
        handled = false;
    }
    if (handled) {
      event.preventDefault();
      event.stopPropagation();
    }
  }

  function markSelected() {
    for (const rec of records.values()) {
      const on = rec.path === selected;
      rec.row.classList.toggle("dnb-fv-selected", on);
      if (on) rec.row.setAttribute("aria-selected", "true");
      else rec.row.removeAttribute("aria-selected");
    }
  }

  function select(path) {
    selected = str(path);
    markSelected();
  }

  // Ask again for every open folder a change can touch (quietly: no "Loading…").
  function refresh(paths) {
    const all = paths === null;
    const folders = [root, ...[...records.values()].filter((r) => r.isDir && r.open && r.loaded)];
    for (const folder of folders) {
      if (all || paths.some((p) => touches(folder.path, p))) load(folder, { quiet: true });
    }
  }

  el.addEventListener("click", onClick);
  el.addEventListener("keydown", onKeyDown);

  return {
    el,
    root,
    fill,
    refresh,
    select,
    setRoot(path) { root.path = path; },
    dispose() {
      el.removeEventListener("click", onClick);
      el.removeEventListener("keydown", onKeyDown);
    },
  };
}

// -- search ------------------------------------------------------------------------------------

function searchView(request, onOpenFile, rootPath) {
  const el = h("div", "dnb-fv-search-box");
  const form = h("form", "dnb-fv-search");
  form.setAttribute("role", "search");
  const modes = h("div", "dnb-fv-modes");
  modes.setAttribute("role", "group");
  modes.setAttribute("aria-label", "Search by");
  const globBtn = button("dnb-fv-mode dnb-fv-mode-glob", "Names", "Find files whose path matches a glob pattern");
  const grepBtn = button("dnb-fv-mode dnb-fv-mode-grep", "Text", "Find lines containing some text (grep)");
  globBtn.setAttribute("data-mode", "glob");
  grepBtn.setAttribute("data-mode", "grep");
  modes.append(globBtn, grepBtn);
  const input = ownKeys(h("input", "dnb-fv-query"));
  input.type = "search";
  input.setAttribute("aria-label", "Search the files");
  const go = button("dnb-fv-search-go", "Search");
  go.type = "submit";
  form.append(modes, input, go);

  const results = h("div", "dnb-fv-results");
  results.hidden = true;
  results.setAttribute("aria-live", "polite");
  const head = h("div", "dnb-fv-results-head");
  const summary = h("span", "dnb-fv-results-summary");
  const clear = button("dnb-fv-results-clear", "Clear", "Clear the search results");
  head.append(summary, clear);
  const hits = h("ul", "dnb-fv-hits");
  results.append(head, hits);
  el.append(form, results);

  let mode = "glob";
  let last = null; // the query shown: {mode, query}
  let seq = null;

  function setMode(next) {
    mode = next === "grep" ? "grep" : "glob";
    globBtn.setAttribute("aria-pressed", mode === "glob" ? "true" : "false");
    grepBtn.setAttribute("aria-pressed", mode === "grep" ? "true" : "false");
    input.placeholder = mode === "glob" ? "**/*.md" : "text to find";
  }

  function run(query, searchMode) {
    last = { mode: searchMode, query };
    results.hidden = false;
    results.setAttribute("data-state", "loading");
    setText(summary, "Searching…");
    const sent = request({ type: "search", mode: searchMode, query, path: rootPath() }, (msg) => {
      if (sent !== seq) return;
      seq = null;
      render(msg);
    });
    seq = sent;
  }

  function render(msg) {
    results.setAttribute("data-state", msg.error ? "error" : "ready");
    if (msg.error) {
      setText(summary, msg.error);
      hits.replaceChildren();
      return;
    }
    const found = list(msg.results).filter(isObj);
    const total = num(msg.total);
    const grep = msg.mode === "grep";
    const what = grep ? `line${total === 1 ? "" : "s"} contain` : `file${total === 1 ? "" : "s"} match`;
    let text = `${total.toLocaleString("en-US")} ${what}${total === 1 ? "s" : ""} “${str(msg.query)}”`;
    if (msg.capped) text += ` (first ${found.length.toLocaleString("en-US")} shown)`;
    setText(summary, total ? text : `Nothing matches “${str(msg.query)}”.`);
    hits.replaceChildren(...found.map((hit) => {
      const li = h("li", "dnb-fv-hit-item");
      const btn = button("dnb-fv-hit");
      btn.setAttribute("data-path", str(hit.path));
      btn.append(h("span", "dnb-fv-hit-path", hit.path));
      if (grep) {
        btn.append(h("span", "dnb-fv-hit-line", `:${num(hit.line)}`), h("span", "dnb-fv-hit-text", hit.text));
      }
      li.append(btn);
      return li;
    }));
  }

  function onSubmit(event) {
    event.preventDefault();
    run(input.value, mode);
  }

  function onClick(event) {
    const target = event.target;
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
    if (hit) onOpenFile(hit.getAttribute("data-path"));
  }

  // Enter runs the search itself: a notebook's own key handling may not let the form submit.
  function onKeyDown(event) {
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

// -- the viewer and editor ----------------------------------------------------------------------

function viewerView(request, onSaved, onSelect) {
  const el = h("section", "dnb-fv-viewer");
  el.setAttribute("aria-label", "File");
  const head = h("div", "dnb-fv-viewer-head");
  const pathEl = h("code", "dnb-fv-path");
  const meta = h("span", "dnb-fv-meta");
  const actions = h("span", "dnb-fv-actions");
  const editBtn = button("dnb-fv-edit", "Edit");
  const downloadBtn = button("dnb-fv-download", "Download");
  actions.append(editBtn, downloadBtn);
  head.append(pathEl, meta, actions);
  const note = h("div", "dnb-fv-readonly");
  const actionError = h("div", "dnb-fv-action-error");
  actionError.setAttribute("role", "alert");
  const stale = h("div", "dnb-fv-stale",
    "This file changed in the kernel while you were editing: Save overwrites that change.");
  const content = h("div", "dnb-fv-content");
  const editor = h("div", "dnb-fv-editor");
  const textarea = ownKeys(h("textarea", "dnb-fv-textarea"));
  textarea.spellcheck = false;
  textarea.setAttribute("aria-label", "File text");
  const bar = h("div", "dnb-fv-editor-bar");
  const saveBtn = button("dnb-fv-save", "Save", "Save (Ctrl+S)");
  const cancelBtn = button("dnb-fv-cancel", "Cancel");
  const editorError = h("div", "dnb-fv-editor-error");
  editorError.setAttribute("role", "alert");
  bar.append(saveBtn, cancelBtn, editorError);
  editor.append(textarea, bar);
  const empty = h("div", "dnb-fv-placeholder", "Pick a file to see it here.");
  el.append(head, note, actionError, stale, content, editor, empty);

  // path: the file shown or asked for; file: its last reply; editing: the editor is open (with
  // `original`, the text it opened with); saving: a save is on its way.
  const st = { path: "", file: null, seq: null, editing: false, original: "", saving: false,
    error: "" };

  function render() {
    const file = st.file;
    const has = Boolean(st.path);
    show(empty, !has);
    show(head, has);
    setText(pathEl, st.path);
    el.setAttribute("data-state", st.seq && !file ? "loading" : st.error ? "error" : file ? "ready" : "empty");
    if (!file || st.error) {
      setText(meta, st.seq ? "Loading…" : "");
      show(actions, false);
      show(note, false);
      show(editor, false);
      show(stale, false);
      show(content, Boolean(st.error));
      content.classList.remove("dnb-md");
      content.replaceChildren(...(st.error ? [h("div", "dnb-fv-error", st.error)] : []));
      return;
    }
    const parts = [KIND_LABEL[file.kind] || file.kind, fmtSize(file.size), fmtTime(file.modified_at)];
    setText(meta, parts.filter(Boolean).join(" · "));
    show(actions, true);
    const hasText = typeof file.text === "string" && file.text !== "";
    show(editBtn, (hasText || Boolean(file.editable)) && !st.editing); // a second Edit would reset the text
    setText(editBtn, file.editable ? "Edit" : "View source");
    editBtn.title = file.editable ? "Edit this file" : "Show the text (read-only)";
    // Images and binary files say what they are in the viewer; a note is for text files.
    const readonly = TEXT_KINDS.has(file.kind) ? str(file.readonly) : "";
    show(note, readonly !== "");
    setText(note, readonly ? `Read-only: ${readonly}` : "");
    show(editor, st.editing);
    show(content, !st.editing);
    el.setAttribute("data-editing", st.editing ? "true" : "false");
    textarea.readOnly = !file.editable;
    show(saveBtn, Boolean(file.editable));
    saveBtn.disabled = st.saving;
    setText(saveBtn, st.saving ? "Saving…" : "Save");
    setText(cancelBtn, file.editable ? "Cancel" : "Close");
  }

  function setHtml(file) {
    content.classList.toggle("dnb-md", file.kind === "markdown");
    content.setAttribute("data-kind", str(file.kind));
    content.innerHTML = str(file.html); // rendered and escaped in Python (render_file)
    armImages(content);
  }

  function dirty() {
    return st.editing && st.file && st.file.editable && textarea.value !== st.original;
  }

  function open(path, { quiet = false } = {}) {
    path = str(path);
    if (!path) return;
    if (dirty() && path !== st.path) {
      setText(editorError, `Save or cancel your changes to ${st.path} first.`);
      textarea.focus();
      return;
    }
    if (path !== st.path) {
      st.editing = false;
      st.file = null;
      show(stale, false);
    }
    st.path = path;
    st.error = "";
    setText(actionError, "");
    onSelect(path);
    const sent = request({ type: "open", path }, (msg) => {
      if (sent !== st.seq) return;
      st.seq = null;
      receive(msg);
    });
    st.seq = sent;
    if (!quiet) render();
  }

  function receive(msg) {
    st.path = str(msg.path) || st.path;
    if (msg.error) {
      st.error = str(msg.error);
      st.file = null;
      st.editing = false;
    } else {
      st.error = "";
      st.file = msg;
      setHtml(msg);
    }
    render();
  }

  function edit() {
    const file = st.file;
    if (!file) return;
    st.editing = true;
    st.original = str(file.text);
    textarea.value = st.original;
    setText(editorError, "");
    show(stale, false);
    render();
    textarea.focus();
  }

  function cancel() {
    st.editing = false;
    setText(editorError, "");
    show(stale, false);
    render();
    editBtn.focus();
  }

  function save() {
    if (!st.file || !st.file.editable || st.saving) return;
    st.saving = true;
    setText(editorError, "");
    render();
    const path = st.path;
    const text = textarea.value;
    request({ type: "save", path, text }, (msg) => {
      st.saving = false;
      if (msg.error) {
        // The text stays in the editor: nothing is lost, the message says what to do.
        setText(editorError, msg.error);
        render();
        return;
      }
      st.editing = false;
      show(stale, false);
      if (st.path === path && isObj(msg.file)) receive(msg.file);
      else render();
      onSaved(path);
      editBtn.focus();
    });
  }

  function download() {
    setText(actionError, "");
    request({ type: "download", path: st.path }, (msg) => {
      if (msg.error) setText(actionError, msg.error);
      else saveBlob(msg);
    });
  }

  function onKeyDown(event) {
    if (event.target === textarea && (event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "s") {
      event.preventDefault();
      event.stopPropagation();
      save();
    }
  }

  editBtn.addEventListener("click", edit);
  cancelBtn.addEventListener("click", cancel);
  saveBtn.addEventListener("click", save);
  downloadBtn.addEventListener("click", download);
  el.addEventListener("keydown", onKeyDown);
  render();

  return {
    el,
    open,
    get path() { return st.path; },
    // The kernel says the file changed: show it again, or warn the editor.
    changed(paths) {
      if (!st.path || !(paths === null || paths.includes(st.path) || paths.includes("/"))) return;
      if (st.editing && st.file && st.file.editable) show(stale, true);
      else open(st.path, { quiet: true });
    },
    dispose() {
      editBtn.removeEventListener("click", edit);
      cancelBtn.removeEventListener("click", cancel);
      saveBtn.removeEventListener("click", save);
      downloadBtn.removeEventListener("click", download);
      el.removeEventListener("keydown", onKeyDown);
    },
  };
}

// -- changed in this run -----------------------------------------------------------------------

function diffLines(diff) {
  const pre = h("pre", "dnb-fv-diff");
  const lines = str(diff).split("\n");
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  for (const line of lines) {
    let cls = "dnb-fv-ctx";
    if (line.startsWith("+++") || line.startsWith("---")) cls = "dnb-fv-file-line";
    else if (line.startsWith("@@")) cls = "dnb-fv-hunk";
    else if (line.startsWith("+")) cls = "dnb-fv-add";
    else if (line.startsWith("-")) cls = "dnb-fv-del";
    pre.append(h("span", `dnb-fv-line ${cls}`, `${line}\n`));
  }
  return pre;
}

function changesView(request, onOpenFile) {
  const el = h("div", "dnb-fv-changes");
  const summary = h("div", "dnb-fv-changes-summary");
  const body = h("div", "dnb-fv-changes-list");
  el.append(summary, body);
  const opened = new Set(); // paths whose diff is unfolded
  let seq = null;

  function refresh() {
    if (!body.childElementCount) setText(summary, "Loading…");
    const sent = request({ type: "changes" }, (msg) => {
      if (sent !== seq) return;
      seq = null;
      render(msg);
    });
    seq = sent;
  }

  function render(msg) {
    el.setAttribute("data-state", msg.error ? "error" : "ready");
    if (msg.error) {
      setText(summary, msg.error);
      body.replaceChildren();
      return;
    }
    const changes = list(msg.changes).filter(isObj);
    const n = changes.length;
    const running = msg.status === "running" ? " (still running)" : "";
    setText(summary, n ? `${n} file${n === 1 ? "" : "s"} changed in ${str(msg.run_id)}${running}.`
      : `Nothing changed in ${str(msg.run_id)} yet${running}.`);
    body.replaceChildren(...changes.map((change) => {
      const path = str(change.path);
      const kind = str(change.kind);
      const details = h("details", "dnb-fv-change");
      details.setAttribute("data-kind", kind);
      details.setAttribute("data-path", path);
      details.open = opened.has(path) || n <= 3;
      const head = ownKeys(h("summary", "dnb-fv-change-head"));
      const badge = h("span", "dnb-fv-change-kind", `${CHANGE_MARK[kind] || "·"} ${kind}`);
      head.append(badge, h("code", "dnb-fv-change-path", path));
      details.append(head);
      if (kind !== "deleted") {
        const openBtn = button("dnb-fv-change-open", "Open", `Show ${path} in the Files tab`);
        openBtn.setAttribute("data-path", path);
        details.append(openBtn);
      }
      details.append(diffLines(change.diff));
      if (change.clipped) details.append(h("div", "dnb-fv-muted", "… (diff clipped)"));
      details.addEventListener("toggle", () => {
        if (details.open) opened.add(path);
        else opened.delete(path);
      });
      return details;
    }));
  }

  function onClick(event) {
    const btn = event.target.closest && event.target.closest(".dnb-fv-change-open");
    if (btn) onOpenFile(btn.getAttribute("data-path"));
  }

  el.addEventListener("click", onClick);
  return {
    el,
    refresh,
    dispose() { el.removeEventListener("click", onClick); },
  };
}

// -- the view ---------------------------------------------------------------------------------

let views = 0;

function render({ model, el }) {
  saveViewsAsSnapshots(model.widget_manager);
  const viewId = `fv${++views}-${Math.random().toString(36).slice(2, 8)}`;
  let counter = 0;
  const waiting = new Map(); // seq → what to do with the reply

  let gone = false; // no kernel behind the view (it restarted or shut down)
  const unwatch = watchKernel(model, () => {
    gone = true;
  });

  function request(message, onReply) {
    const seq = `${viewId}:${++counter}`;
    if (gone) {
      onReply({ seq, error: GONE });
      return seq;
    }
    waiting.set(seq, onReply);
    try {
      model.send({ ...message, seq });
    } catch (error) {
      console.warn("deepnb: the kernel is gone, nothing was sent", error); // closed comm
      waiting.delete(seq);
      onReply({ seq, error: GONE });
    }
    return seq;
  }

  const root = h("div", "deepnb-files");
  const style = h("style");
  const head = h("div", "dnb-fv-head");
  const title = h("span", "dnb-fv-title", "Files");
  const where = h("span", "dnb-fv-where");
  const refreshBtn = button("dnb-fv-refresh", "↻ Refresh", "List the folders and the open file again");
  head.append(title, where, refreshBtn);

  const tabs = h("div", "dnb-fv-tabs");
  tabs.setAttribute("role", "tablist");
  const filesTab = button("dnb-fv-tab dnb-fv-tab-files", "Files");
  const changesTab = button("dnb-fv-tab dnb-fv-tab-changes", "Changed in this run");
  tabs.append(filesTab, changesTab);

  const filesPanel = h("div", "dnb-fv-panel dnb-fv-files-panel");
  const side = h("div", "dnb-fv-side");
  const tree = treeView(request, (path) => openFile(path));
  const search = searchView(request, (path) => openFile(path), () => str(model.get("path")) || "/");
  side.append(search.el, tree.el);
  const viewer = viewerView(request, (path) => tree.refresh([path]), (path) => tree.select(path));
  filesPanel.append(side, viewer.el);
  const changes = changesView(request, (path) => {
    selectTab("files");
    openFile(path);
  });
  const changesPanel = h("div", "dnb-fv-panel dnb-fv-changes-panel");
  changesPanel.append(changes.el);
  for (const [tab, panel, id] of [[filesTab, filesPanel, "files"], [changesTab, changesPanel, "changes"]]) {
    tab.setAttribute("role", "tab");
    tab.setAttribute("data-tab", id);
    tab.id = `${viewId}-tab-${id}`;
    panel.id = `${viewId}-panel-${id}`;
    panel.setAttribute("role", "tabpanel");
    panel.setAttribute("aria-labelledby", tab.id);
    tab.setAttribute("aria-controls", panel.id);
  }
  root.append(style, head, tabs, filesPanel, changesPanel);
  el.replaceChildren(root);

  let tab = "files";

  function selectTab(next, focus = false) {
    tab = next === "changes" && model.get("has_changes") ? "changes" : "files";
    for (const [btn, panel, id] of [[filesTab, filesPanel, "files"], [changesTab, changesPanel, "changes"]]) {
      const on = id === tab;
      btn.setAttribute("aria-selected", on ? "true" : "false");
      btn.setAttribute("tabindex", on ? "0" : "-1");
      panel.hidden = !on;
      if (on && focus) btn.focus();
    }
    root.setAttribute("data-tab", tab);
    if (tab === "changes") changes.refresh();
  }

  function openFile(path) {
    viewer.open(path);
  }

  function renderHead() {
    const parts = [str(model.get("path")) || "/", `agent ${str(model.get("agent"))}`,
      `thread ${str(model.get("thread_id"))}`];
    const backend = str(model.get("backend"));
    if (backend) parts.push(backend);
    setText(where, parts.join(" · "));
    tree.setRoot(str(model.get("path")) || "/");
  }

  function renderRoot() {
    tree.setRoot(str(model.get("path")) || "/");
    tree.fill(tree.root, { entries: model.get("root_entries"), offset: 0, total: model.get("root_total") });
  }

  function renderRun() {
    const has = Boolean(model.get("has_changes"));
    show(changesTab, has);
    const run = str(model.get("run_id"));
    changesTab.title = run ? `What ${run} changed, file by file` : "";
    if (!has && tab === "changes") selectTab("files");
    else if (tab === "changes") changes.refresh();
  }

  const renderCss = () => setText(style, model.get("code_css"));

  // Changes close together make one refresh of what the view shows.
  let pendingPaths = null;
  let refreshTimer = null;

  function onChanged(paths) {
    const incoming = list(paths).map(str);
    pendingPaths = pendingPaths === null ? new Set(incoming) : new Set([...pendingPaths, ...incoming]);
    if (refreshTimer !== null) return;
    refreshTimer = setTimeout(() => {
      refreshTimer = null;
      const changed = [...pendingPaths];
      pendingPaths = null;
      tree.refresh(changed);
      viewer.changed(changed);
      search.refresh();
      if (tab === "changes") changes.refresh();
    }, REFRESH_DELAY);
  }

  function refreshAll() {
    tree.refresh(null);
    viewer.changed(null);
    search.refresh();
    if (tab === "changes") changes.refresh();
  }

  function onMessage(msg) {
    if (!isObj(msg)) return;
    if (msg.type === "changed") {
      onChanged(msg.paths);
      return;
    }
    const seq = str(msg.seq);
    const reply = waiting.get(seq);
    if (!reply) return; // another view's reply
    waiting.delete(seq);
    reply(msg);
  }

  function onTabClick(event) {
    const btn = event.target.closest && event.target.closest(".dnb-fv-tab");
    if (btn) selectTab(btn.getAttribute("data-tab"));
  }

  function onTabKey(event) {
    if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
    event.preventDefault();
    selectTab(tab === "files" ? "changes" : "files", true);
  }

  const handlers = {
    "msg:custom": onMessage,
    "change:code_css": renderCss,
    "change:root_entries": renderRoot,
    "change:root_total": renderRoot,
    "change:path": renderHead,
    "change:agent": renderHead,
    "change:thread_id": renderHead,
    "change:backend": renderHead,
    "change:has_changes": renderRun,
    "change:run_id": renderRun,
  };

  renderCss();
  renderHead();
  renderRoot();
  renderRun();
  selectTab("files");
  for (const [name, fn] of Object.entries(handlers)) model.on(name, fn);
  refreshBtn.addEventListener("click", refreshAll);
  tabs.addEventListener("click", onTabClick);
  tabs.addEventListener("keydown", onTabKey);

  return () => {
    unwatch();
    for (const [name, fn] of Object.entries(handlers)) model.off(name, fn);
    refreshBtn.removeEventListener("click", refreshAll);
    tabs.removeEventListener("click", onTabClick);
    tabs.removeEventListener("keydown", onTabKey);
    if (refreshTimer !== null) clearTimeout(refreshTimer);
    tree.dispose();
    search.dispose();
    viewer.dispose();
    changes.dispose();
    waiting.clear();
  };
}

export default { render };
