// The run view as anywidget renders it: the traits shown, live patches folded over them (and
// superseded by a full sync), the header, Stop, the subagent tree and the file peek.

import "./dom";
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { click, FakeModel, mount, press, settle } from "./dom";
import view from "../src/run_view";
import { callsHint, countsText, nodeDuration, parentsOf } from "../src/run/subagent_tree";
import type { Item, RunTraits, TreeNode } from "../src/types";

let runs = 0;
const shown: (() => void)[] = []; // a running view ticks its clock until it is disposed
afterEach(() => { for (const dispose of shown.splice(0)) dispose(); });

function traits(fields: Partial<RunTraits> = {}): Partial<RunTraits> {
  return {
    agent: "researcher", thread_id: `t${++runs}`, status: "done", error: "", items: [], todos: [],
    progress: { steps: 3, tool_calls: 2, tokens_in: 1500, tokens_out: 20, started_at: 1_700_000_000, elapsed: 65,
      todo_progress: "" },
    pending: [], decisions: [], card_errors: {}, files_changed: [], tree: [], async_tasks: [], async_error: "",
    live_controls: true, stop_hint: "", code_css: ".x{}", revision: 0, ...fields,
  };
}

function node(id: string, fields: Partial<TreeNode> = {}): TreeNode {
  return { id, parent: "main", name: "researcher", label: id.split("/").pop()!, description: "", source: "task", call_id: "",
    status: "running", started_at: 1_700_000_000, finished_at: null, tool_calls: 0, tokens_in: 0, tokens_out: 0,
    activity: "", result: "", result_full: "", children: [], calls_declined: 0, calls_failed: 0, ...fields } as TreeNode;
}

function show(fields: Partial<RunTraits> = {}) {
  const fake = new FakeModel<RunTraits>(traits(fields));
  const el = mount();
  const dispose = view.render({ model: fake as any, el });
  shown.push(dispose);
  return { fake, el, dispose };
}

const text = (el: Element, sel: string): string => el.querySelector(sel)!.textContent!;
const itemIds = (el: Element): string[] =>
  [...el.querySelectorAll(".dnb-transcript > .dnb-item")].map((n) => n.getAttribute("data-id")!);

