// The file tree: one record per entry shown, by path. A folder's children load when it is first
// opened, a page at a time ("Show more"); a refresh asks again for as many as it shows and
// patches them in place, so open subfolders and focus survive live updates. Keyboard: a WAI-ARIA
// tree with a roving tabindex (arrows, Home, End, Enter, Space).

import { h, ownKeys, setText, show, smallButton } from "../lib/dom";
import { isObj, list, num, str } from "../lib/text";
import type { Entry, Listing } from "../types";
import { fmtSize, fmtTime, parentOf, touches } from "./format";
import type { Request } from "./request";

interface Folder {
  path: string;
  isDir: boolean;
  depth: number;
  open: boolean;
  loaded: boolean;
  kids: Map<string, EntryRecord>;
  group: HTMLElement;
  total: number;
  seq: string | null;
  note?: HTMLElement | null;
  more?: HTMLButtonElement;
  moreLi?: HTMLElement;
}

interface EntryRecord extends Folder {
  li: HTMLElement;
  row: HTMLElement;
  caret: HTMLElement;
  name: HTMLElement;
  mount: HTMLElement;
  lock: HTMLElement;
  size: HTMLElement;
  time: HTMLElement;
}

/** What `fill` takes: a listing's page. */
export type Page = Pick<Listing, "entries" | "offset" | "total">;

export interface TreeView {
  el: HTMLElement;
  root: Folder;
  fill(folder: Folder, msg: Page): void;
  /** Asks again for every open folder a change can touch (all of them for null), quietly. */
  refresh(paths: string[] | null): void;
  select(path: string): void;
  setRoot(path: string): void;
  dispose(): void;
}

export function treeView(request: Request, onOpenFile: (path: string) => void): TreeView {
  const el = ownKeys(h("ul", "dnb-fv-tree"));
  el.setAttribute("role", "tree");
  el.setAttribute("aria-label", "Files");
  const records = new Map<string, EntryRecord>(); // path → record
  const root: Folder = { path: "/", isDir: true, open: true, loaded: true, kids: new Map(), group: el,
    total: 0, depth: 0, seq: null };
  let current: HTMLElement | null = null; // the row that takes Tab focus (roving tabindex)
  let selected = "";

  function makeRecord(entry: Entry, depth: number): EntryRecord {
    const isDir = Boolean(entry.is_dir);
    const li = h("li", "dnb-fv-entry");
    li.setAttribute("role", "none");
    const row = ownKeys(h("div", "dnb-fv-row"));
    row.setAttribute("role", "treeitem");
    row.setAttribute("tabindex", "-1");
    row.setAttribute("aria-level", String(depth));
    row.style.setProperty("--dnb-fv-depth", String(depth - 1));
    const rec: EntryRecord = {
      path: str(entry.path), isDir, depth, li, row, open: false, loaded: false, kids: new Map(),
      total: 0, seq: null, group: li, // a file has no group of its own: never filled
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

  function updateRecord(rec: EntryRecord, entry: Entry): void {
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

  function forget(rec: EntryRecord): void {
    for (const kid of rec.kids.values()) forget(kid);
    records.delete(rec.path);
    if (current === rec.row) current = null;
  }

  // Put a listing into `folder`: the first page replaces what it shows, a later page appends.
  function fill(folder: Folder, msg: Page): void {
    const entries = list(msg.entries).filter(isObj) as Entry[];
    const replace = num(msg.offset) === 0;
    const kids = replace ? new Map<string, EntryRecord>() : folder.kids; // in display order
    let prev: HTMLElement | null = replace ? null : [...folder.kids.values()].pop()?.li || null;
    for (const entry of entries) {
      const path = str(entry.path);
      let rec = folder.kids.get(path);
      if (rec && rec.isDir !== Boolean(entry.is_dir)) { // a file became a folder, or back
        rec.li.remove();
        forget(rec);
        folder.kids.delete(path);
        rec = undefined;
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
      folder.more = folder.more || smallButton("dnb-fv-more", "");
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
  function status(folder: Folder, cls: string, text: string): void {
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

  function load(folder: Folder, { offset = 0, quiet = false } = {}): void {
    const limit = offset === 0 ? Math.max(200, folder.kids.size) : 200;
    if (!quiet && !folder.loaded) status(folder, "dnb-fv-loading", "Loading…");
    const seq = request<Listing>({ type: "ls", path: folder.path, offset, limit }, (msg) => {
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

  function setOpen(rec: EntryRecord, open: boolean): void {
    if (!rec.isDir || rec.open === open) return;
    rec.open = open;
    rec.row.setAttribute("aria-expanded", open ? "true" : "false");
    setText(rec.caret, open ? "▾" : "▸");
    rec.group.hidden = !open;
    if (open && !rec.loaded) load(rec);
  }

  function activate(rec: EntryRecord): void {
    if (rec.isDir) setOpen(rec, !rec.open);
    else onOpenFile(rec.path);
  }

  function visibleRows(): EntryRecord[] {
    const rows: EntryRecord[] = [];
    const walk = (folder: Folder): void => {
      for (const rec of folder.kids.values()) {
        rows.push(rec);
        if (rec.isDir && rec.open) walk(rec);
      }
    };
    walk(root);
    return rows;
  }

  function firstRow(): HTMLElement | null {
    const first = root.kids.values().next().value;
    return first ? first.row : null;
  }

  function setCurrent(row: HTMLElement | null): void {
    if (current && current !== row) current.setAttribute("tabindex", "-1");
    current = row;
    if (row) row.setAttribute("tabindex", "0");
  }

  function focusRec(rec: EntryRecord | undefined): void {
    if (!rec) return;
    setCurrent(rec.row);
    rec.row.focus();
  }

  function recOf(target: EventTarget | null): EntryRecord | null | undefined {
    const node = target as Element | null;
    const row = node && node.closest ? node.closest(".dnb-fv-row") : null;
    return row && el.contains(row) ? records.get(row.getAttribute("data-path")!) : null;
  }

  function onClick(event: MouseEvent): void {
    const target = event.target as Element;
    const more = target.closest && target.closest(".dnb-fv-more");
    if (more && el.contains(more)) {
      const path = more.getAttribute("data-path");
      const folder = path === root.path ? root : records.get(path!);
      if (folder) load(folder, { offset: folder.kids.size });
      return;
    }
    const rec = recOf(event.target);
    if (!rec) return;
    setCurrent(rec.row);
    activate(rec);
  }

  function onKeyDown(event: KeyboardEvent): void {
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

  function markSelected(): void {
    for (const rec of records.values()) {
      const on = rec.path === selected;
      rec.row.classList.toggle("dnb-fv-selected", on);
      if (on) rec.row.setAttribute("aria-selected", "true");
      else rec.row.removeAttribute("aria-selected");
    }
  }

  function select(path: string): void {
    selected = str(path);
    markSelected();
  }

  function refresh(paths: string[] | null): void {
    const folders: Folder[] = [root, ...[...records.values()].filter((r) => r.isDir && r.open && r.loaded)];
    for (const folder of folders) {
      if (paths === null || paths.some((p) => touches(folder.path, p))) load(folder, { quiet: true });
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
