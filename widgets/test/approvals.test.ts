// Approval cards: the buttons an interrupt allows, the Edit / Reject / Respond forms, what each
// sends, and the messages that explain a refusal (nothing is sent then).

import "./dom";
import assert from "node:assert/strict";
import { beforeEach, describe, it } from "node:test";
import { click, FakeModel, mount, press, type } from "./dom";
import { decisionText, editFields, readEditArgs, makeForm } from "../src/run/approval_card";
import { approvalsView } from "../src/run/approvals";
import { liveModel } from "../src/run/live_model";
import type { RunMemory } from "../src/run/memory";
import type { Action, Interrupt, RunTraits } from "../src/types";

function action(index: number, fields: Partial<Action> = {}): Action {
  return {
    index, name: "write_file", args: "file_path='/a.md', content='hi'",
    args_json: JSON.stringify({ file_path: "/a.md", content: "hi", mode: { append: false } }, null, 2),
    description: "", allowed: ["approve", "edit", "reject", "respond"], preview: null, decision: null, ...fields,
  };
}

function memory(): RunMemory {
  return { expanded: new Set(), nodesOpen: new Set(), peek: null, drafts: new Map(), sending: new Map(),
    local: new Map(), focus: null, logOpen: false };
}

function setup(pending: Interrupt[], traits: Partial<RunTraits> = {}) {
  const fake = new FakeModel<RunTraits>({ status: "interrupted", pending, card_errors: {}, decisions: [], ...traits });
  const st = memory();
  const view = approvalsView(liveModel(fake as any), st);
  mount().append(view.el, view.log);
  return { fake, st, view, el: view.el };
}

const card = (el: HTMLElement, index = 0): HTMLElement =>
  el.querySelector(`.dnb-approval[data-index="${index}"]`) as HTMLElement;
const act = (scope: Element, name: string): HTMLButtonElement =>
  scope.querySelector(`button[data-act="${name}"]`) as HTMLButtonElement;
const errorOf = (scope: Element): string => scope.querySelector(".dnb-card-error")!.textContent!;

