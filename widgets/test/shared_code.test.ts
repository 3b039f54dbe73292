// The views' code travels once per kernel: each view's `_esm` is the loader, which joins the code
// parts its `_code` names, imports the bundle once per page for every view of that kind, and adds
// the stylesheet once.

import "./dom";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadView } from "../src/lib/shared_code";
import loader from "../src/loader";

const PARTS: Record<string, string> = {
  "anywidget:js1": "export default { render({ el }) { el.textContent = 'drawn by ",
  "anywidget:js2": "the bundle'; return () => {}; } };",
  "anywidget:css1": ".deepnb { color: red; }",
};

function counting() {
  const asked: string[] = [];
  const getText = async (ref: string) => { asked.push(ref); return PARTS[ref]; };
  return { asked, getText };
}

const dataImport = (code: string) => import(`data:text/javascript,${encodeURIComponent(code)}`);

describe("shared code", () => {
  it("joins the parts in order, imports once per key and adds the stylesheet once", async () => {
    let imports = 0;
    const importer = async (code: string) => { imports += 1; return dataImport(code); };
    const { asked, getText } = counting();
    const refs = { key: "k-order", esm: ["anywidget:js1", "anywidget:js2"], css: ["anywidget:css1"] };
    const first = await loadView(refs, getText, importer, document);
    const second = await loadView(refs, getText, importer, document);
    assert.equal(first, second);
    assert.equal(imports, 1);
    assert.deepEqual(asked.filter((r) => r.startsWith("anywidget:js")), ["anywidget:js1", "anywidget:js2"]);
    const styles = document.querySelectorAll("style#deepnb-code-k-order");
    assert.equal(styles.length, 1);
    assert.equal(styles[0].textContent, PARTS["anywidget:css1"]);
    const el = document.createElement("div");
    first.render({ el });
    assert.equal(el.textContent, "drawn by the bundle");
  });

  it("tries again after a failed load", async () => {
    let fail = true;
    const importer = async (code: string) => {
      if (fail) throw new Error("network");
      return dataImport(code);
    };
    const { getText } = counting();
    const refs = { key: "k-retry", esm: ["anywidget:js1", "anywidget:js2"], css: ["anywidget:css1"] };
    await assert.rejects(loadView(refs, getText, importer, document));
    fail = false;
    const view = await loadView(refs, getText, importer, document);
    assert.equal(typeof view.render, "function");
  });

  it("the loader says so in the view when the code does not come", async () => {
    const el = document.createElement("div");
    const model = {
      get: (name: string) => (name === "_code" ? { key: "k-missing", esm: ["anywidget:gone"], css: [] } : undefined),
    };
    const host = { getModel: async () => { throw new Error("no such model"); } };
    const quiet = console.error;
    console.error = () => {};
    try {
      await loader.render({ model, el, host });
    } finally {
      console.error = quiet;
    }
    assert.match(el.textContent || "", /did not load; run the cell again/);
  });
});
