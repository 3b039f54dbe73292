// A run's structured output in the run view: a key/value table under the transcript, hidden until
// the kernel sends rows, filled when the `output` trait changes; keys and values are text, never markup.

import "./dom";
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { FakeModel, mount } from "./dom";
import view from "../src/run_view";
import type { RunTraits } from "../src/types";

const shown: (() => void)[] = [];
afterEach(() => { for (const dispose of shown.splice(0)) dispose(); });

function show(fields: Partial<RunTraits>) {
  const fake = new FakeModel<RunTraits>({
    agent: "a", thread_id: "t", status: "running", error: "", items: [], todos: [], pending: [], decisions: [],
    progress: { steps: 1, tool_calls: 0, tokens_in: 0, tokens_out: 0, started_at: 1_700_000_000, elapsed: 1,
      todo_progress: "" },
    card_errors: {}, files_changed: [], tree: [], async_tasks: [], async_error: "", live_controls: true,
    stop_hint: "", code_css: "", revision: 0, ...fields,
  });
  const el = mount();
  shown.push(view.render({ model: fake as any, el }));
  return { fake, el };
}

describe("the structured output", () => {
  it("is hidden until the run has one, then shows each field as a row of text", () => {
    const { el, fake } = show({});
    const section = el.querySelector(".dnb-output") as HTMLElement;
    assert.equal(section.hidden, true);
    fake.update({ status: "done", output: [["name", '<img src=x onerror="alert(1)">'], ["age", "36"]] });
    assert.equal(section.hidden, false);
    assert.equal(section.getAttribute("aria-label"), "Structured output");
    const rows = [...section.querySelectorAll("tr")].map((tr) =>
      [tr.querySelector("th")!.textContent, tr.querySelector("td")!.textContent]);
    assert.deepEqual(rows, [["name", '<img src=x onerror="alert(1)">'], ["age", "36"]]);
    assert.equal(section.querySelector("img"), null, "a value is text, never markup");
  });

  it("reads what it is sent defensively", () => {
    const { el } = show({ output: "nope" as any });
    assert.equal((el.querySelector(".dnb-output") as HTMLElement).hidden, true);
  });
});