describe("approval cards", () => {
  let pending: Interrupt[];
  beforeEach(() => { pending = [{ id: "I1", agent: "main/researcher#1", actions: [action(0)] }]; });

  it("shows the tool, the agent and the buttons the interrupt allows", () => {
    pending[0].actions[0].allowed = ["approve", "reject"];
    const { el } = setup(pending);
    const c = card(el);
    assert.equal(c.querySelector(".dnb-approval-tool")!.textContent, "write_file");
    assert.equal(c.querySelector(".dnb-approval-agent")!.textContent, "subagent researcher #1");
    const acts = [...c.querySelectorAll("button[data-act]")].map((b) => b.getAttribute("data-act"));
    assert.deepEqual(acts, ["approve", "reject", "always"]);
    assert.equal(el.querySelector(".dnb-pending-title")!.textContent, "Waiting for your approval — 1 action");
    assert.equal(el.hidden, false);
  });

  it("sends an approval once, and locks the card while it is on its way", () => {
    const { el, fake } = setup(pending);
    click(act(card(el), "approve"));
    click(act(card(el), "approve"));
    assert.deepEqual(fake.sent, [{ type: "decide", interrupt_id: "I1", index: 0, decision: { type: "approve" } }]);
    assert.ok(card(el).classList.contains("dnb-sending"));
    assert.equal(act(card(el), "reject").disabled, true);
  });

  it("edits string arguments as text and others as JSON", () => {
    assert.deepEqual(editFields('{"a": "x\\ny", "n": 3}'), [
      { name: "a", text: "x\ny", json: false }, { name: "n", text: "3", json: true }]);
    assert.deepEqual(editFields("[1, 2]"), [{ name: "", text: "[1, 2]", json: true, whole: true }]);
    const { el, fake } = setup(pending);
    click(act(card(el), "edit"));
    const areas = [...card(el).querySelectorAll("textarea")];
    assert.deepEqual(areas.map((a) => a.getAttribute("data-arg")), ["file_path", "content", "mode"]);
    assert.equal(areas[1].value, "hi");
    assert.equal(areas[2].getAttribute("data-json"), "1");
    type(areas[1], "hello");
    type(areas[2], '{"append": true}');
    click(act(card(el), "edit-send"));
    assert.deepEqual(fake.sent, [{ type: "decide", interrupt_id: "I1", index: 0,
      decision: { type: "edit", args: { file_path: "/a.md", content: "hello", mode: { append: true } } } }]);
  });

  it("refuses an edit whose JSON does not parse, sending nothing", () => {
    const { el, fake } = setup(pending);
    click(act(card(el), "edit"));
    type(card(el).querySelector('textarea[data-arg="mode"]')!, "{nope");
    click(act(card(el), "edit-send"));
    assert.deepEqual(fake.sent, []);
    assert.match(errorOf(card(el)), /^mode: not valid JSON \(.+\)\. Nothing was sent\.$/);
    assert.equal((card(el).querySelector(".dnb-card-error") as HTMLElement).hidden, false);
  });

  it("refuses whole arguments that are not an object", () => {
    const form = makeForm("edit", action(0, { args_json: "[1]" }), {});
    assert.deepEqual(readEditArgs(form), { error: "The arguments must be a JSON object. Nothing was sent." });
  });

  it("asks for a message before a response is sent", () => {
    const { el, fake } = setup(pending);
    click(act(card(el), "respond"));
    click(act(card(el), "respond-send"));
    assert.deepEqual(fake.sent, []);
    assert.equal(errorOf(card(el)), "Write a message: it is what the agent gets instead of the tool's result.");
    type(card(el).querySelector("textarea")!, "use /b.md instead");
    press(card(el).querySelector("textarea")!, "Enter", { ctrlKey: true });
    assert.deepEqual(fake.sent, [{ type: "decide", interrupt_id: "I1", index: 0,
      decision: { type: "respond", message: "use /b.md instead" } }]);
  });

  it("rejects with an optional reason", () => {
    const { el, fake } = setup(pending);
    click(act(card(el), "reject"));
    assert.equal(act(card(el), "reject").getAttribute("aria-expanded"), "true");
    click(act(card(el), "reject-send"));
    assert.deepEqual(fake.sent, [{ type: "decide", interrupt_id: "I1", index: 0,
      decision: { type: "reject", message: "" } }]);
  });

  it("keeps a draft when the view is drawn again", () => {
    const { el, st } = setup(pending);
    click(act(card(el), "respond"));
    type(card(el).querySelector("textarea")!, "half typed");
    assert.equal(st.drafts.get("I1:0")!.values.message, "half typed");
    const again = approvalsView(liveModel(new FakeModel<RunTraits>({ status: "interrupted", pending }) as any), st);
    assert.equal((again.el.querySelector("textarea") as HTMLTextAreaElement).value, "half typed");
  });

  it("shows the kernel's refusal on its card, and forgets it when sending again", () => {
    const { el, fake } = setup(pending, { card_errors: { "I1:0": "Refused: the run moved on." } });
    assert.equal(errorOf(card(el)), "Refused: the run moved on.");
    click(act(card(el), "approve"));
    assert.deepEqual(fake.traits.card_errors, {});
    assert.equal(fake.saved, 1);
  });

  it("offers Approve all for two undecided actions of one interrupt", () => {
    pending[0].actions.push(action(1, { name: "edit_file" }));
    const { el, fake } = setup(pending);
    const all = el.querySelector(".dnb-approve-all") as HTMLButtonElement;
    assert.equal(all.hidden, false);
    assert.equal(all.textContent, "Approve all 2");
    click(all);
    assert.deepEqual(fake.sent, [{ type: "approve_all", interrupt_id: "I1" }]);
  });

  it("sends Always with the card's tool", () => {
    const { el, fake } = setup(pending);
    click(act(card(el), "always"));
    assert.deepEqual(fake.sent, [{ type: "always", interrupt_id: "I1", index: 0, tool: "write_file" }]);
  });

  it("locks a card whose arguments were shortened from editing", () => {
    pending[0].actions[0].clipped = true;
    const { el } = setup(pending);
    assert.equal(act(card(el), "edit").disabled, true);
    assert.equal(act(card(el), "approve").disabled, false);
    assert.ok(card(el).querySelector(".dnb-approval-clipped"));
  });

  it("shows a decision and locks the card; an ended run locks them all", () => {
    pending[0].actions[0].decision = { type: "reject", message: "no", args: "", auto: false };
    pending[0].actions.push(action(1));
    const { el, fake, view } = setup(pending);
    assert.equal(card(el).querySelector(".dnb-approval-decision")!.textContent, "✗ rejected by you: no");
    assert.equal(card(el).getAttribute("data-decision"), "reject");
    assert.equal(act(card(el), "approve").disabled, true);
    assert.equal(act(card(el, 1), "approve").disabled, false);
    fake.update({ status: "cancelled" });
    view.render(); // the run view calls it on every status change
    assert.equal(act(card(el, 1), "approve").disabled, true);
    assert.equal(el.querySelector(".dnb-pending-title")!.textContent, "Not decided — the run ended before these were decided");
  });

  it("shows text from the agent as text", () => {
    pending[0].actions[0] = action(0, { name: "<img src=x onerror=alert(1)>", description: "<b>do</b>\u202e",
      preview: { kind: "diff", text: "@@ -1 +1 @@\n-<old>\n+<script>new</script>" } });
    const { el } = setup(pending);
    assert.equal(el.querySelector("img, script, b"), null);
    assert.equal(el.querySelector(".dnb-approval-desc")!.textContent, "<b>do</b>\\u202e");
    const lines = [...el.querySelectorAll(".dnb-diff span")].map((s) => s.className);
    assert.deepEqual(lines, ["dnb-hunk", "dnb-del", "dnb-add"]);
  });

  it("logs decisions", () => {
    const { el, view, fake } = setup(pending);
    fake.traits.decisions = [{ at: "2026-01-01 10:00:03", interrupt_id: "I1", index: 0, tool: "write_file",
      type: "edit", message: "", args: "content='x'", auto: true }];
    view.renderLog();
    const log = el.parentElement!.querySelector(".dnb-decisions") as HTMLElement;
    assert.equal(log.hidden, false);
    assert.equal(log.querySelector(".dnb-decisions-summary")!.textContent, "Decisions (1)");
    assert.equal(log.querySelector(".dnb-decision-at")!.textContent, "10:00:03");
    assert.equal(log.querySelector(".dnb-decision-type")!.textContent, "✎ edited");
    assert.equal(log.querySelector(".dnb-decision-detail")!.textContent, "content='x'");
    assert.equal(log.querySelector(".dnb-decision-auto")!.textContent, "by a rule");
  });

  it("logs an interrupt answered whole in words, and an action resumed that way", () => {
    const { el, view, fake } = setup(pending);
    fake.traits.decisions = [{ at: "2026-01-01 10:00:04", interrupt_id: "Q1", index: 0, tool: "interrupt",
      type: "answer", message: "Ada", args: "", auto: false }];
    view.renderLog();
    const log = el.parentElement!.querySelector(".dnb-decisions") as HTMLElement;
    assert.equal(log.querySelector(".dnb-decision-type")!.textContent, "↩ answered");
    assert.equal(log.querySelector(".dnb-decision-by")!.textContent, "by you");
    assert.equal(decisionText({ type: "resume", message: "yes", args: "", auto: false }), "↩ resumed by you: yes");
  });
});
