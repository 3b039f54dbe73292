// The open row's run: its full live view (the run view, approval cards included) drawn below the
// grid. The run view's model is a widget the kernel opened for it; its code comes the way every
// deepnb view's does (lib/shared_code.ts), so the grid's bundle does not carry the run view's.

import { isCodeRefs, loadView, styleRoot } from "../lib/shared_code";
import { h, setText } from "../lib/dom";
import { str } from "../lib/text";

interface WidgetModel {
  get(name: string): unknown;
}

export interface Manager {
  get_model(id: string): Promise<WidgetModel>;
}

const PREFIX = "anywidget:";

export interface DetailView {
  el: HTMLElement;
  show(modelId: string): Promise<void>;
  /** Shows a run read from a log instead: its record, as safe HTML the kernel wrote. */
  showRecord(html: string): void;
  dispose(): void;
}

/** What `shown` holds while a logged run's record is open (no model id is this). */
const RECORD = "\u0000record";

export function detailView(manager: () => Manager | undefined): DetailView {
  const el = h("div", "dnb-batch-detail");
  el.setAttribute("aria-live", "polite");
  let shown = "";
  let cleanup: unknown = undefined;

  function clear(): void {
    if (typeof cleanup === "function") (cleanup as () => void)();
    cleanup = undefined;
    el.replaceChildren();
  }

  async function show(modelId: string): Promise<void> {
    if (modelId === shown) return;
    shown = modelId;
    clear();
    const widgets = manager();
    if (!modelId || !widgets) return;
    const target = h("div", "dnb-batch-run");
    el.append(target);
    try {
      const model = await widgets.get_model(modelId);
      const refs = model.get("_code");
      if (!isCodeRefs(refs)) throw new Error("the run view names no code");
      const texts = async (ref: string): Promise<string> => {
        const part = await widgets.get_model(ref.startsWith(PREFIX) ? ref.slice(PREFIX.length) : ref);
        return str(part.get("text"));
      };
      const view = await loadView(refs, texts, undefined, styleRoot(el)); // the grid's root: maybe a shadow root
      if (shown !== modelId) return; // another row was opened meanwhile
      cleanup = await view.render({ model, el: target });
    } catch (error) {
      console.error("deepnb: could not open the run's view", error);
      setText(target, "deepnb: this run's view did not load; display batch.runs[i] in a cell.");
    }
  }

  function showRecord(html: string): void {
    shown = RECORD;
    clear();
    const target = h("div", "dnb-batch-run dnb-logged");
    target.innerHTML = html; // escaped in Python (deepnb/views/experiment/logged_run.py)
    el.append(target);
  }

  return { el, show, showRecord, dispose: clear };
}
