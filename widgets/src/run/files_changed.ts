// The files a run changed, under its transcript: "Files changed: /a.md, /b.md", each a button that
// opens the file in the file peek right under the list (`peek`), and "Not written: …" struck
// through for the writes that did not happen. Hidden while there are none.

import { h, show } from "../lib/dom";
import { asksKernel } from "./kernel_gate";
import type { RunModel } from "./live_model";

export interface FilesChangedView {
  /** The list, and the place a file opened from it shows (right under it). */
  el: HTMLElement;
  peek: HTMLElement;
  render(): void;
}

/** A file that opens in the file peek on a click (or Enter). */
function openable(code: HTMLElement): HTMLElement {
  asksKernel(code).classList.add("dnb-file-open");
  code.setAttribute("role", "button");
  code.tabIndex = 0;
  code.title = `Open ${code.textContent}`;
  return code;
}

/** A write that did not happen, struck through. */
function struck(code: HTMLElement): HTMLElement {
  const s = h("s", "dnb-file-not-written");
  s.append(code);
  return s;
}

/** The nodes of both lists: a label, then the paths separated by commas, a line break between. */
export function fileLines(changed: string[], notWritten: string[]): Node[] {
  const parts: Node[] = [];
  const list = (label: string, paths: string[], wrap: (code: HTMLElement) => HTMLElement): void => {
    if (!paths.length) return;
    if (parts.length) parts.push(h("br"));
    parts.push(h("span", "dnb-files-label", label));
    paths.forEach((path, i) => {
      if (i) parts.push(document.createTextNode(", "));
      parts.push(wrap(h("code", "dnb-file", path)));
    });
  };
  list("Files changed: ", changed, openable);
  list("Not written: ", notWritten, struck);
  return parts;
}

export function filesChangedView(model: RunModel): FilesChangedView {
  const el = h("div", "dnb-files");
  const peek = h("div", "dnb-files-peek"); // a file opened from "Files changed" shows right under it

  function render(): void {
    const files = model.get("files_changed") || [];
    const notWritten = model.get("files_not_written") || []; // absent from views saved before it
    show(el, files.length + notWritten.length > 0);
    el.replaceChildren(...fileLines(files, notWritten));
  }

  return { el, peek, render };
}
