// What a save writes for deepnb's views: each one as its static snapshot (no widget mimetype), only
// in the saved copy, and nothing else in the notebook changed.

import "./dom";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { deepnbModelIds, saveViewsAsSnapshots, snapshotsOnly } from "../src/lib/saved_snapshots";

const VIEW = "application/vnd.jupyter.widget-view+json";
const output = (id: string, html = '<div class="deepnb-snapshot">run</div>') => ({
  output_type: "display_data",
  metadata: {},
  data: { [VIEW]: { model_id: id, version_major: 2, version_minor: 0 }, "text/html": html, "text/plain": "run" },
});
const notebook = (...outputs: object[]) => ({ metadata: {}, nbformat: 4, cells: [{ cell_type: "code", outputs }] });

function signal() {
  const slots = new Set<(sender: unknown, state: string) => void>();
  return {
    connect: (fn: (sender: unknown, state: string) => void) => slots.add(fn),
    emit: (state: string) => slots.forEach((fn) => fn(null, state)),
  };
}

describe("saved snapshots", () => {
  it("saves a deepnb view as its snapshot and keeps other widgets and outputs", () => {
    const slider = output("slider", "<b>3</b>");
    const stream = { output_type: "stream", name: "stdout", text: "hi" };
    const json = snapshotsOnly(notebook(output("a"), slider, stream), (id) => id === "a", () => true);
    const [a, kept, text] = json.cells[0].outputs;
    assert.deepEqual(Object.keys(a.data).sort(), ["text/html", "text/plain"]);
    assert.deepEqual(kept, slider);
    assert.deepEqual(text, stream);
  });

  it("saves an output whose model is gone as its snapshot only when the snapshot is deepnb's", () => {
    const json = snapshotsOnly(notebook(output("old"), output("x", "<b>other</b>")), () => false, () => false);
    const [old, other] = json.cells[0].outputs;
    assert.equal(old.data[VIEW], undefined);
    assert.equal(other.data[VIEW].model_id, "x");
  });

  it("leaves the open notebook as it is", () => {
    const original = notebook(output("a"));
    snapshotsOnly(original, () => true, () => true);
    assert.equal((original.cells[0].outputs[0] as any).data[VIEW].model_id, "a");
  });

  it("gives the snapshots to the save's own read of the notebook only", () => {
    const saveState = signal();
    const json = notebook(output("a"));
    class NotebookModel {
      toJSON() {
        return structuredClone(json);
      }
    }
    const model = new NotebookModel();
    const runView = { get: (name: string) => (name === "_anywidget_id" ? "deepnb.views.run.run_view.RunView" : "") };
    const manager = { context: { saveState, model }, _modelsSync: new Map([["a", runView]]), has_model: () => true };
    const viewOf = (read: any) => read.cells[0].outputs[0].data[VIEW];
    saveViewsAsSnapshots(manager);
    saveViewsAsSnapshots(manager); // once per notebook
    assert.equal(viewOf(model.toJSON()).model_id, "a");
    saveState.emit("started");
    assert.equal(viewOf(model.toJSON()), undefined, "the save's read");
    assert.equal(viewOf(model.toJSON()).model_id, "a", "any later read");
    saveState.emit("completed");
    saveState.emit("started");
    saveState.emit("failed"); // a save that never read the notebook
    assert.equal(viewOf(model.toJSON()).model_id, "a");
  });

  it("knows deepnb's anywidgets and the layouts it marks with a deepnb- class, live or saved", () => {
    const model = (fields: Record<string, unknown>) => ({ get: (name: string) => fields[name] });
    const live = new Map([
      ["run", model({ _anywidget_id: "deepnb.views.run.run_view.RunView" })],
      ["compare", model({ _dom_classes: ["deepnb-compare"] })],
      ["other", model({ _anywidget_id: "other.Widget", _dom_classes: ["mine"] })],
      ["box", model({ _dom_classes: [] })],
    ]);
    assert.deepEqual([...deepnbModelIds({ _modelsSync: live })].sort(), ["compare", "run"]);
    const state = {
      run: { state: { _anywidget_id: "deepnb.views.batch.batch_view.BatchView" } },
      compare: { state: { _dom_classes: ["deepnb-compare"] } },
      other: { state: { _dom_classes: ["widget-vbox"] } },
    };
    assert.deepEqual([...deepnbModelIds({ get_state_sync: () => ({ state }) })].sort(), ["compare", "run"]);
  });

  it("leaves front ends without a notebook alone", () => {
    assert.doesNotThrow(() => saveViewsAsSnapshots(undefined));
    assert.doesNotThrow(() => saveViewsAsSnapshots({}));
  });
});
