// Saved with the notebook: deepnb's views reopen readable, everywhere.
//
// A view is a widget output: its model lives in the kernel, and a reopened notebook has none, so
// JupyterLab and Notebook 7 would show "model not found" (they prefer the widget to the static
// `text/html` beside it in the same output). So when the notebook is saved, the file gets each
// deepnb view as its static snapshot (`text/html` and `text/plain`, without the widget), while the
// open notebook keeps the live view: only the saved copy changes. Reopened anywhere — JupyterLab,
// Notebook 7, VS Code, GitHub, nbviewer, nbconvert — the snapshot is what shows. Other libraries'
// widgets are left as they are.
//
// This file is added to the end of each view's module (it has no imports or exports of its own).

const WIDGET_VIEW = "application/vnd.jupyter.widget-view+json";
const SAVES_SNAPSHOTS = Symbol.for("deepnb.savesSnapshots");

/** The ids of deepnb's view models the widget manager holds (live, or cut off by a restart). */
function deepnbModelIds(manager) {
  const ids = new Set();
  const models = manager._modelsSync; // ipywidgets 8: every model by id, synchronously
  if (models instanceof Map) {
    for (const [id, model] of models) {
      if (String(model.get("_anywidget_id") || "").startsWith("deepnb.")) ids.add(id);
    }
    return ids;
  }
  for (const [id, entry] of Object.entries(manager.get_state_sync({ drop_defaults: true }).state || {})) {
    if (String((entry.state || {})._anywidget_id || "").startsWith("deepnb.")) ids.add(id);
  }
  return ids;
}

/** The notebook's JSON with each deepnb view output reduced to its static snapshot: the views of
 * `isView(model_id)`, and outputs whose model is gone (`isKnown` false) whose `text/html` is a deepnb
 * snapshot (saved before this existed). Every other output is kept as it is. */
function snapshotsOnly(notebook, isView, isKnown) {
  const cells = (notebook.cells || []).map((cell) => {
    if (!Array.isArray(cell.outputs)) return cell;
    const outputs = cell.outputs.map((output) => {
      const data = output.data || {};
      const view = data[WIDGET_VIEW];
      const html = [].concat(data["text/html"] || []).join("");
      if (!view || !html) return output;
      const id = String(view.model_id || "");
      const ours = isView(id) || (!isKnown(id) && html.includes("deepnb-snapshot"));
      if (!ours) return output;
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
function saveViewsAsSnapshots(manager) {
  const context = manager && manager.context;
  if (!context || !context.saveState || !context.model || manager[SAVES_SNAPSHOTS]) return;
  manager[SAVES_SNAPSHOTS] = true;
  context.saveState.connect((_context, state) => {
    const model = context.model;
    const patched = Object.prototype.hasOwnProperty.call(model, "toJSON");
    if (state !== "started") {
      if (patched) delete model.toJSON; // a save that never read the notebook
      return;
    }
    if (patched) return;
    model.toJSON = function toJSON() {
      delete model.toJSON;
      const notebook = model.toJSON();
      try {
        const views = deepnbModelIds(manager);
        return snapshotsOnly(notebook, (id) => views.has(id), (id) => manager.has_model(id));
      } catch (error) {
        console.error("deepnb: could not save the views as snapshots", error);
        return notebook;
      }
    };
  });
}

/** Calls `onGone` once when no kernel is behind the view any more: its kernel restarts or shuts
 * down. Returns what stops watching. */
function watchKernel(model, onGone) {
  let gone = false;
  const goneNow = () => {
    if (!gone) {
      gone = true;
      onGone();
    }
  };
  const manager = model.widget_manager;
  const session = manager && manager.context && manager.context.sessionContext;
  if (!session) return () => {};
  const onStatus = (_session, status) => {
    if (status === "restarting" || status === "autorestarting" || status === "dead") goneNow();
  };
  const onKernel = (_session, change) => {
    if (change && change.oldValue) goneNow();
  };
  session.statusChanged.connect(onStatus);
  session.kernelChanged.connect(onKernel);
  return () => {
    session.statusChanged.disconnect(onStatus);
    session.kernelChanged.disconnect(onKernel);
  };
}
