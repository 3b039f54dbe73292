// The file peek: a closable panel showing one file the kernel sent back for {"type": "open_file"}.
// Its `html` was escaped (and highlighted or rendered) in Python; everything else is text.

import { h, setAttr, setText, show, smallButton } from "../lib/dom";
import { armImages } from "../lib/images";
import { str } from "../lib/text";
import type { FileMessage } from "../types";
import type { RunModel } from "./live_model";
import type { RunMemory } from "./memory";

export interface PeekView {
  el: HTMLElement;
  render(): void;
  /** Shows `path`; under `anchor` (the card whose button asked) when given, else in its place. */
  open(path: string, anchor?: HTMLElement | null): void;
  /** The kernel's answer; dropped when the panel was closed meanwhile. */
  receive(msg: FileMessage): void;
  dispose(): void;
}

export function peekView(model: RunModel, st: RunMemory): PeekView {
  const el = h("div", "dnb-filepeek");
  el.setAttribute("role", "region");
  const head = h("div", "dnb-filepeek-head");
  const pathEl = h("code", "dnb-filepeek-path");
  const closeBtn = smallButton("dnb-btn dnb-filepeek-close", "×");
  closeBtn.title = "Close";
  closeBtn.setAttribute("aria-label", "Close the file");
  head.append(h("span", "dnb-filepeek-title", "File"), pathEl, closeBtn);
  const body = h("div", "dnb-filepeek-body");
  el.append(head, body);
  let slow: ReturnType<typeof setTimeout> | undefined;

  function render(): void {
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

  // Where the panel lives when no card asked for it (set by the first open, from its place).
  let home: { parent: Node; next: Node | null } | null = null;

  function place(anchor: HTMLElement | null | undefined): void {
    if (!home && el.parentNode) home = { parent: el.parentNode, next: el.nextSibling };
    if (anchor) {
      anchor.append(el); // inside the card: the panel opens where the reader is, not at the top
    } else if (home && el.parentNode !== home.parent) {
      home.parent.insertBefore(el, home.next && home.next.parentNode === home.parent ? home.next : null);
    }
  }

  function open(path: string, anchor?: HTMLElement | null): void {
    if (!path) return;
    place(anchor);
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

  function receive(msg: FileMessage): void {
    if (!st.peek) return;
    st.peek = {
      path: str(msg.path), loading: false, html: typeof msg.html === "string" ? msg.html : "",
      text: str(msg.text), error: str(msg.error),
    };
    render();
  }

  function close(): void {
    st.peek = null;
    render();
    place(null);
  }

  closeBtn.addEventListener("click", close);

  function dispose(): void {
    clearTimeout(slow);
    closeBtn.removeEventListener("click", close);
  }

  return { el, render, open, receive, dispose };
}
