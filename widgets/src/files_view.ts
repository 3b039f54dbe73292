// deepnb file browser: a thread's files as a lazily expanded tree, a search box (glob / grep), a
// viewer with an editor, downloads, and the diffs of the run the view follows (anywidget ESM module).
//
// Security: every string goes into the DOM through textContent / setAttribute of non-URL
// attributes. The one exception is a file's `html`, rendered and escaped in Python
// (deepnb.session.files.render.render_file), which alone is set with innerHTML. A download's link is a
// Blob URL made here from the bytes the kernel sent; nothing from a file becomes a URL or runs.
//
// Protocol (see deepnb/views/files/files_view.py): requests carry a `seq` unique to this view, and each
// reply echoes it; `{type: "changed", paths}` arrives unasked while a run writes files, and the
// view asks again for what it shows.

import type { AnyModel, RenderProps } from "@anywidget/types";
import { changesView } from "./files/changes";
import { treeView } from "./files/file_tree";
import { viewerView } from "./files/file_viewer";
import type { Request } from "./files/request";
import type { LineTarget } from "./files/reveal";
import { searchView } from "./files/search";
import { h, setText, show, smallButton } from "./lib/dom";
import { sendIfLive, watchKernel } from "./lib/kernel";
import { type NotebookManager, saveViewsAsSnapshots } from "./lib/saved_snapshots";
import { isObj, list, str } from "./lib/text";
import type { FilesTraits } from "./types";

const GONE = "The kernel restarted or shut down: run %deepagent files again to browse.";
const REFRESH_DELAY = 150; // ms: `changed` messages close together make one refresh

let views = 0;

function render({ model, el }: { model: AnyModel<FilesTraits>; el: HTMLElement }): () => void {
  saveViewsAsSnapshots((model as { widget_manager?: NotebookManager }).widget_manager);
  const viewId = `fv${++views}-${Math.random().toString(36).slice(2, 8)}`;
  let counter = 0;
  const waiting = new Map<string, (reply: any) => void>(); // seq → what to do with the reply

  let gone = false; // no kernel behind the view (it restarted or shut down)
  const unwatch = watchKernel(model, () => {
    gone = true;
  });

  const request: Request = (message, onReply) => {
    const seq = `${viewId}:${++counter}`;
    if (gone || !sendIfLive(() => model.send({ ...message, seq }))) {
      onReply({ seq, error: GONE } as Parameters<typeof onReply>[0]);
      return seq;
    }
    waiting.set(seq, onReply);
    return seq;
  };

  const root = h("div", "deepnb-files");
  const style = h("style");
  const head = h("div", "dnb-fv-head");
  const title = h("span", "dnb-fv-title", "Files");
  const where = h("span", "dnb-fv-where");
  const refreshBtn = smallButton("dnb-fv-refresh", "↻ Refresh", "List the folders and the open file again");
  head.append(title, where, refreshBtn);

  const tabs = h("div", "dnb-fv-tabs");
  tabs.setAttribute("role", "tablist");
  const filesTab = smallButton("dnb-fv-tab dnb-fv-tab-files", "Files");
  const changesTab = smallButton("dnb-fv-tab dnb-fv-tab-changes", "Changed in this run");
  tabs.append(filesTab, changesTab);

  const filesPanel = h("div", "dnb-fv-panel dnb-fv-files-panel");
  const side = h("div", "dnb-fv-side");
  const tree = treeView(request, (path) => openFile(path));
  const search = searchView(request, (path, at) => openFile(path, at), () => str(model.get("path")) || "/");
  side.append(search.el, tree.el);
  const viewer = viewerView(request, (path) => tree.refresh([path]), (path) => tree.select(path));
  filesPanel.append(side, viewer.el);
  const changes = changesView(request, (path) => {
    selectTab("files");
    openFile(path);
  });
  const changesPanel = h("div", "dnb-fv-panel dnb-fv-changes-panel");
  changesPanel.append(changes.el);
  const panels: [HTMLButtonElement, HTMLElement, string][] = [
    [filesTab, filesPanel, "files"], [changesTab, changesPanel, "changes"]];
  for (const [tab, panel, id] of panels) {
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

  function selectTab(next: unknown, focus = false): void {
    tab = next === "changes" && model.get("has_changes") ? "changes" : "files";
    for (const [btn, panel, id] of panels) {
      const on = id === tab;
      btn.setAttribute("aria-selected", on ? "true" : "false");
      btn.setAttribute("tabindex", on ? "0" : "-1");
      panel.hidden = !on;
      if (on && focus) btn.focus();
    }
    root.setAttribute("data-tab", tab);
    if (tab === "changes") changes.refresh();
  }

  function openFile(path: string, at?: LineTarget): void {
    viewer.open(path, { at });
  }

  function renderHead(): void {
    const parts = [str(model.get("path")) || "/", `agent ${str(model.get("agent"))}`,
      `thread ${str(model.get("thread_id"))}`];
    const backend = str(model.get("backend"));
    if (backend) parts.push(backend);
    setText(where, parts.join(" · "));
    tree.setRoot(str(model.get("path")) || "/");
  }

  function renderRoot(): void {
    tree.setRoot(str(model.get("path")) || "/");
    tree.fill(tree.root, { entries: model.get("root_entries"), offset: 0, total: model.get("root_total") });
  }

  function renderRun(): void {
    const has = Boolean(model.get("has_changes"));
    show(changesTab, has);
    const run = str(model.get("run_id"));
    changesTab.title = run ? `What ${run} changed, file by file` : "";
    if (!has && tab === "changes") selectTab("files");
    else if (tab === "changes") changes.refresh();
  }

  const renderCss = (): void => setText(style, model.get("code_css"));

  // Changes close together make one refresh of what the view shows.
  let pendingPaths: Set<string> | null = null;
  let refreshTimer: ReturnType<typeof setTimeout> | null = null;

  function onChanged(paths: unknown): void {
    const incoming = list(paths).map(str);
    pendingPaths = pendingPaths === null ? new Set(incoming) : new Set([...pendingPaths, ...incoming]);
    if (refreshTimer !== null) return;
    refreshTimer = setTimeout(() => {
      refreshTimer = null;
      const changed = [...(pendingPaths || [])];
      pendingPaths = null;
      tree.refresh(changed);
      viewer.changed(changed);
      search.refresh();
      if (tab === "changes") changes.refresh();
    }, REFRESH_DELAY);
  }

  function refreshAll(): void {
    tree.refresh(null);
    viewer.changed(null);
    search.refresh();
    if (tab === "changes") changes.refresh();
  }

  function onMessage(msg: unknown): void {
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

  function onTabClick(event: MouseEvent): void {
    const target = event.target as Element;
    const btn = target.closest && target.closest(".dnb-fv-tab");
    if (btn) selectTab(btn.getAttribute("data-tab"));
  }

  function onTabKey(event: KeyboardEvent): void {
    if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
    event.preventDefault();
    selectTab(tab === "files" ? "changes" : "files", true);
  }

  const handlers: Record<string, (...args: any[]) => void> = {
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
    unwatch();
  };
}

export default { render } satisfies { render(props: RenderProps<FilesTraits>): () => void };
