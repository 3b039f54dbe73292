// A decision and a call answered in the tool's place are said as a snapshot says them
// (deepnb/views/run/decided.py; the same cases are in tests/unit/test_decided_words.py).

import "./dom";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decisionWords, notRunWords } from "../src/run/decided";
import { makeToolCard, patchTool } from "../src/run/tool_card";
import type { ItemRecord } from "../src/run/record";
import type { ToolItem } from "../src/types";

const you = (type: string, message = "", args = "") => ({ type, message, args, auto: false });

export const DECISIONS: [Record<string, unknown>, string][] = [
  [you("approve"), "✓ approved by you"],
  [{ ...you("approve"), auto: true }, "✓ approved by a rule"],
  [you("reject", "too risky"), "✗ rejected by you: too risky"],
  [you("respond", "use /b.md"), "↩ responded by you: use /b.md"],
  [you("edit", "ignored", "path='/b.md'"), "✎ edited by you: path='/b.md'"],
];

export const NOT_RUN: [Record<string, unknown>, string][] = [
  [{ status: "done", decision: you("respond", "x") }, ""],
  [{ status: "responded", decision: you("respond", "use /b.md") }, "Not run: you responded in its place"],
  [{ status: "declined", decision: you("reject", "too risky") }, "Not run: declined by you — too risky"],
  [{ status: "declined", decision: { ...you("reject"), auto: true } }, "Not run: declined by a rule"],
  [{ status: "declined" }, "Not run: a result was given in its place"],
];

describe("what a decision's card says", () => {
  it("says a decision and a call that never ran as the snapshot does", () => {
    for (const [decision, words] of DECISIONS) assert.equal(decisionWords(decision), words);
    for (const [item, words] of NOT_RUN) assert.equal(notRunWords(item), words, JSON.stringify(item));
  });

  it("shows a responded call as not run, with the response as its result", () => {
    const rec = { key: "t", kind: "tool", f: {}, el: document.createElement("div"), label: document.createElement("span") } as unknown as ItemRecord;
    makeToolCard(rec, new Set());
    const item = { kind: "tool", id: "t", agent: "main", name: "write_file", args: "file_path='/a.md'", args_full: "{}",
      status: "waiting", result: "", result_full: "" } as ToolItem;
    patchTool(rec, item);
    assert.equal(rec.tool!.notRun.hidden, true);
    patchTool(rec, { ...item, status: "responded", result: "use /b.md", result_full: "use /b.md",
      decision: you("respond", "use /b.md") } as ToolItem);
    assert.equal(rec.el.getAttribute("data-status"), "responded");
    assert.equal(rec.tool!.badge.textContent, "↩ responded");
    assert.equal(rec.tool!.notRun.textContent, "Not run: you responded in its place");
    assert.equal(rec.tool!.notRun.hidden, false);
    assert.equal(rec.tool!.result.textContent, "use /b.md");
  });
});
