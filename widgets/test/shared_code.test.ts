// The views' code travels once per kernel: each view's `_esm` is the loader, which joins the code
// parts its `_code` names, imports the bundle once per page for every view of that kind, and adds
// the stylesheet once to each root a view renders in (the page, or a host's shadow root).

import "./dom";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { detailView } from "../src/batch/detail";
import { loadView, styleRoot } from "../src/lib/shared_code";
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

  it("adds the stylesheet once to each shadow root a view renders in, not to the page", async () => {
    const { getText } = counting();
    const refs = { key: "k-shadow", esm: ["anywidget:js1", "anywidget:js2"], css: ["anywidget:css1"] };
    const inShadow = () => {
      const host = document.createElement("div");
      document.body.appendChild(host);
      const el = document.createElement("div");
      host.attachShadow({ mode: "open" }).appendChild(el);
      return el;
    };
    const a = inShadow();
    const b = inShadow();
    const rootA = styleRoot(a);
    assert.equal(rootA, a.getRootNode());
    await loadView(refs, getText, dataImport, rootA);
    await loadView(refs, getText, dataImport, rootA);
    await loadView(refs, getText, dataImport, styleRoot(b));
    for (const el of [a, b]) {
      const styles = (el.getRootNode() as ShadowRoot).querySelectorAll("style#deepnb-code-k-shadow");
      assert.equal(styles.length, 1);
      assert.equal(styles[0].textContent, PARTS["anywidget:css1"]);
    }
    assert.equal(document.querySelectorAll("style#deepnb-code-k-shadow").length, 0);
  });

  it("the loader styles a view in the shadow root it renders in", async () => {
    const host = document.createElement("div");
    document.body.appendChild(host);
    const el = document.createElement("div");
    host.attachShadow({ mode: "open" }).appendChild(el);
    const refs = { key: "k-loader-shadow", esm: ["anywidget:js1", "anywidget:js2"], css: ["anywidget:css1"] };
    const model = { get: (name: string) => (name === "_code" ? refs : undefined) };
    const parts = { getModel: async (ref: string) => ({ get: () => PARTS[ref] }) };
    await loadView(refs, counting().getText, dataImport, document); // Node imports no blob URL: cached first
    await loader.render({ model, el, host: parts });
    assert.equal(el.textContent, "drawn by the bundle");
    assert.equal((el.getRootNode() as ShadowRoot).querySelectorAll("style#deepnb-code-k-loader-shadow").length, 1);
  });

  it("a view rendered before it is attached gets its styles where it lands", async () => {
    const el = document.createElement("div");
    const refs = { key: "k-late", esm: ["anywidget:js1", "anywidget:js2"], css: ["anywidget:css1"] };
    const model = { get: (name: string) => (name === "_code" ? refs : undefined) };
    const parts = { getModel: async (ref: string) => ({ get: () => PARTS[ref] }) };
    await loadView(refs, counting().getText, dataImport, document); // Node imports no blob URL: cached first
    await loader.render({ model, el, host: parts });
    const host = document.createElement("div");
    document.body.appendChild(host);
    const shadow = host.attachShadow({ mode: "open" });
    shadow.appendChild(el);
    for (let i = 0; i < 50 && !shadow.querySelector("style#deepnb-code-k-late"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.equal(shadow.querySelectorAll("style#deepnb-code-k-late").length, 1);
  });

  it("a batch's open run view gets its styles in the shadow root the grid is in", async () => {
    const refs = { key: "k-detail", esm: ["anywidget:js1", "anywidget:js2"], css: ["anywidget:css1"] };
    await loadView(refs, counting().getText, dataImport, document); // Node imports no blob URL: cached first
    const models: Record<string, { get(name: string): unknown }> = {
      run: { get: (name: string) => (name === "_code" ? refs : undefined) },
      js1: { get: () => PARTS["anywidget:js1"] },
      js2: { get: () => PARTS["anywidget:js2"] },
      css1: { get: () => PARTS["anywidget:css1"] },
    };
    const detail = detailView(() => ({ get_model: async (id: string) => models[id] }));
    const host = document.createElement("div");
    document.body.appendChild(host);
    const shadow = host.attachShadow({ mode: "open" });
    shadow.appendChild(detail.el);
    await detail.show("run");
    assert.equal(detail.el.textContent, "drawn by the bundle");
    assert.equal(shadow.querySelectorAll("style#deepnb-code-k-detail").length, 1);
    detail.dispose();
  });
});
