// The run's error under its transcript: "Error: …" as text, shown only when no error item of the
// main transcript says it already.

import "./dom";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { errorLine, runErrorView } from "../src/run/run_error";
import type { ItemRecord } from "../src/run/record";

const rec = (kind: string, text: string): ItemRecord => ({ key: "k", kind, el: document.createElement("div"), f: { text } });

describe("the run's error", () => {
  it("is said unless an error item says the same", () => {
    assert.equal(errorLine("", []), "");
    assert.equal(errorLine("boom", []), "Error: boom");
    assert.equal(errorLine("boom", [rec("text", "boom"), rec("error", "other")]), "Error: boom");
    assert.equal(errorLine("boom", [rec("error", "boom")]), "");
  });

  it("shows and hides its line as the error and the items change", () => {
    const traits: Record<string, unknown> = { error: '<b>boom</b>' };
    const records: ItemRecord[] = [];
    const view = runErrorView({ get: ((name: string) => traits[name]) as any }, () => records);
    assert.equal(view.el.className, "dnb-error dnb-run-error");
    view.render();
    assert.equal(view.el.hidden, false);
    assert.equal(view.el.textContent, "Error: <b>boom</b>");
    assert.equal(view.el.querySelector("b"), null, "the error is text");
    records.push(rec("error", "<b>boom</b>"));
    view.render();
    assert.equal(view.el.hidden, true);
    assert.equal(view.el.textContent, "");
    traits.error = undefined;
    records.length = 0;
    view.render();
    assert.equal(view.el.hidden, true);
  });
});
