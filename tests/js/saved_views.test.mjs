// node --test tests/js/saved_views.test.mjs: what a save writes for deepnb's views.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import test from "node:test";
import vm from "node:vm";

const source = readFileSync(new URL("../../widgets/saved_views.js", import.meta.url), "utf8");
const saved = vm.runInNewContext(`${source}; ({ snapshotsOnly, saveViewsAsSnapshots, watchKernel });`, {
  Symbol,
  console,
  Map,
});

const VIEW = "application/vnd.jupyter.widget-view+json";
const output = (id, html = '<div class="deepnb-snapshot">run</div>') => ({
  output_type: "display_data",
  metadata: {},
  data: { [VIEW]: { model_id: id, version_major: 2, version_minor: 0 }, "text/html": html, "text/plain": "run" },
});
const notebook = (...outputs) => ({ metadata: {}, nbformat: 4, cells: [{ cell_type: "code", outputs }] });

test("a deepnb view is saved as its snapshot; other widgets and outputs are kept", () => {
  const slider = output("slider", "<b>3</b>");
  const text = { output_type: "stream", name: "stdout", text: "hi" };
  const json = saved.snapshotsOnly(notebook(output("a"), slider, text), (id) => id === "a", () => true);
  const [a, kept, stream] = json.cells[0].outputs;
  assert.deepEqual(Object.keys(a.data).sort(), ["text/html", "text/plain"]);
  assert.deepEqual(kept, slider);
  assert.deepEqual(stream, text);
});

test("an output whose model is gone is saved as its snapshot only when the snapshot is deepnb's", () => {
  const json = saved.snapshotsOnly(notebook(output("old"), output("x", "<b>other</b>")), () => false, () => false);
  const [old, other] = json.cells[0].outputs;
  assert.equal(old.data[VIEW], undefined);
  assert.equal(other.data[VIEW].model_id, "x");
});

test("the open notebook is not changed", () => {
  const original = notebook(output("a"));
  saved.snapshotsOnly(original, () => true, () => true);
  assert.equal(original.cells[0].outputs[0].data[VIEW].model_id, "a");
});

function signal() {
  const slots = new Set();
  return { connect: (fn) => slots.add(fn), disconnect: (fn) => slots.delete(fn), emit: (...a) => slots.forEach((fn) => fn(...a)) };
}

function notebookModel(json) {
  class NotebookModel {
    toJSON() {
      return structuredClone(json);
    }
  }
  return new NotebookModel();
}

test("only the save's own read of the notebook gets the snapshots", () => {
  const saveState = signal();
  const model = notebookModel(notebook(output("a")));
  const runView = { get: (name) => (name === "_anywidget_id" ? "deepnb.views.run_view.RunView" : "") };
  const manager = { context: { saveState, model }, _modelsSync: new Map([["a", runView]]), has_model: () => true };
  saved.saveViewsAsSnapshots(manager);
  saved.saveViewsAsSnapshots(manager); // once per notebook
  assert.equal(model.toJSON().cells[0].outputs[0].data[VIEW].model_id, "a");
  saveState.emit(null, "started");
  assert.equal(model.toJSON().cells[0].outputs[0].data[VIEW], undefined);
  assert.equal(model.toJSON().cells[0].outputs[0].data[VIEW].model_id, "a");
  saveState.emit(null, "completed");
  saveState.emit(null, "started");
  saveState.emit(null, "failed"); // a save that never read the notebook
  assert.equal(model.toJSON().cells[0].outputs[0].data[VIEW].model_id, "a");
});

test("a view hears once that its kernel restarted, or shut down", () => {
  const statusChanged = signal();
  const kernelChanged = signal();
  const model = { widget_manager: { context: { sessionContext: { statusChanged, kernelChanged } } } };
  let heard = 0;
  const stop = saved.watchKernel(model, () => heard++);
  statusChanged.emit(null, "busy");
  assert.equal(heard, 0);
  statusChanged.emit(null, "restarting");
  kernelChanged.emit(null, { oldValue: {}, newValue: null });
  assert.equal(heard, 1);
  stop();
  const second = saved.watchKernel(model, () => heard++);
  kernelChanged.emit(null, { oldValue: {}, newValue: null });
  assert.equal(heard, 2);
  second();
});
