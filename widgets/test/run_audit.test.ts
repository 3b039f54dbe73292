// The run view's audit fixes (issue 14): waiting time apart from run time, "Approve all" across
// interrupts, edited arguments, approval cards, todo changes, task cards, the summary card, the
// transcript's search and filters, and what the view announces to assistive technology.

import "./dom";
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { click, FakeModel, mount, settle } from "./dom";
import view from "../src/run_view";
import { clockText } from "../src/run/header";
import { SEARCH_DELAY } from "../src/run/transcript_tools";
import { pendingAnnouncement, statusAnnouncement } from "../src/run/announcer";
import type { Action, Interrupt, Item, RunTraits, TreeNode } from "../src/types";

let runs = 0;
const shown: (() => void)[] = [];
afterEach(() => { for (const dispose of shown.splice(0)) dispose(); });

function traits(fields: Partial<RunTraits> = {}): Partial<RunTraits> {
  return {
    agent: "researcher", thread_id: `a${++runs}`, status: "done", error: "", items: [], todos: [],
    progress: { steps: 3, tool_calls: 2, tokens_in: 1500, tokens_out: 20, started_at: 1_700_000_000, elapsed: 65,
      todo_progress: "" },
    pending: [], decisions: [], card_errors: {}, files_changed: [], tree: [], async_tasks: [], async_error: "",
    live_controls: true, stop_hint: "", code_css: ".x{}", revision: 0, ...fields,
  };
}

export function showRun(fields: Partial<RunTraits> = {}) {
  const fake = new FakeModel<RunTraits>(traits(fields));
  const el = mount();
  const dispose = view.render({ model: fake as any, el });
  shown.push(dispose);
  return { fake, el, dispose };
}

const text = (el: Element, sel: string): string => el.querySelector(sel)!.textContent!;

describe("waiting time is not run time", () => {
  it("says how long the run has waited, apart from its run time", () => {
    assert.equal(clockText(65, 0, 0, "done"), "1m 05s");
    assert.equal(clockText(12, 0, 90, "interrupted"), "12.0 s · waiting 1m 30s");
    assert.equal(clockText(12, 300, 0, "done"), "12.0 s (+ 5m 00s waiting)");
    assert.equal(clockText(12, 0.4, 0, "done"), "12.0 s (+ 0.4 s waiting)"); // as the snapshot says it
    assert.equal(clockText(12, 0, null, "interrupted"), "12.0 s · waiting"); // not "waiting 0s" when unknown
  });

  it("stops the run clock while the run waits, and ticks the wait instead", () => {
    const now = Date.now() / 1000;
    const progress = { steps: 1, tool_calls: 1, tokens_in: 0, tokens_out: 0, started_at: now - 400, elapsed: 12,
      todo_progress: "", waited: 0, waiting_since: now - 90 };
    const { el, fake } = showRun({ status: "interrupted", progress });
    assert.match(text(el, ".dnb-elapsed"), /^12.0 s · waiting 1m 3\ds$/);
    // resumed after the wait: the run time leaves the 388 s of waiting out
    fake.update({ status: "running", progress: { ...progress, elapsed: 12, waited: 388, waiting_since: null } });
    assert.match(text(el, ".dnb-elapsed"), /^1\d\.\d s \(\+ 6m 28s waiting\)$/);
  });
});

function gated(index: number, fields: Partial<Action> = {}): Action {
  return {
    index, name: "write_file", args: "file_path='/a.md', content='line one…'",
    args_json: JSON.stringify({ file_path: "/a.md", content: "line one\nline two" }, null, 2),
    description: "", allowed: ["approve", "edit", "reject", "respond"], preview: null, decision: null, ...fields,
  };
}

