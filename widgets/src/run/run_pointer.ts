// Clicks and keys anywhere in the run view that no control handles itself: a file of "Files
// changed" (or a summary's file) opens in the file peek, "Show subagent" opens its node in the
// tree, "Show more" asks the kernel for the items left out, and a tool card's or a subagent's head
// opens or closes it (a click that ends a text selection in the head does not).

import type { PeekView } from "./file_peek";
import type { RunModel } from "./live_model";
import type { TreeView } from "./subagent_tree";
import { setExpanded } from "./tool_card";
import { ITEM_RECS } from "./transcript";

const HEADS = ".dnb-tool-head, .dnb-node-head";

export interface PointerParts {
  root: HTMLElement;
  model: RunModel;
  tree: TreeView;
  peek: PeekView;
  /** Where a file opened from "Files changed" shows. */
  files: { peek: HTMLElement };
  /** The keys of the open tool cards. */
  st: { expanded: Set<string> };
}

/** Opens or closes the tool card or subagent whose head is `head`. */
function toggle(head: HTMLElement, tree: TreeView, expanded: Set<string>): void {
  if (head.classList.contains("dnb-node-head")) return tree.toggle(head);
  const rec = ITEM_RECS.get(head.closest(".dnb-item") as Element);
  if (!rec || rec.kind !== "tool") return;
  const open = rec.tool!.open;
  if (open) expanded.delete(rec.key);
  else expanded.add(rec.key);
  setExpanded(rec, !open);
}

/** Listens on the view's root; returns what stops it. */
export function runPointer({ root, model, tree, peek, files, st }: PointerParts): () => void {
  const openFile = (file: HTMLElement): void => peek.open(file.textContent || "", files.peek);

  /** A click on one of the view's buttons; other buttons have their own handlers. */
  function onButton(btn: HTMLButtonElement): void {
    const node = btn.classList.contains("dnb-show-subagent") && btn.getAttribute("data-node");
    const path = btn.classList.contains("dnb-summary-open") && btn.getAttribute("data-path");
    if (node) tree.reveal(node);
    if (path) peek.open(path, btn.closest<HTMLElement>(".dnb-summary"));
    if (btn.classList.contains("dnb-expand")) {
      btn.disabled = true;
      btn.textContent = "loading…";
      model.send({ type: "expand" });
    }
  }

  function onClick(event: MouseEvent): void {
    const target = event.target as Element | null;
    if (!target || !target.closest) return;
    const file = target.closest<HTMLElement>(".dnb-file-open");
    if (file && root.contains(file)) return openFile(file);
    const btn = target.closest("button");
    if (btn) return onButton(btn);
    const head = target.closest<HTMLElement>(HEADS);
    if (!head || !root.contains(head)) return;
    const sel = window.getSelection && window.getSelection();
    if (sel && !sel.isCollapsed && head.contains(sel.anchorNode)) return; // selecting text
    toggle(head, tree, st.expanded);
  }

  function onKeyDown(event: KeyboardEvent): void {
    if (event.key !== "Enter" && event.key !== " ") return;
    const head = event.target as HTMLElement;
    if (head.matches && head.matches(".dnb-file-open") && root.contains(head)) {
      event.preventDefault();
      return openFile(head);
    }
    if (!head.matches || !head.matches(HEADS) || !root.contains(head)) return; // not a button in it
    event.preventDefault();
    toggle(head, tree, st.expanded);
  }

  root.addEventListener("click", onClick);
  root.addEventListener("keydown", onKeyDown);
  return () => {
    root.removeEventListener("click", onClick);
    root.removeEventListener("keydown", onKeyDown);
  };
}
