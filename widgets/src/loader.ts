// deepnb's view loader: every view's `_esm` (a few hundred bytes instead of the whole bundle).
// The view's bundle and stylesheet come from the code part models its `_code` trait names, once
// per kernel (deepnb/views/shared_code.py); then the bundle's own `render` draws the view, its
// stylesheet in the root it renders in (the page, or a shadow root as in marimo).
// `initialize` runs for each model as this page gets it from the kernel, drawn or not: in a shared
// notebook, the cells showing a collaborator's live run are trusted here as on reopening
// (lib/shared_trust.ts), so that their views draw live instead of as sanitized snapshots.

import { type NotebookManager } from "./lib/saved_snapshots";
import { type CodeRefs, followRoot, isCodeRefs, loadView, styleRoot } from "./lib/shared_code";
import { followSharedTrust } from "./lib/shared_trust";

interface Manager {
  get_model(id: string): Promise<{ get(name: string): unknown }>;
}

interface Props {
  model: { get(name: string): unknown; widget_manager?: Manager };
  el: HTMLElement;
  host?: { getModel(ref: string): Promise<{ get(name: string): unknown }> };
}

const PREFIX = "anywidget:";

function texts(props: Props): (ref: string) => Promise<string> {
  return async (ref) => {
    const manager = props.model.widget_manager;
    const part = props.host
      ? await props.host.getModel(ref)
      : await manager!.get_model(ref.startsWith(PREFIX) ? ref.slice(PREFIX.length) : ref);
    return String(part.get("text") ?? "");
  };
}

async function render(props: Props): Promise<unknown> {
  const refs = props.model.get("_code") as CodeRefs;
  if (!isCodeRefs(refs)) throw new Error("deepnb: this view names no code (_code is empty)");
  try {
    const getText = texts(props);
    const root = styleRoot(props.el);
    const view = await loadView(refs, getText, undefined, root);
    if (!props.el.isConnected) followRoot(props.el, refs, getText, root);
    return view.render(props);
  } catch (error) {
    console.error("deepnb: could not load the view's code", error);
    props.el.textContent = "deepnb: this view's code did not load; run the cell again.";
    return undefined;
  }
}

function initialize({ model }: { model: { widget_manager?: unknown } }): void {
  followSharedTrust(model.widget_manager as NotebookManager | undefined);
}

export default { initialize, render };