describe("Approve all across interrupts", () => {
  const two = (): Interrupt[] => [
    { id: "I1", agent: "main/general-purpose", actions: [gated(0)] },
    { id: "I2", agent: "main/general-purpose#2", actions: [gated(0, { args_json: '{"file_path": "/b.md"}' })] },
  ];

  it("offers one button when parallel subagents each wait on their own interrupt, and approves each", () => {
    const { el, fake } = showRun({ status: "interrupted", pending: two() });
    const every = el.querySelector(".dnb-approve-every") as HTMLButtonElement;
    assert.equal(every.hidden, false);
    assert.equal(every.textContent, "Approve all 2");
    assert.equal(every.getAttribute("aria-label"), "Approve all 2 pending actions of 2 interrupts");
    click(every);
    assert.deepEqual(fake.sent.filter((m) => m.type !== "sync"),
      [{ type: "decide_every", act: "approve", expected: 2 }]);
    assert.equal(every.disabled, true); // on its way
    fake.update({ pending: two().map((p) => ({ ...p, actions: p.actions.map((a) => ({ ...a, decision: { type: "approve", message: "", args: "", auto: false } })) })) });
    assert.equal(every.disabled, false); // the cards changed: the wait is over
  });

  it("leaves out actions that do not allow approval, and hides for a single interrupt", () => {
    const pending = two();
    pending[1].actions[0].allowed = ["reject", "respond"];
    const { el, fake } = showRun({ status: "interrupted", pending });
    assert.equal((el.querySelector(".dnb-approve-every") as HTMLElement).hidden, true);
    fake.update({ pending: two() });
    assert.equal((el.querySelector(".dnb-approve-every") as HTMLElement).hidden, false);
    fake.update({ pending: two().slice(0, 1) });
    assert.equal((el.querySelector(".dnb-approve-every") as HTMLElement).hidden, true);
  });
});

describe("a page of approval cards", () => {
  const page = (cards: number, at = 0) => ({
    page: at, pages: Math.ceil(cards / 20), first: at * 20 + 1, last: Math.min(cards, at * 20 + 20), cards,
    undecided: cards, approvable: cards, rejectable: cards,
  });
  const shown = (): Interrupt[] =>
    [{ id: "I1", agent: "main", actions: Array.from({ length: 20 }, (_, i) => gated(i)) }];

  it("says which cards it shows, pages through them, and decides every page at once", () => {
    const { el, fake } = showRun({ status: "interrupted", pending: shown(), pending_page: page(3000) });
    assert.equal(text(el, ".dnb-page-text"), "Cards 1–20 of 3,000");
    assert.equal((el.querySelector(".dnb-page-previous") as HTMLButtonElement).disabled, true);
    assert.match(text(el, ".dnb-pending-title"), /3,000 actions/);
    click(el.querySelector(".dnb-page-next")!);
    assert.deepEqual(fake.sent.filter((m) => m.type === "pending_page"), [{ type: "pending_page", page: 1 }]);

    const every = el.querySelector(".dnb-approve-every") as HTMLButtonElement;
    const reject = el.querySelector(".dnb-reject-every") as HTMLButtonElement;
    assert.equal(every.textContent, "Approve all 3,000");
    assert.equal(reject.textContent, "Reject all 3,000");
    click(reject);
    assert.deepEqual(fake.sent.filter((m) => m.type === "decide_every"),
      [{ type: "decide_every", act: "reject", expected: 3000 }]);
    assert.equal(every.disabled, true);
    // refused (more arrived meanwhile): the reason shows and the buttons work again
    fake.update({ card_errors: { every: "3,001 actions wait for reject now, not 3,000: nothing was sent." } });
    assert.match(text(el, ".dnb-every .dnb-card-error"), /3,001 actions/);
    assert.equal(every.disabled, false);
  });

  it("hides the pager when every card fits on one page", () => {
    const { el } = showRun({ status: "interrupted", pending: shown(), pending_page: page(20) });
    assert.equal((el.querySelector(".dnb-pending-pager") as HTMLElement).hidden, true);
  });
});

