// A collaborator's run in a shared notebook: the cells the shared document marks trusted and that
// show a live deepnb view are trusted in a page that was open before the run; nothing else is.

import "./dom";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { followSharedTrust, trustSharedRuns } from "../src/lib/shared_trust";

const VIEW = "application/vnd.jupyter.widget-view+json";
const RUN = { get: (name: string) => (name === "_anywidget_id" ? "deepnb.views.run.run_view.RunView" : "") };
const SLIDER = { get: (name: string) => (name === "_model_name" ? "IntSliderModel" : "") };

function signal() {
  const slots = new Set<() => void>();
  return { connect: (fn: () => void) => slots.add(fn), emit: () => slots.forEach((fn) => fn()) };
}

function cell(viewIds: string[], shared: boolean, type = "code") {
  const outputs = viewIds.map((id) => ({ data: { [VIEW]: { model_id: id }, "text/html": "<div>run</div>" } }));
  const changed = signal();
  return {
    type,
    trusted: false,
    metadata: { trusted: shared } as Record<string, unknown>,
    getMetadata(key: string) {
      return this.metadata[key];
    },
    metadataChanged: signal(),
    outputs: { get length() { return outputs.length; }, get: (i: number) => outputs[i], changed, push: (id: string) => outputs.push({ data: { [VIEW]: { model_id: id }, "text/html": "" } }) },
  };
}

describe("shared trust", () => {
  it("trusts a cell the shared document marks trusted when it shows a live deepnb view", () => {
    const run = cell(["run"], true);
    const unmarked = cell(["run2"], false); // its runner's page never marked it: left untrusted
    const stale = cell(["saved"], true); // a view saved in the file: its model is gone
    const slider = cell(["slider"], true); // another library's widget
    const markdown = cell(["run3"], true, "markdown");
    const trusted = trustSharedRuns({ collaborative: true, cells: [run, unmarked, stale, slider, markdown] },
      new Set(["run", "run2", "run3"]));
    assert.equal(trusted, 1);
    assert.deepEqual([run, unmarked, stale, slider, markdown].map((c) => c.trusted), [true, false, false, false, false]);
  });

  it("follows a collaborative notebook's outputs as they arrive, and leaves others alone", async () => {
    const run = cell([], true);
    const models = new Map<string, unknown>([["slider", SLIDER]]);
    const cells = Object.assign([run], { changed: signal() });
    const manager = { context: { model: { collaborative: true, cells } as any }, _modelsSync: models as any };
    followSharedTrust(manager);
    followSharedTrust(manager); // once per notebook; each call checks again
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(run.trusted, false);
    models.set("run", RUN); // the run's model came from the kernel...
    run.outputs.push("run"); // ...then its view by the shared document
    run.outputs.changed.emit();
    assert.equal(run.trusted, true);

    const alone = cell(["run"], true);
    const single = { context: { model: { collaborative: false, cells: [alone] } as any }, _modelsSync: models as any };
    followSharedTrust(single);
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(alone.trusted, false, "a notebook that is not shared is JupyterLab's alone");
    assert.doesNotThrow(() => followSharedTrust(undefined));
    assert.doesNotThrow(() => followSharedTrust({}));
  });
});