describe("run view", () => {
  it("says when a subagent that ended done had calls declined or failed", () => {
    assert.equal(callsHint(0, 0), "");
    assert.equal(callsHint(undefined, undefined), "");
    assert.equal(callsHint(1, 2), " (1 not run, 2 failed)");
    const { el, fake } = show({ tree: [node("main/a", { status: "done", tool_calls: 2, calls_declined: 1 })] });
    assert.equal(text(el, ".dnb-node-calls"), "2 tool calls (1 not run)");
    assert.ok(el.querySelector(".dnb-node-calls")!.classList.contains("dnb-node-calls-hint"));
    fake.update({ tree: [node("main/a", { status: "done", tool_calls: 2, calls_declined: 1, calls_failed: 1 })] });
    assert.equal(text(el, ".dnb-node-calls"), "2 tool calls (1 not run, 1 failed)");
  });

  it("shows the todo a stopped or failed run left in progress as interrupted", () => {
    const todos = [{ content: "read", status: "completed" as const }, { content: "write", status: "in_progress" as const }];
    const { el, fake } = show({ status: "running", todos });
    const statuses = (): (string | null)[] =>
      [...el.querySelectorAll(".dnb-todo")].map((n) => n.getAttribute("data-status"));
    assert.deepEqual(statuses(), ["completed", "in_progress"]);
    fake.update({ status: "cancelled" });
    assert.deepEqual(statuses(), ["completed", "interrupted"]);
    assert.deepEqual([...el.querySelectorAll(".dnb-todo-icon")].map((n) => n.textContent), ["✓", "⊘"]);
    assert.equal(text(el, ".dnb-todo-interrupted"), "(interrupted)");
    fake.update({ status: "error" });
    assert.deepEqual(statuses(), ["completed", "interrupted"]);
    fake.update({ status: "done" });
    assert.deepEqual(statuses(), ["completed", "in_progress"]);
  });

  it("lists writes that never ran apart from the changed files, struck through", () => {
    const { el, fake } = show({ files_changed: ["/kept.md"], files_not_written: ["/refused.md"] });
    assert.deepEqual([...el.querySelectorAll(".dnb-files > .dnb-file")].map((n) => n.textContent), ["/kept.md"]);
    assert.deepEqual([...el.querySelectorAll(".dnb-files s .dnb-file")].map((n) => n.textContent), ["/refused.md"]);
    assert.match(el.querySelector(".dnb-files")!.textContent!, /Files changed: \/kept\.mdNot written: \/refused\.md/);
    fake.update({ files_changed: [], files_not_written: [] });
    assert.equal((el.querySelector(".dnb-files") as HTMLElement).hidden, true);
  });

  it("shows the header, todos and changed files", () => {
    const { el } = show({
      todos: [{ content: "read", status: "completed" }, { content: "<write>", status: "in_progress" }],
      files_changed: ["/a.md", "/b\u202e.md"],
    });
    assert.equal(text(el, ".dnb-status"), "done");
    assert.equal(text(el, ".dnb-agent"), "researcher");
    assert.equal(text(el, ".dnb-steps"), "3 steps");
    assert.equal(text(el, ".dnb-calls"), "2 tool calls");
    assert.equal(text(el, ".dnb-elapsed"), "1m 05s");
    assert.equal(text(el, ".dnb-tokens"), "tokens 1,500 in / 20 out");
    assert.equal((el.querySelector(".dnb-controls") as HTMLElement).hidden, true, "no Stop once done");
    assert.deepEqual([...el.querySelectorAll(".dnb-todo-icon")].map((n) => n.textContent), ["✓", "◐"]);
    assert.equal(text(el, ".dnb-todos-progress"), "1 of 2 done");
    assert.equal(el.querySelector("write"), null);
    assert.deepEqual([...el.querySelectorAll(".dnb-file")].map((n) => n.textContent), ["/a.md", "/b\\u202e.md"]);
    assert.equal(text(el, "style"), ".x{}");
  });

  it("folds live patches over the traits, and a full sync supersedes them", () => {
    const items: Item[] = [{ kind: "prompt", id: "p", agent: "main", text: "go" }];
    const { el, fake } = show({ status: "running", items });
    assert.deepEqual(fake.sent, [{ type: "sync" }], "a view drawn mid-run asks for the current state");
    fake.message({ type: "patch", state: { progress: { ...fake.traits.progress!, steps: 9 } },
      upsert: [{ kind: "text", id: "m", agent: "main", text: "Hel", html: null }], append_ids: ["m"] });
    assert.deepEqual(itemIds(el), ["p", "m"]);
    assert.equal(text(el, ".dnb-steps"), "9 steps");
    fake.message({ type: "patch", upsert: [{ kind: "text", id: "m", agent: "main", text: "Hello", html: null }] });
    assert.equal(text(el, ".dnb-text-body"), "Hello");
    fake.message({ type: "patch", upsert: [{ kind: "notice", id: "n", level: "cancelled", text: "hm" }], ids: ["n", "m", "p"] });
    assert.deepEqual(itemIds(el), ["n", "m", "p"]);
    fake.message({ type: "other", upsert: [{ kind: "notice", id: "z", level: "cancelled", text: "ignored" }], append_ids: ["z"] });
    assert.deepEqual(itemIds(el), ["n", "m", "p"], "only patches are folded");
    fake.traits.items = [{ kind: "prompt", id: "p", agent: "main", text: "go" }, { kind: "text", id: "m", agent: "main", text: "Done.", html: "<p>Done.</p>" }];
    fake.traits.status = "done";
    fake.update({ revision: 1 });
    assert.deepEqual(itemIds(el), ["p", "m"]);
    assert.equal(text(el, ".dnb-text-body"), "Done.");
    assert.equal(text(el, ".dnb-steps"), "3 steps", "the patched progress is gone");
  });

  it("stops the run once, and says it is stopping", () => {
    const { el, fake } = show({ status: "running" });
    const stop = el.querySelector(".dnb-stop") as HTMLButtonElement;
    assert.equal((el.querySelector(".dnb-controls") as HTMLElement).hidden, false);
    click(stop);
    click(stop);
    assert.deepEqual(fake.sent.filter((m) => m.type === "stop"), [{ type: "stop" }]);
    assert.equal(stop.textContent, "Stopping…");
    assert.equal(stop.disabled, true);
    fake.update({ status: "cancelled" });
    assert.equal(text(el, ".dnb-status"), "stopped");
  });

  it("stops a run waiting for approval: Stop stays while the cards wait", () => {
    const { el, fake } = show({ status: "interrupted" });
    const stop = el.querySelector(".dnb-stop") as HTMLButtonElement;
    assert.equal((el.querySelector(".dnb-controls") as HTMLElement).hidden, false);
    click(stop);
    assert.deepEqual(fake.sent.filter((m) => m.type === "stop"), [{ type: "stop" }]);
    fake.update({ status: "cancelled" });
    assert.equal((el.querySelector(".dnb-controls") as HTMLElement).hidden, true, "no Stop once stopped");
  });

  it("opens and closes a tool card from its head, with the keyboard too", () => {
    const { el } = show({ items: [{ kind: "tool", id: "t", agent: "main", name: "ls", args: "", args_full: "{}",
      status: "done", result: "a b", result_full: "a\nb" }] });
    const head = el.querySelector(".dnb-tool-head") as HTMLElement;
    click(head);
    assert.equal(head.getAttribute("aria-expanded"), "true");
    assert.equal(text(el, ".dnb-tool-result-full"), "a\nb");
    head.dispatchEvent(new (globalThis as any).KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    assert.equal(head.getAttribute("aria-expanded"), "false");
  });

  it("puts a subagent's items in its card in the tree", () => {
    const sub = "main/researcher#1";
    const { el, fake } = show({
      status: "running",
      tree: [node(sub, { description: "dig", tool_calls: 1 })],
      items: [{ kind: "prompt", id: "p", agent: "main", text: "go" },
        { kind: "tool", id: "t", agent: sub, name: "ls", args: "", args_full: "", status: "running", result: "", result_full: "" }],
    });
    assert.deepEqual(itemIds(el), ["p"]);
    const card = el.querySelector(`.dnb-node[data-node="${sub}"]`) as HTMLElement;
    assert.equal(text(card, ".dnb-node-status"), "running");
    assert.equal(text(card, ".dnb-node-calls"), "1 tool call");
    assert.equal(text(el, ".dnb-tree-counts"), "1 running");
    click(card.querySelector(".dnb-node-head"));
    assert.deepEqual([...card.querySelectorAll(".dnb-node-transcript .dnb-item")].map((n) => n.getAttribute("data-id")), ["t"]);
    fake.message({ type: "patch", nodes: [node(sub, { status: "done", finished_at: 1_700_000_004.5, result: "found" })] });
    assert.equal(text(card, ".dnb-node-status"), "✓ done");
    assert.equal(text(card, ".dnb-node-duration"), "4.5 s");
    assert.equal(text(card, ".dnb-node-result"), "found");
  });

  it("works out the tree's shape and counts", () => {
    const byId = new Map([["a", node("a", { parent: "main" })], ["b", node("b", { parent: "a" })],
      ["c", node("c", { parent: "zz", status: "done" })]]);
    assert.deepEqual([...parentsOf(byId)], [["a", ""], ["b", "a"], ["c", ""]]);
    assert.equal(countsText(byId), "2 running · 1 done");
    assert.equal(nodeDuration({ started_at: 100, finished_at: 130 }, 0), "30.0 s");
    assert.equal(nodeDuration({ started_at: 100, finished_at: null }, 175), "1m 15s");
    // the run's waits are left out and said apart, as the header says them
    assert.equal(nodeDuration({ started_at: 100, finished_at: 200, waited: 70 }, 0), "30.0 s (+ 1m 10s waiting)");
    assert.equal(nodeDuration({ started_at: 100, finished_at: null, waited_at_start: 5 }, 175, 50), "30.0 s (+ 45.0 s waiting)");
    assert.equal(nodeDuration({ started_at: null }, 175), "");
  });

  it("asks for a summary's history file and shows the reply", async () => {
    const { el, fake } = show({ items: [{ kind: "summary", id: "s", agent: "main", messages: 3, cutoff: 0,
      tokens_before: null, tokens_after: null, summary: "s", summary_html: "", file_path: "/h.md" }] });
    click(el.querySelector(".dnb-summary-open"));
    assert.deepEqual(fake.sent.at(-1), { type: "open_file", path: "/h.md" });
    assert.equal(text(el, ".dnb-filepeek-body"), "Loading…");
    fake.message({ type: "file", path: "/h.md", text: "", html: "<p>hist <em>ory</em></p>", error: "" });
    assert.equal(text(el, ".dnb-filepeek-body em"), "ory");
    click(el.querySelector(".dnb-filepeek-close"));
    assert.equal((el.querySelector(".dnb-filepeek") as HTMLElement).hidden, true);
    await settle();
  });

  it("opens a changed file in the file peek on a click or Enter; a file never written is not a link", async () => {
    const { el, fake } = show({ files_changed: ["/notes/plan.md", "/b.md"], files_not_written: ["/refused.md"] });
    const links = [...el.querySelectorAll(".dnb-files .dnb-file-open")];
    assert.deepEqual(links.map((n) => n.textContent), ["/notes/plan.md", "/b.md"]);
    assert.equal(links[0].getAttribute("role"), "button");
    assert.equal(links[0].getAttribute("title"), "Open /notes/plan.md");
    assert.equal(el.querySelector(".dnb-files s .dnb-file-open"), null);
    click(links[0]);
    assert.deepEqual(fake.sent.at(-1), { type: "open_file", path: "/notes/plan.md" });
    assert.equal(el.querySelector(".dnb-filepeek")!.getAttribute("data-path"), "/notes/plan.md");
    press(links[1], "Enter");
    assert.deepEqual(fake.sent.at(-1), { type: "open_file", path: "/b.md" });
    const sent = fake.sent.length;
    click(el.querySelector(".dnb-files s .dnb-file"));
    assert.equal(fake.sent.length, sent);
    await settle();
  });

  it("shows the run's error once", () => {
    const { el } = show({ status: "error", error: "boom", items: [{ kind: "error", id: "e", text: "boom" }] });
    assert.equal((el.querySelector(".dnb-run-error") as HTMLElement).hidden, true);
    const other = show({ status: "error", error: "boom" });
    assert.equal(text(other.el, ".dnb-run-error"), "Error: boom");
  });

  it("lets go of the model when it is disposed", () => {
    const { fake, dispose } = show({ status: "running" });
    assert.ok(fake.listeners("change:items") > 0);
    dispose();
    assert.equal(fake.listeners("change:items"), 0);
    assert.equal(fake.listeners("msg:custom"), 0);
  });
  it("shows a fork's answer at the chip or step that asked, and a changed file under its link", () => {
    const bars = [{ kind: "tool", lane: 0, name: "write_file", start: 0, end: 1, label: "tool write_file · main · 1.00 s · step 2",
      step: 2, item: "tool-c1" }];
    const { el, fake } = show({ files_changed: ["/a.md"], timeline: { lanes: [{ agent: "main", label: "main" }], total: 2, bars },
      items: [{ kind: "tool", id: "tool-c1", agent: "main", name: "write_file", args: "", args_full: "{}", status: "done",
        result: "ok", result_full: "ok" } as Item] });
    const chip = el.querySelector<HTMLButtonElement>(".dnb-step-fork")!;
    click(chip);
    assert.deepEqual(fake.sent.at(-1), { type: "fork", step: 2 });
    assert.equal(chip.nextElementSibling!.textContent, "Forking…");
    fake.message({ type: "forked", thread_id: "T9", step: 2, error: "" });
    const said = chip.nextElementSibling!;
    assert.match(said.textContent!, /^New thread T9 from step 2: continue with %%deepagent -t T9$/);
    assert.equal((el.querySelector(".dnb-timeline") as HTMLDetailsElement).open, false); // not sent off to the timeline
    const step = el.querySelector<HTMLButtonElement>(".dnb-tl-steps .dnb-tl-fork")!;
    assert.equal(step.parentElement!.firstChild!.textContent, "step 2 · tool write_file · main · 1.00 s ", "its step once");
    click(step);
    fake.message({ type: "forked", thread_id: "", step: 2, error: "Thread T1 has no step 2." });
    assert.equal(step.nextElementSibling!.textContent, "Thread T1 has no step 2.");

    click(el.querySelector(".dnb-file-open"));
    assert.deepEqual(fake.sent.at(-1), { type: "open_file", path: "/a.md" });
    const peek = el.querySelector(".dnb-filepeek")!;
    assert.equal(peek.parentElement!.previousElementSibling, el.querySelector(".dnb-files")); // right under the link
    click(el.querySelector(".dnb-filepeek-close"));
    assert.equal(peek.parentElement!.classList.contains("dnb-files-peek"), false); // back in its place
  });
});