describe("approval cards and edits", () => {
  it("shows the arguments once, readably, with line breaks kept", () => {
    const { el } = showRun({ status: "interrupted", pending: [{ id: "I1", agent: "main", actions: [gated(0)] }] });
    const c = el.querySelector(".dnb-approval")!;
    const occurrences = c.textContent!.split("line two").length - 1;
    assert.equal(occurrences, 1);
    assert.deepEqual([...c.querySelectorAll(".dnb-approval-args dt")].map((n) => n.textContent), ["file_path", "content"]);
    assert.equal(c.querySelector(".dnb-approval-args dd:last-child")!.textContent, "line one\nline two");
    assert.equal(c.querySelector(".dnb-approval-desc"), null);
  });

  it("leaves the arguments a preview shows to the preview", () => {
    const action = gated(0, { preview: { kind: "content", text: "line one\nline two" } });
    const { el } = showRun({ status: "interrupted", pending: [{ id: "I1", agent: "main", actions: [action] }] });
    const c = el.querySelector(".dnb-approval")!;
    assert.deepEqual([...c.querySelectorAll(".dnb-approval-args dt")].map((n) => n.textContent), ["file_path"]);
    assert.equal(c.textContent!.split("line two").length - 1, 1);
  });

  it("keeps a description someone wrote", () => {
    const action = gated(0, { description: "Check the path first" });
    const { el } = showRun({ status: "interrupted", pending: [{ id: "I1", agent: "main", actions: [action] }] });
    assert.equal(text(el, ".dnb-approval-desc"), "Check the path first");
  });

  it("marks an edited tool card and shows the edit's diff in the decision log", () => {
    const tool = { kind: "tool", id: "tool-c1", agent: "main", name: "write_file", args: "file_path='/a.md'",
      args_full: "{}", status: "done", result: "ok", result_full: "ok" } as Item;
    const diff = "--- proposed\n+++ approved\n@@ -1,2 +1,2 @@\n-  \"content\": \"a\"\n+  \"content\": \"b\"";
    const decisions = [{ at: "2026-01-01 10:00:00", interrupt_id: "I1", index: 0, tool: "write_file", type: "edit" as const,
      message: "", args: "content='b'", auto: false, diff }];
    const { el, fake } = showRun({ items: [tool], decisions });
    const badge = el.querySelector(".dnb-edited") as HTMLElement;
    assert.equal(badge.hidden, true);
    fake.update({ items: [{ ...tool, edited: true } as Item] });
    assert.equal(badge.hidden, false);
    assert.equal(badge.textContent, "✎ edited");
    const log = el.querySelector(".dnb-decision")!;
    assert.deepEqual([...log.querySelectorAll(".dnb-decision-diff span")].map((n) => [n.className, n.textContent]), [
      ["", "--- proposed\n"], ["", "+++ approved\n"], ["dnb-hunk", "@@ -1,2 +1,2 @@\n"],
      ["dnb-del", "-  \"content\": \"a\"\n"], ["dnb-add", "+  \"content\": \"b\"\n"],
    ]);
    assert.equal(log.querySelector(".dnb-decision-detail"), null); // the diff, not a 30-character prefix
  });
});

describe("write_todos cards", () => {
  it("show the todo change, folded, instead of the list's arguments", () => {
    const card = { kind: "tool", id: "tool-t1", agent: "main", name: "write_todos", args: "1 added, 1 done, 1 removed",
      args_full: '{"todos": [{"content": "Report", "status": "pending"}]}', status: "done",
      result: "Updated todo list", result_full: "Updated todo list",
      todo_changes: [{ change: "completed", content: "Gather data" }, { change: "added", content: "Report" },
        { change: "removed", content: "Old idea" }] } as Item;
    const { el } = showRun({ items: [card] });
    const tool = el.querySelector(".dnb-tool")!;
    assert.equal(text(tool, ".dnb-tool-args"), "1 added, 1 done, 1 removed");
    assert.equal((tool.querySelector(".dnb-tool-detail") as HTMLElement).hidden, true); // folded
    click(tool.querySelector(".dnb-tool-head"));
    assert.deepEqual([...tool.querySelectorAll(".dnb-todo-change")].map((n) => [n.getAttribute("data-change"), n.textContent]),
      [["completed", "✓ Gather data"], ["added", "+ Report"], ["removed", "− Old idea"]]);
    assert.equal((tool.querySelector(".dnb-tool-args-full") as HTMLElement).hidden, true);
    assert.ok(!tool.textContent!.includes('"content"'));
  });
});

function node(id: string, fields: Partial<TreeNode> = {}): TreeNode {
  return { id, parent: "main", name: "general-purpose", label: "general-purpose", description: "", source: "task",
    call_id: "c1", status: "done", started_at: 1_700_000_000, finished_at: 1_700_000_010, tool_calls: 0, tokens_in: 0,
    tokens_out: 0, activity: "", result: "", result_full: "", children: [], calls_declined: 0, calls_failed: 0,
    ...fields } as TreeNode;
}

