// The header says a run's steps as the snapshot's head line does (deepnb/views/run/steps.py; the
// same cases are in tests/unit/test_step_numbers.py): the thread's steps the run made, the numbers
// its fork chips, timeline, history and --at use, and the model calls its subagents added.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { stepsWords } from "../src/run/steps";

export const CASES: [Record<string, number>, string][] = [
  [{ steps: 6, step: 6, first_step: 0 }, "6 steps"],
  [{ steps: 1, step: 1, first_step: 0 }, "1 step"],
  [{ steps: 6, step: 12, first_step: 6 }, "6 steps (7–12)"],
  [{ steps: 1, step: 7, first_step: 6 }, "1 step (7)"],
  [{ steps: 0, step: 6, first_step: 6 }, "0 steps"],
  [{ steps: 14, step: 3, first_step: 0 }, "3 steps · 14 model calls"],
  [{ steps: 2500, step: 2400, first_step: 0 }, "2,400 steps · 2,500 model calls"],
  [{ steps: 4 }, "4 steps"],
];

describe("a run's steps", () => {
  it("says them as the snapshot does", () => {
    for (const [counts, words] of CASES) assert.equal(stepsWords(counts), words, JSON.stringify(counts));
  });
});
