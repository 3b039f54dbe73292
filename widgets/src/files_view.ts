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
import { type ChangesView, changesView } from "./files/changes";
import { type TreeView, treeView } from "./files/file_tree";
import { type ViewerView, viewerView } from "./files/file_viewer";
import { changeBatcher } from "./files/live_refresh";
import { type Request, requestChannel } from "./files/request";
import type { LineTarget } from "./files/reveal";
import { type SearchView, searchView } from "./files/search";
import { type TabsView, tabsView } from "./files/tabs";
import { h, setText, show, smallButton } from "./lib/dom";
import { isObj, str } from "./lib/text";
import { listen, listenToModel, notebookManager, undoAll } from "./lib/view_shell";
import type { FilesTraits } from "./types";

const REFRESH_DELAY = 150; // ms: `changed` messages close together make one refresh

let views = 0;

/** An id unique to a view (and to the page): its requests' seqs and its tabs' ids start with it. */
const newViewId = (): string => `fv${++views}-${Math.random().toString(36).slice(2, 8)}`;

/** The head line: the title, where the files are, and Refresh. */
function filesHead(): { el: HTMLElement; where: HTMLElement; refresh: HTMLButtonElement } {
  const el = h("div", "dnb-fv-head");
  const title = h("span", "dnb-fv-title", "Files");
  const where = h("span", "dnb-fv-where");
  const refresh = smallButton("dnb-fv-refresh", "↻ Refresh", "List the folders and the open file again");
  el.append(title, where, refresh);
  return { el, where, refresh };
}

/** The view's panes: the tree and the search beside the viewer (the Files panel), and the run's
 * changes (their panel). Each opens files in the viewer; `showFiles` brings the Files tab up. */
interface Panes {
  tree: TreeView;
  search: SearchView;
  viewer: ViewerView;
  changes: ChangesView;
  panels: { files: HTMLElement; changes: HTMLElement };
}

function filesPanes(request: Request, rootPath: () => string, showFiles: () => void): Panes {
  const openFile = (path: string, at?: LineTarget): void => viewer.open(path, { at });
  const tree = treeView(request, (path) => openFile(path));
  const search = searchView(request, (path, at) => openFile(path, at), rootPath);
  const viewer = viewerView(request, (path) => tree.refresh([path]), (path) => tree.select(path));
  const changes = changesView(request, (path) => {
    showFiles();
    openFile(path);
  });
  const files = h("div", "dnb-fv-panel dnb-fv-files-panel");
  const side = h("div", "dnb-fv-side");
  side.append(search.el, tree.el);
  files.append(side, viewer.el);
  const changed = h("div", "dnb-fv-panel dnb-fv-changes-panel");
  changed.append(changes.el);
  return { tree, search, viewer, changes, panels: { files, changes: changed } };
}

/** What the view draws from its traits: the head line, the top folder, the changes tab, the code's CSS. */
function traitRenderers(
  model: AnyModel<FilesTraits>, panes: Panes, tabs: TabsView, where: HTMLElement, style: HTMLElement,
): { head(): void; root(): void; run(): void; css(): void } {
  const { tree, changes } = panes;
  const top = (): string => str(model.get("path")) || "/";
  return {
    head() {
      const parts = [top(), `agent ${str(model.get("agent"))}`, `thread ${str(model.get("thread_id"))}`];
      const backend = str(model.get("backend"));
      if (backend) parts.push(backend);
      setText(where, parts.join(" · "));
      tree.setRoot(top());
    },
    root() {
      tree.setRoot(top());
      tree.fill(tree.root, { entries: model.get("root_entries"), offset: 0, total: model.get("root_total") });
    },
    run() {
      const has = Boolean(model.get("has_changes"));
      show(tabs.changesTab, has);
      const run = str(model.get("run_id"));
      tabs.changesTab.title = run ? `What ${run} changed, file by file` : "";
      if (!has && tabs.current === "changes") tabs.select("files");
      else if (tabs.current === "changes") changes.refresh();
    },
    css: () => setText(style, model.get("code_css")),
  };
}

function render({ model, el }: { model: AnyModel<FilesTraits>; el: HTMLElement }): () => void {
  notebookManager(model);
  const viewId = newViewId();
  const channel = requestChannel(model, viewId);
  const root = h("div", "deepnb-files");
  const style = h("style");
  const head = filesHead();
  const panes = filesPanes(channel.request, () => str(model.get("path")) || "/", () => tabs.select("files"));
  const { tree, search, viewer, changes } = panes;
  const tabs = tabsView(viewId, panes.panels, () => Boolean(model.get("has_changes")), (tab) => {
    root.setAttribute("data-tab", tab);
    if (tab === "changes") changes.refresh();
  });
  root.append(style, head.el, tabs.el, panes.panels.files, panes.panels.changes);
  el.replaceChildren(root);

  /** Asks again for what the view shows that `paths` can touch (everything for null). */
  const refreshShown = (paths: string[] | null): void => {
    tree.refresh(paths);
    viewer.changed(paths);
    search.refresh();
    if (tabs.current === "changes") changes.refresh();
  };
  const batcher = changeBatcher(REFRESH_DELAY, refreshShown);
  const onMessage = (msg: unknown): void => {
    if (!isObj(msg)) return;
    if (msg.type === "changed") batcher.add(msg.paths);
    else channel.answer(msg);
  };
  const draw = traitRenderers(model, panes, tabs, head.where, style);
  draw.css();
  draw.head();
  draw.root();
  draw.run();
  tabs.select("files");
  return undoAll([
    listenToModel(model, {
      "msg:custom": onMessage,
      "change:code_css": draw.css,
      "change:root_entries": draw.root,
      "change:root_total": draw.root,
      "change:path": draw.head,
      "change:agent": draw.head,
      "change:thread_id": draw.head,
      "change:backend": draw.head,
      "change:has_changes": draw.run,
      "change:run_id": draw.run,
    }),
    listen(head.refresh, "click", () => refreshShown(null)),
    () => tabs.dispose(),
    () => batcher.dispose(),
    () => tree.dispose(),
    () => search.dispose(),
    () => viewer.dispose(),
    () => changes.dispose(),
    () => channel.dispose(),
  ]);
}

export default { render } satisfies { render(props: RenderProps<FilesTraits>): () => void };