describe("answers and task cards", () => {
  const task = { kind: "tool", id: "tool-c1", agent: "main", name: "task", args: "description='research'",
    args_full: "{}", status: "done", result: "It grew.", result_full: "It grew.", subagent: "main/general-purpose" } as Item;
  const answer = { kind: "text", id: "i9", agent: "main", text: "Growth was 12%.", html: "<p>Growth was 12%.</p>" } as Item;

  it("sets the final answer apart from the last tool card once the run is done", () => {
    const { el, fake } = showRun({ status: "running", items: [task, answer] });
    const last = el.querySelector('.dnb-transcript > [data-id="i9"]')!;
    assert.equal(last.classList.contains("dnb-final-answer"), false);
    fake.update({ status: "done" });
    assert.equal(last.classList.contains("dnb-final-answer"), true);
    assert.equal(text(last, ".dnb-final-label"), "Answer");
    assert.equal(last.getAttribute("aria-label"), "Final answer");
    fake.update({ items: [task, answer, { ...task, id: "tool-c2" }] }); // not last any more
    assert.equal(last.classList.contains("dnb-final-answer"), false);
    assert.equal(last.querySelector(".dnb-final-label"), null);
  });

  it("gives a task card one control for its subagent", () => {
    const { el } = showRun({ items: [task] });
    const card = el.querySelector(".dnb-tool")!;
    const links = [...card.querySelectorAll(".dnb-tool-row button, .dnb-tool-subagent")];
    assert.equal(links.length, 1);
    assert.equal(links[0].textContent, "→ general-purpose");
    assert.equal(links[0].getAttribute("data-node"), "main/general-purpose");
    assert.ok(!card.textContent!.includes("show subagent"));
  });

  it("shows an opened subagent's answer once", () => {
    const said = { kind: "text", id: "s1", agent: "main/general-purpose", text: "It  grew.", html: "<p>It grew.</p>" } as Item;
    const { el } = showRun({ items: [task, said],
      tree: [node("main/general-purpose", { result: "It grew.", result_full: "It grew." })] });
    click(el.querySelector(".dnb-show-subagent"));
    const n = el.querySelector(".dnb-node")!;
    assert.equal(n.classList.contains("dnb-open"), true);
    assert.equal(n.querySelectorAll(".dnb-node-transcript .dnb-text").length, 1);
    assert.equal((n.querySelector(".dnb-node-result-full") as HTMLElement).hidden, true);
  });

  it("still shows a subagent's result when its transcript does not hold it", () => {
    const { el } = showRun({ items: [task],
      tree: [node("main/general-purpose", { result: "It grew.", result_full: "It grew." })] });
    click(el.querySelector(".dnb-show-subagent"));
    const full = el.querySelector(".dnb-node-result-full") as HTMLElement;
    assert.equal(full.hidden, false);
    assert.equal(full.textContent, "It grew.");
  });
});

describe("summary card", () => {
  it("opens the history file inside the card, not at the top of the view, and puts it back on close", () => {
    const summary = { kind: "summary", id: "s1", agent: "main", messages: 12, cutoff: 12, tokens_before: 9000,
      tokens_after: 1300, summary: "Earlier work", summary_html: "<p>Earlier work</p>",
      file_path: "/conversation_history/t1.md" } as Item;
    const { el, fake } = showRun({ items: [summary] });
    const card = el.querySelector(".dnb-summary")!;
    const btn = card.querySelector(".dnb-summary-open") as HTMLButtonElement;
    assert.equal(btn.type, "button");
    click(btn);
    assert.deepEqual(fake.sent.filter((m) => m.type === "open_file"), [{ type: "open_file", path: "/conversation_history/t1.md" }]);
    const peek = el.querySelector(".dnb-filepeek") as HTMLElement;
    assert.equal(peek.hidden, false);
    assert.ok(card.contains(peek), "the file opens inside the card that asked for it");
    click(peek.querySelector(".dnb-filepeek-close"));
    assert.equal(peek.hidden, true);
    assert.ok(!card.contains(peek));
  });
});

