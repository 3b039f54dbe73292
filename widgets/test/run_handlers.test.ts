// What the run view does on each trait: the redraws a status or a pending change makes, in order;
// the handler of every trait the view follows; and the first drawing of every part.

import "./dom";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  drawRun, renderControls, renderCss, renderHeader, renderPending, renderProgress, renderStatus, runHandlers,
} from "../src/run/run_handlers";

/** Parts that write down each call they get, as "part.method". */
function recording(traits: Record<string, unknown> = {}) {
  const calls: string[] = [];
  const part = (name: string, extra: Record<string, unknown> = {}) => new Proxy(extra, {
    get: (target, method: string) => target[method] ?? ((...args: unknown[]) => {
      calls.push(args.length ? `${name}.${method}(${args.map((a) => JSON.stringify(a)).join(",")})` : `${name}.${method}`);
      return false;
    }),
  });
  const names = ["header", "todos", "approvals", "questions", "compose", "items", "live", "tasks", "given", "output",
    "files", "error", "turns", "panels", "tree", "peek", "timeline", "threads"];
  const p: Record<string, unknown> = Object.fromEntries(names.map((name) => [name, part(name)]));
  p.model = { get: (name: string) => traits[name] };
  p.root = document.createElement("div");
  p.style = document.createElement("style");
  return { p: p as any, calls };
}

describe("the run view's redraws", () => {
  it("redraws, on a status, the header, the final answer, the announcement, the todos, the cards and the box", () => {
    const { p, calls } = recording({ status: "done", error: "", pending: [] });
    renderStatus(p);
    assert.deepEqual(calls, ["header.renderStatus", "items.renderFinal", 'live.update("done","",[])', "todos.render",
      "approvals.render", "questions.render", "compose.render"]);
  });

  it("redraws, on a pending change, the cards, the header and the announcement", () => {
    const { p, calls } = recording({ status: "interrupted", error: "e", pending: [{ id: 1 }] });
    renderPending(p);
    assert.deepEqual(calls, ["approvals.render", "questions.render", "header.renderStatus",
      'live.update("interrupted","e",[{"id":1}])']);
  });

  it("names the region after the agent, and sets the code's style as text", () => {
    const { p, calls } = recording({ agent: "critic", code_css: ".k{color:red}</style>" });
    renderHeader(p);
    renderCss(p);
    renderControls(p);
    renderProgress(p);
    assert.equal(p.root.getAttribute("aria-label"), "deepnb run of agent critic");
    assert.equal(p.style.textContent, ".k{color:red}</style>");
    assert.deepEqual(calls, ["header.renderHeader", "header.renderControls", "compose.render", "header.renderProgress",
      "todos.renderProgress"]);
  });
});

describe("the run view's handlers", () => {
  it("follow every trait the view shows, and the kernel's messages", () => {
    const { p } = recording();
    assert.deepEqual(Object.keys(runHandlers(p)).sort(), [
      "change:agent", "change:async_error", "change:async_tasks", "change:card_errors", "change:code_css",
      "change:decisions", "change:error", "change:files_changed", "change:files_not_written", "change:follow_up_cell",
      "change:given", "change:graph_path", "change:items", "change:live_controls", "change:output", "change:pending",
      "change:progress", "change:status", "change:stop_hint", "change:thread_id", "change:timeline", "change:todos",
      "change:tree", "change:turns", "msg:custom"]);
  });

  it("redraw the right parts", () => {
    const { p, calls } = recording({ agent: "a" });
    const handlers = runHandlers(p);
    for (const name of ["change:items", "change:tree", "change:thread_id", "change:files_not_written", "change:error",
      "change:decisions", "change:follow_up_cell", "change:timeline", "change:graph_path", "change:stop_hint"]) {
      handlers[name]();
    }
    handlers["msg:custom"]({ type: "threads" });
    assert.deepEqual(calls, ["items.render", "items.renderTree", "header.renderHeader", "panels.renderThread",
      "files.render", "error.render", "approvals.renderLog", "turns.render", "items.renderTimeline", "panels.renderPath",
      "header.renderControls", "compose.render", ...["compose", "timeline", "panels", "threads"].map((n) =>
        `${n}.receive({"type":"threads"})`)]);
  });

  it("draw every part once the view opens, the tree before the items", () => {
    const { p, calls } = recording({ agent: "a", status: "running", error: "", pending: [] });
    drawRun(p);
    assert.deepEqual(calls, ["header.renderHeader", "header.renderControls", "compose.render", "turns.render",
      "header.renderProgress", "todos.renderProgress", "todos.render", "given.render", "output.render", "tree.render",
      "items.render", "tasks.render", "peek.render", "files.render", "header.renderStatus", "items.renderFinal",
      'live.update("running","",[])', "todos.render", "approvals.render", "questions.render", "compose.render",
      "items.renderTimeline"]);
  });
});
