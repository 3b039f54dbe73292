// The viewer and editor: one file as Python rendered it (escaped HTML), its kind, size and time,
// Edit (or View source) with Save (Ctrl+S) and Cancel, and Download. A file that changes in the
// kernel while it is edited shows a warning instead of reloading under the user's typing.

import { h, ownKeys, setText, show, smallButton } from "../lib/dom";
import { armImages } from "../lib/images";
import { shownAs } from "../lib/statuses";
import { isObj, str } from "../lib/text";
import { FILE_KIND_LABEL } from "../schema";
import type { Blob64, FileReply, Saved } from "../types";
import { saveBlob } from "./download";
import { fmtSize, fmtTime } from "./format";
import { clearMark, type LineTarget, revealLine } from "./reveal";
import type { Request } from "./request";

const TEXT_KINDS = new Set(["markdown", "code", "table"]);

export interface ViewerView {
  el: HTMLElement;
  /** Shows `path`; with `at`, marks that line (a grep hit) once the file is there. */
  open(path: string, options?: { quiet?: boolean; at?: LineTarget }): void;
  readonly path: string;
  /** The kernel says files changed: show the file again, or warn the editor. */
  changed(paths: string[] | null): void;
  dispose(): void;
}

/** `onSaved(path)` after a save went through; `onSelect(path)` when a file is opened. */
export function viewerView(
  request: Request, onSaved: (path: string) => void, onSelect: (path: string) => void,
): ViewerView {
  const el = h("section", "dnb-fv-viewer");
  el.setAttribute("aria-label", "File");
  const head = h("div", "dnb-fv-viewer-head");
  const pathEl = h("code", "dnb-fv-path");
  const meta = h("span", "dnb-fv-meta");
  const actions = h("span", "dnb-fv-actions");
  const editBtn = smallButton("dnb-fv-edit", "Edit");
  const downloadBtn = smallButton("dnb-fv-download", "Download");
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
  const saveBtn = smallButton("dnb-fv-save", "Save", "Save (Ctrl+S)");
  const cancelBtn = smallButton("dnb-fv-cancel", "Cancel");
  const editorError = h("div", "dnb-fv-editor-error");
  editorError.setAttribute("role", "alert");
  bar.append(saveBtn, cancelBtn, editorError);
  editor.append(textarea, bar);
  const empty = h("div", "dnb-fv-placeholder", "Pick a file to see it here.");
  el.append(head, note, actionError, stale, content, editor, empty);

  // path: the file shown or asked for; file: its last reply; editing: the editor is open (with
  // `original`, the text it opened with); saving: a save is on its way.
  const st = {
    path: "", file: null as FileReply | null, seq: null as string | null, editing: false, original: "",
    saving: false, error: "", at: undefined as LineTarget | undefined,
  };

  function render(): void {
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
    const kind = str(file.kind);
    const parts = [shownAs(FILE_KIND_LABEL, kind, kind), fmtSize(file.size), fmtTime(file.modified_at)];
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

  function setHtml(file: FileReply): void {
    content.classList.toggle("dnb-md", file.kind === "markdown");
    content.setAttribute("data-kind", str(file.kind));
    content.innerHTML = str(file.html); // rendered and escaped in Python (render_file)
    armImages(content);
  }

  function dirty(): boolean {
    return Boolean(st.editing && st.file && st.file.editable && textarea.value !== st.original);
  }

  function open(pathValue: string, { quiet = false, at }: { quiet?: boolean; at?: LineTarget } = {}): void {
    const path = str(pathValue);
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
    if (!quiet) st.at = at; // a refresh keeps the line asked for; another open forgets it
    setText(actionError, "");
    onSelect(path);
    const sent = request<FileReply>({ type: "open", path }, (msg) => {
      if (sent !== st.seq) return;
      st.seq = null;
      receive(msg);
    });
    st.seq = sent;
    if (!quiet) render();
  }

  function receive(msg: FileReply): void {
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
    if (st.at && !msg.error) revealLine(content, str(msg.kind), st.at);
    else clearMark(content);
    st.at = undefined; // once: a live refresh of the file does not scroll it again
  }

  function edit(): void {
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

  function cancel(): void {
    st.editing = false;
    setText(editorError, "");
    show(stale, false);
    render();
    editBtn.focus();
  }

  function save(): void {
    if (!st.file || !st.file.editable || st.saving) return;
    st.saving = true;
    setText(editorError, "");
    render();
    const path = st.path;
    const text = textarea.value;
    request<Saved>({ type: "save", path, text }, (msg) => {
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

  function download(): void {
    setText(actionError, "");
    request<Blob64>({ type: "download", path: st.path }, (msg) => {
      if (msg.error) setText(actionError, msg.error);
      else saveBlob(msg);
    });
  }

  function onKeyDown(event: KeyboardEvent): void {
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