describe("transcript search and filters", () => {
  const tool = (id: string, name: string, args: string, result = ""): Item => ({ kind: "tool", id, agent: "main", name, args,
    args_full: `{"x": "${args}"}`, status: "done", result, result_full: result } as Item);
  const items = (): Item[] => [
    { kind: "prompt", id: "p", agent: "main", text: "Research otters" } as Item,
    tool("t1", "ls", "path='/'"),
    tool("t2", "read_file", "file_path='/notes.md'", "Otters hold hands while sleeping"),
    tool("t3", "write_file", "file_path='/report.md'"),
    { kind: "text", id: "x", agent: "main", text: "Sea otters are mustelids.", html: "<p>Sea otters are mustelids.</p>" } as Item,
  ];
  const visible = (el: Element): string[] =>
    [...el.querySelectorAll(".dnb-transcript > .dnb-item")].filter((n) => !(n as HTMLElement).hidden)
      .map((n) => n.getAttribute("data-id")!);
  const type = (input: HTMLInputElement, value: string): void => {
    input.value = value;
    input.dispatchEvent(new (globalThis as any).Event("input", { bubbles: true }));
  };
  const settled = (): Promise<void> => new Promise((done) => setTimeout(done, SEARCH_DELAY + 10));

  it("filters to the items holding the text, closed cards' results included, and marks them", async () => {
    const { el, fake } = showRun({ items: items() });
    const search = el.querySelector(".dnb-search") as HTMLInputElement;
    assert.equal(search.getAttribute("aria-label"), "Search the transcript");
    type(search, "HANDS");
    await settled();
    assert.deepEqual(visible(el), ["t2"]); // found in the closed card's result
    assert.ok(el.querySelector('[data-id="t2"]')!.classList.contains("dnb-match"));
    assert.equal(text(el, ".dnb-search-count"), "match 1 of 2 · 1 of 5 items");
    fake.update({ items: [...items(), tool("t4", "grep", "pattern='hands'")] }); // new items are filtered too
    assert.deepEqual(visible(el), ["t2", "t4"]);
    search.dispatchEvent(new (globalThis as any).KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    assert.deepEqual(visible(el), ["p", "t1", "t2", "t3", "x", "t4"]);
    assert.equal(el.querySelector(".dnb-match"), null);
  });

  it("searches an open subagent's transcript too", async () => {
    const sub = { kind: "text", id: "s1", agent: "main/general-purpose", text: "Otters use rocks as tools.",
      html: "<p>Otters use rocks as tools.</p>" } as Item;
    const { el } = showRun({ items: [...items(), sub], tree: [node("main/general-purpose")] });
    click(el.querySelector(".dnb-node-head"));
    const said = el.querySelector('.dnb-node-transcript [data-id="s1"]') as HTMLElement;
    type(el.querySelector(".dnb-search") as HTMLInputElement, "rocks");
    await settled();
    assert.equal(said.hidden, false);
    assert.ok(said.classList.contains("dnb-match"));
    assert.deepEqual(visible(el), []);
    assert.equal(text(el, ".dnb-search-count"), "match 1 of 1 · 1 of 6 items");
  });

  it("hides the bookkeeping tools' cards, and shows them again", () => {
    const { el } = showRun({ items: items() });
    const hide = el.querySelector(".dnb-hide-bookkeeping") as HTMLButtonElement;
    click(hide);
    assert.equal(hide.getAttribute("aria-pressed"), "true");
    assert.deepEqual(visible(el), ["p", "t3", "x"]);
    assert.equal(text(el, ".dnb-search-count"), "2 bookkeeping hidden");
    click(hide);
    assert.deepEqual(visible(el), ["p", "t1", "t2", "t3", "x"]);
  });

  it("expands and collapses every tool card", () => {
    const { el } = showRun({ items: items() });
    const open = (): boolean[] => [...el.querySelectorAll(".dnb-tool")].map((n) => n.classList.contains("dnb-open"));
    click(el.querySelector(".dnb-expand-all"));
    assert.deepEqual(open(), [true, true, true]);
    assert.equal(text(el, '[data-id="t2"] .dnb-tool-result-full'), "Otters hold hands while sleeping");
    click(el.querySelector(".dnb-collapse-all"));
    assert.deepEqual(open(), [false, false, false]);
  });
});

describe("accessibility", () => {
  const FOCUSABLE = "button, input, textarea, select, a[href], [tabindex]";
  const focusables = (el: Element): HTMLElement[] =>
    [...el.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((n) => {
      for (let p: HTMLElement | null = n; p; p = p.parentElement) if (p.hidden) return false;
      return !(n as HTMLButtonElement).disabled && n.getAttribute("tabindex") !== "-1";
    });
  const nameOf = (n: Element): string => (n.getAttribute("aria-label") || n.textContent || "").trim();
  const busy = (): Partial<RunTraits> => ({
    status: "interrupted",
    items: [
      { kind: "prompt", id: "p", agent: "main", text: "Go" } as Item,
      { kind: "tool", id: "tool-c1", agent: "main", name: "task", args: "description='x'", args_full: "{}",
        status: "waiting", result: "", result_full: "", subagent: "main/general-purpose" } as Item,
    ],
    tree: [node("main/general-purpose", { status: "waiting", finished_at: null })],
    pending: [{ id: "I1", agent: "main/general-purpose", actions: [gated(0)] }],
  });

  it("gives the view's parts roles and names", () => {
    const { el } = showRun(busy());
    const role = (r: string, name: string): Element | undefined =>
      [...el.querySelectorAll(`[role="${r}"]`)].find((n) => n.getAttribute("aria-label") === name);
    assert.ok(role("region", "deepnb run of agent researcher"));
    assert.ok(role("group", "Run status"));
    assert.ok(role("log", "Transcript"));
    assert.ok(role("toolbar", "Transcript tools"));
    assert.ok(role("region", "Subagents"));
    assert.ok(role("region", "Approvals"));
    assert.ok(role("group", "Approval: write_file, by subagent general-purpose"));
    assert.ok(role("article", "Tool call task"));
    const live = el.querySelector('[aria-live="polite"][role="status"].dnb-announce')!;
    assert.equal(live.textContent, ""); // a view rendered afresh says nothing
    for (const n of focusables(el)) {
      assert.notEqual(nameOf(n), "", `${n.outerHTML.slice(0, 80)} has no accessible name`);
      assert.ok(Number(n.getAttribute("tabindex") || 0) <= 0, "no tabindex jumps the reading order");
    }
    for (const head of el.querySelectorAll('[role="button"]')) { // no button inside a button
      assert.equal(head.querySelector("button, [role=button]"), null);
    }
  });

  it("keeps focus in reading order: header, toolbar, transcript, subagents' cards in place, approvals", () => {
    const { el } = showRun(busy());
    const order = focusables(el).map((n) => n.className.split(" ")[0] || n.tagName);
    const at = (cls: string): number => order.indexOf(cls);
    assert.ok(at("dnb-node-head") < at("dnb-search"), order.join(" "));
    assert.ok(at("dnb-search") < at("dnb-tool-head"));
    assert.ok(at("dnb-tool-head") < at("dnb-show-subagent"));
    assert.ok(at("dnb-show-subagent") < at("dnb-approve"));
    // the DOM order is the visual order: nothing is moved with CSS order or floats
    const css = (globalThis as any).window.getComputedStyle;
    for (const n of focusables(el)) assert.ok(["", "0"].includes(String(css(n).order)));
  });

  it("announces status changes, new approval cards and the run's end", async () => {
    const { el, fake } = showRun({ status: "running" });
    const live = el.querySelector(".dnb-announce")!;
    fake.update({ pending: [{ id: "I1", agent: "main/general-purpose", actions: [gated(0)] }], status: "interrupted" });
    await settle();
    assert.equal(live.textContent,
      "The run is waiting for you. Approval needed: write_file, by subagent general-purpose.");
    fake.update({ pending: [{ id: "I1", agent: "main/general-purpose", actions: [gated(0)] },
      { id: "I2", agent: "main", actions: [gated(0, { name: "edit_file" })] }] });
    await settle();
    assert.equal(live.textContent, "Approval needed: edit_file, by main agent.");
    fake.update({ status: "running", pending: [] });
    await settle();
    assert.equal(live.textContent, "The run goes on.");
    fake.update({ status: "done" });
    await settle();
    assert.equal(live.textContent, "The run finished.");
    assert.equal(statusAnnouncement("running", "error", "model refused"), "The run failed. model refused");
    assert.equal(statusAnnouncement("running", "cancelled"), "The run was stopped.");
    assert.equal(pendingAnnouncement([{ id: "Q", agent: "main", actions: [], kind: "question" }]), "Question from main agent.");
  });
});
