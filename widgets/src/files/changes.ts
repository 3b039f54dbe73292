// "Changed in this run": each file the followed run added, modified or deleted, with its diff.

import { h, ownKeys, setText, smallButton } from "../lib/dom";
import { shownAs } from "../lib/statuses";
import { isObj, list, str } from "../lib/text";
import { CHANGE_KIND_MARK } from "../schema";
import type { Change, Changes } from "../types";
import type { Request } from "./request";

/** A unified diff, one span a line (as text), classed by what the line is. */
export function diffLines(diff: unknown): HTMLPreElement {
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

export interface ChangesView { el: HTMLElement; refresh(): void; dispose(): void }

export function changesView(request: Request, onOpenFile: (path: string) => void): ChangesView {
  const el = h("div", "dnb-fv-changes");
  const summary = h("div", "dnb-fv-changes-summary");
  const body = h("div", "dnb-fv-changes-list");
  el.append(summary, body);
  const opened = new Set<string>(); // paths whose diff is unfolded
  let seq: string | null = null;

  function refresh(): void {
    if (!body.childElementCount) setText(summary, "Loading…");
    const sent = request<Changes>({ type: "changes" }, (msg) => {
      if (sent !== seq) return;
      seq = null;
      render(msg);
    });
    seq = sent;
  }

  function render(msg: Changes): void {
    el.setAttribute("data-state", msg.error ? "error" : "ready");
    if (msg.error) {
      setText(summary, msg.error);
      body.replaceChildren();
      return;
    }
    const changes = list(msg.changes).filter(isObj) as Change[];
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
      const badge = h("span", "dnb-fv-change-kind", `${shownAs(CHANGE_KIND_MARK, kind, "·")} ${kind}`);
      head.append(badge, h("code", "dnb-fv-change-path", path));
      details.append(head);
      if (kind !== "deleted") {
        const openBtn = smallButton("dnb-fv-change-open", "Open", `Show ${path} in the Files tab`);
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

  function onClick(event: MouseEvent): void {
    const target = event.target as Element;
    const btn = target.closest && target.closest(".dnb-fv-change-open");
    if (btn) onOpenFile(btn.getAttribute("data-path")!);
  }

  el.addEventListener("click", onClick);
  return {
    el,
    refresh,
    dispose() { el.removeEventListener("click", onClick); },
  };
}
