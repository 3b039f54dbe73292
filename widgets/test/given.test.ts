// What the agents were given, in the run view: one collapsed line under the header that opens to
// the skills and memory files in the prompt and the tools each agent can call; hidden until the
// kernel says something; agent text shown as text, never as markup; live patches update it.

import "./dom";
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { FakeModel, mount } from "./dom";
import view from "../src/run_view";
import { givenSummary } from "../src/run/given";
import type { Given, RunTraits } from "../src/types";

const shown: (() => void)[] = [];
afterEach(() => { for (const dispose of shown.splice(0)) dispose(); });

const GIVEN: Given = {
  skills: [{ name: "summarize", description: 'Summarize <img src=x onerror="alert(1)">', agent: "main" },
    { name: "cite", description: "Cite sources.", agent: "critic" }],
  memory: [{ path: "/AGENTS.md", agent: "main" }],
  tools: { main: ["ls", "read_file", "task"], critic: ["ls"] },
};

function show(fields: Partial<RunTraits>) {
  const fake = new FakeModel<RunTraits>({
    agent: "a", thread_id: "t", status: "done", error: "", items: [], todos: [], pending: [], decisions: [],
    progress: { steps: 1, tool_calls: 0, tokens_in: 0, tokens_out: 0, started_at: 1_700_000_000, elapsed: 1,
      todo_progress: "" },
    card_errors: {}, files_changed: [], tree: [], async_tasks: [], async_error: "", live_controls: true,
    stop_hint: "", code_css: "", revision: 0, ...fields,
  });
  const el = mount();
  shown.push(view.render({ model: fake as any, el }));
  return { fake, el };
}

describe("what the agents were given", () => {
  it("sums it up on one line that opens to the lists", () => {
    const { el } = show({ given: GIVEN });
    const section = el.querySelector(".dnb-given") as HTMLDetailsElement;
    assert.equal(section.hidden, false);
    assert.equal(section.open, false, "collapsed until opened");
    assert.equal(section.querySelector("summary")!.textContent,
      "Given: 2 skills · 1 memory file · tools: main 3, critic 1");
    const skills = [...el.querySelectorAll(".dnb-given-skill")].map((n) => n.textContent);
    assert.deepEqual(skills, ['summarize — Summarize <img src=x onerror="alert(1)">', "cite (critic) — Cite sources."]);
    assert.equal(el.querySelector(".dnb-given img"), null, "a description is text, never markup");
    assert.deepEqual([...el.querySelectorAll(".dnb-given-memory")].map((n) => n.textContent), ["/AGENTS.md"]);
    assert.deepEqual([...el.querySelectorAll(".dnb-given-tools")].map((n) => n.textContent),
      ["main: ls, read_file, task", "critic: ls"]);
  });

  it("stays hidden until the kernel says what was given, then follows live patches", () => {
    const { el, fake } = show({ status: "running" });
    const section = el.querySelector(".dnb-given") as HTMLElement;
    assert.equal(section.hidden, true);
    fake.message({ type: "patch", state: { given: { skills: [], memory: [], tools: { main: ["ls"] } } } });
    assert.equal(section.hidden, false);
    assert.equal(section.querySelector("summary")!.textContent, "Given: tools: main 1");
  });

  it("reads what it is sent defensively", () => {
    assert.equal(givenSummary(undefined), "");
    assert.equal(givenSummary({ skills: "x", memory: null, tools: [] } as any), "");
  });
});
