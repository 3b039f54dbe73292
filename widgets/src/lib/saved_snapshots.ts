// Saved with the notebook: deepnb's views reopen readable, everywhere.
//
// A view is a widget output: its model lives in the kernel, and a reopened notebook has none, so
// JupyterLab and Notebook 7 would show "model not found" (they prefer the widget to the static
// `text/html` beside it in the same output). So when the notebook is saved, the file gets each
// deepnb view as its static snapshot (`text/html` and `text/plain`, without the widget), while the
// open notebook keeps the live view: only the saved copy changes. Reopened anywhere — JupyterLab,
// Notebook 7, VS Code, GitHub, nbviewer, nbconvert — the snapshot is what shows. Other libraries'
// widgets are left as they are.

const WIDGET_VIEW = "application/vnd.jupyter.widget-view+json";
const SAVES_SNAPSHOTS = Symbol.for("deepnb.savesSnapshots");

type Json = Record<string, any>;

/** What deepnb reads of a Jupyter widget model. */
interface ManagedModel {
  get(name: string): unknown;
}

/** What deepnb uses of JupyterLab's (and Notebook 7's) notebook model and save signal. */
interface NotebookModel {
  toJSON(): Json;
}

interface SaveSignal {
  connect(slot: (sender: unknown, state: string) => void): unknown;
}

/** The parts of ipywidgets' JupyterLab widget manager used here (none of them typed by anywidget). */
export interface NotebookManager {
  context?: { saveState?: SaveSignal; model?: NotebookModel };
  _modelsSync?: Map<string, ManagedModel>;
  get_state_sync?(options: { drop_defaults: boolean }): { state?: Record<string, { state?: Json }> };
  has_model?(id: string): boolean;
  [SAVES_SNAPSHOTS]?: boolean;
}

const isDeepnbId = (id: unknown): boolean => String(id || "").startsWith("deepnb.");
/** A layout deepnb builds from plain ipywidgets (the compare view's columns) is marked by a class. */
const isDeepnbLayout = (classes: unknown): boolean =>
  Array.isArray(classes) && classes.some((c) => String(c).startsWith("deepnb-"));
const isDeepnbModel = (get: (name: string) => unknown): boolean =>
  isDeepnbId(get("_anywidget_id")) || isDeepnbLayout(get("_dom_classes"));

/** The ids of deepnb's view models the widget manager holds (live, or cut off by a restart): its
 * anywidgets, and the ipywidgets layouts it marks with a `deepnb-` class. */
export function deepnbModelIds(manager: NotebookManager): Set<string> {
  const ids = new Set<string>();
  const models = manager._modelsSync; // ipywidgets 8: every model by id, synchronously
  if (models instanceof Map) {
    for (const [id, model] of models) if (isDeepnbModel((name) => model.get(name))) ids.add(id);
    return ids;
  }
  const state = manager.get_state_sync ? manager.get_state_sync({ drop_defaults: true }).state || {} : {};
  for (const [id, entry] of Object.entries(state)) if (isDeepnbModel((name) => (entry.state || {})[name])) ids.add(id);
  return ids;
}

/** The notebook's JSON with each deepnb view output reduced to its static snapshot: the views of
 * `isView(model_id)`, and outputs whose model is gone (`isKnown` false) and whose `text/html` is a
 * deepnb snapshot (saved before this existed). Every other output is kept as it is; `notebook`
 * itself is not changed. */
export function snapshotsOnly(notebook: Json, isView: (id: string) => boolean, isKnown: (id: string) => boolean): Json {
  const cells = (notebook.cells || []).map((cell: Json) => {
    if (!Array.isArray(cell.outputs)) return cell;
    const outputs = cell.outputs.map((output: Json) => {
      const data: Json = output.data || {};
      const view = data[WIDGET_VIEW];
      const html = ([] as string[]).concat(data["text/html"] || []).join("");
      if (!view || !html) return output;
      const id = String(view.model_id || "");
      if (!isView(id) && (isKnown(id) || !html.includes("deepnb-snapshot"))) return output;
      const { [WIDGET_VIEW]: _widget, ...snapshot } = data;
      return { ...output, data: snapshot };
    });
    return { ...cell, outputs };
  });
  return { ...notebook, cells };
}

/** Once per notebook (its widget manager): its saves write deepnb's views as their snapshots.
 * JupyterLab's save reads the notebook with `toJSON()` right after announcing it ("started"), so
 * that one call returns the notebook with snapshots; the notebook itself is not changed. Front ends
 * without a notebook context (VS Code, Voilà) are left alone. */
export function saveViewsAsSnapshots(manager: NotebookManager | undefined): void {
  const context = manager && manager.context;
  if (!manager || !context || !context.saveState || !context.model || manager[SAVES_SNAPSHOTS]) return;
  manager[SAVES_SNAPSHOTS] = true;
  const model = context.model as NotebookModel & { toJSON: NotebookModel["toJSON"] };
  context.saveState.connect((_sender, state) => {
    const patched = Object.prototype.hasOwnProperty.call(model, "toJSON");
    if (state !== "started") {
      if (patched) delete (model as Partial<NotebookModel>).toJSON; // a save that never read it
      return;
    }
    if (patched) return;
    model.toJSON = function toJSON(): Json {
      delete (model as Partial<NotebookModel>).toJSON;
      const notebook = model.toJSON();
      try {
        const views = deepnbModelIds(manager);
        const known = (id: string): boolean => (manager.has_model ? manager.has_model(id) : true);
        return snapshotsOnly(notebook, (id) => views.has(id), known);
      } catch (error) {
        console.error("deepnb: could not save the views as snapshots", error);
        return notebook;
      }
    };
  });
}
