// The file view's tabs: "Files" and "Changed in this run", each with its panel (WAI-ARIA tabs; the
// arrow keys move between them).

import { h, smallButton } from "../lib/dom";

export type TabId = "files" | "changes";

export interface TabsView {
  el: HTMLElement;
  /** The "Changed in this run" tab, shown while the run followed changed files. */
  changesTab: HTMLButtonElement;
  /** The tab shown. */
  readonly current: TabId;
  /** Shows `next` ("changes" only while `hasChanges()`, else "files"); with `focus`, focuses its tab. */
  select(next: unknown, focus?: boolean): void;
  dispose(): void;
}

/** Ties `tab` and `panel` together by their ids (unique to the view `viewId`). */
function linkTab(viewId: string, tab: HTMLButtonElement, panel: HTMLElement, id: TabId): void {
  tab.setAttribute("role", "tab");
  tab.setAttribute("data-tab", id);
  tab.id = `${viewId}-tab-${id}`;
  panel.id = `${viewId}-panel-${id}`;
  panel.setAttribute("role", "tabpanel");
  panel.setAttribute("aria-labelledby", tab.id);
  tab.setAttribute("aria-controls", panel.id);
}

/** `onSelect(tab)` after a tab was shown. */
export function tabsView(
  viewId: string, panels: Record<TabId, HTMLElement>, hasChanges: () => boolean, onSelect: (tab: TabId) => void,
): TabsView {
  const el = h("div", "dnb-fv-tabs");
  el.setAttribute("role", "tablist");
  const filesTab = smallButton("dnb-fv-tab dnb-fv-tab-files", "Files");
  const changesTab = smallButton("dnb-fv-tab dnb-fv-tab-changes", "Changed in this run");
  el.append(filesTab, changesTab);
  const tabs: [HTMLButtonElement, HTMLElement, TabId][] = [
    [filesTab, panels.files, "files"], [changesTab, panels.changes, "changes"]];
  for (const [tab, panel, id] of tabs) linkTab(viewId, tab, panel, id);
  let current: TabId = "files";

  function select(next: unknown, focus = false): void {
    current = next === "changes" && hasChanges() ? "changes" : "files";
    for (const [btn, panel, id] of tabs) {
      const on = id === current;
      btn.setAttribute("aria-selected", on ? "true" : "false");
      btn.setAttribute("tabindex", on ? "0" : "-1");
      panel.hidden = !on;
      if (on && focus) btn.focus();
    }
    onSelect(current);
  }

  function onClick(event: MouseEvent): void {
    const target = event.target as Element;
    const btn = target.closest && target.closest(".dnb-fv-tab");
    if (btn) select(btn.getAttribute("data-tab"));
  }

  function onKey(event: KeyboardEvent): void {
    if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
    event.preventDefault();
    select(current === "files" ? "changes" : "files", true);
  }

  el.addEventListener("click", onClick);
  el.addEventListener("keydown", onKey);
  return {
    el,
    changesTab,
    get current() { return current; },
    select,
    dispose() {
      el.removeEventListener("click", onClick);
      el.removeEventListener("keydown", onKey);
    },
  };
}
