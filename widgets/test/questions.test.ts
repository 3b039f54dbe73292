// Raw interrupt cards: the value shown readably and as text only (a string, an object's fields,
// nested values as JSON), the reply parsed as text or JSON, sent once as an `answer` message, and
// the card locked once answered, when the run ends, or showing the kernel's refusal.

import "./dom";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { click, FakeModel, mount, press, type } from "./dom";
import { liveModel } from "../src/run/live_model";
import type { RunMemory } from "../src/run/memory";
import { parseReply, valueEl } from "../src/run/question_card";
import { questionsView } from "../src/run/questions";
import type { Question, RunTraits } from "../src/types";

function question(id: string, value: unknown, fields: Partial<Question> = {}): Question {
  return { id, agent: "main", kind: "question", actions: [], value, value_json: JSON.stringify(value, null, 2),
    answer: null, ...fields };
}

function memory(): RunMemory {
  return { expanded: new Set(), nodesOpen: new Set(), peek: null, drafts: new Map(), sending: new Map(),
    local: new Map(), focus: null, logOpen: false };
}

function setup(pending: Question[], traits: Partial<RunTraits> = {}, st: RunMemory = memory(), gone = () => false) {
  const fake = new FakeModel<RunTraits>({ status: "interrupted", pending, card_errors: {}, ...traits });
  const view = questionsView(liveModel(fake as any), st, undefined, gone);
  mount().append(view.el);
  return { fake, view, el: view.el, st };
}

const card = (el: HTMLElement, id: string): HTMLElement =>
  el.querySelector(`.dnb-question[data-interrupt="${id}"]`) as HTMLElement;
const sendBtn = (scope: Element): HTMLButtonElement => scope.querySelector(".dnb-reply-send") as HTMLButtonElement;
const reply = (scope: Element): HTMLTextAreaElement => scope.querySelector(".dnb-reply") as HTMLTextAreaElement;
const jsonBox = (scope: Element): HTMLInputElement => scope.querySelector(".dnb-reply-json") as HTMLInputElement;
const errorOf = (scope: Element): string => scope.querySelector(".dnb-card-error")!.textContent!;

describe("parsing a reply", () => {
  it("sends text as it is, and refuses an empty one", () => {
    assert.deepEqual(parseReply("  Ada Lovelace\n", false), { value: "  Ada Lovelace\n" });
    assert.deepEqual(parseReply('{"a": 1}', false), { value: '{"a": 1}' });
    assert.match(parseReply("   ", false).error!, /Write an answer/);
  });

  it("sends JSON values as data, and says when it is not JSON", () => {
    assert.deepEqual(parseReply('{"colour": "teal", "n": [1, 2]}', true), { value: { colour: "teal", n: [1, 2] } });
    assert.deepEqual(parseReply("42", true), { value: 42 });
    assert.deepEqual(parseReply("true", true), { value: true });
    assert.deepEqual(parseReply("null", true), { value: null });
    assert.deepEqual(parseReply('""', true), { value: "" });
    assert.match(parseReply("{colour: teal}", true).error!, /^Not valid JSON .*nothing was sent\.$/);
  });
});

describe("a raw interrupt's value", () => {
  it("shows a string as text, never as HTML", () => {
    const node = valueEl(question("Q", "<img src=x onerror=alert(1)> Your name?"));
    assert.equal(node.className, "dnb-question-text");
    assert.equal(node.textContent, "<img src=x onerror=alert(1)> Your name?");
    assert.equal(node.querySelector("img"), null);
  });

  it("shows an object as fields, nested values as JSON text", () => {
    const node = valueEl(question("Q", { title: "<b>Pick</b>", options: ["a", "<script>"], n: 3 }));
    const terms = [...node.querySelectorAll("dt")].map((dt) => dt.textContent);
    assert.deepEqual(terms, ["title", "options", "n"]);
    const values = [...node.querySelectorAll("dd")];
    assert.equal(values[0].textContent, "<b>Pick</b>");
    assert.equal(values[0].querySelector("b"), null);
    assert.equal(values[1].querySelector("code")!.textContent, '[\n  "a",\n  "<script>"\n]');
    assert.equal(node.querySelector("script"), null);
    assert.equal(values[2].textContent, "3");
  });

  it("shows other values, and clipped ones, as JSON text", () => {
    assert.equal(valueEl(question("Q", [1, "two"])).textContent, '[\n  1,\n  "two"\n]');
    assert.equal(valueEl(question("Q", null, { value_json: '{"big": "xxx…' })).textContent, '{"big": "xxx…');
  });
});

describe("question cards", () => {
  it("one card per raw interrupt, none for approvals; JSON ticked for a form", () => {
    const approval = { id: "A", agent: "main", actions: [] } as any;
    const { el } = setup([question("Q1", "Your name?"), approval, question("Q2", { pick: "a colour" })]);
    assert.deepEqual([...el.querySelectorAll(".dnb-question")].map((c) => c.getAttribute("data-interrupt")),
      ["Q1", "Q2"]);
    assert.equal(jsonBox(card(el, "Q1")).checked, false);
    assert.equal(jsonBox(card(el, "Q2")).checked, true);
    assert.equal(el.hidden, false);
  });

  it("sends the reply once, as text or as JSON, and locks the card on its way", () => {
    const { el, fake } = setup([question("Q1", "Your name?"), question("Q2", { pick: "a colour" })]);
    type(reply(card(el, "Q1")), "Ada");
    click(sendBtn(card(el, "Q1")));
    click(sendBtn(card(el, "Q1")));
    assert.deepEqual(fake.sent, [{ type: "answer", interrupt_id: "Q1", value: "Ada" }]);
    assert.equal(sendBtn(card(el, "Q1")).disabled, true);
    type(reply(card(el, "Q2")), '{"colour": "teal"}');
    press(reply(card(el, "Q2")), "Enter", { ctrlKey: true });
    assert.deepEqual(fake.sent[1], { type: "answer", interrupt_id: "Q2", value: { colour: "teal" } });
  });

  it("refuses bad JSON on the card and sends nothing", () => {
    const { el, fake } = setup([question("Q1", { pick: "a colour" })]);
    type(reply(card(el, "Q1")), "{colour: teal}");
    click(sendBtn(card(el, "Q1")));
    assert.deepEqual(fake.sent, []);
    assert.match(errorOf(card(el, "Q1")), /^Not valid JSON/);
    assert.equal(sendBtn(card(el, "Q1")).disabled, false);
  });

  it("shows the kernel's refusal and lets the user send again", () => {
    const { el, fake, view } = setup([question("Q1", "Your name?")]);
    type(reply(card(el, "Q1")), "Ada");
    click(sendBtn(card(el, "Q1")));
    fake.update({ card_errors: { "Q1:answer": "No question 'Q1' is waiting (any more): nothing was sent." } });
    view.render();
    assert.match(errorOf(card(el, "Q1")), /No question/);
    assert.equal(sendBtn(card(el, "Q1")).disabled, false);
    click(sendBtn(card(el, "Q1")));
    assert.equal(fake.sent.length, 2);
  });

  it("shows the answer once the kernel has it, and locks when the run ends", () => {
    const { el, fake, view } = setup([question("Q1", "Your name?")]);
    fake.update({ pending: [question("Q1", "Your name?", { answer: "Ada" })] });
    view.render();
    assert.equal(card(el, "Q1").querySelector(".dnb-approval-decision")!.textContent, "↩ answered: Ada");
    assert.equal(sendBtn(card(el, "Q1")).disabled, true);
    const other = setup([question("Q2", "Why?")], { status: "cancelled" });
    assert.equal(sendBtn(card(other.el, "Q2")).disabled, true);
  });

  it("locks the card and says how to get it back once the kernel is gone", () => {
    let gone = false;
    const { el, view } = setup([question("Q1", "Your name?")], { thread_id: "t7" }, memory(), () => gone);
    assert.equal(sendBtn(card(el, "Q1")).disabled, false);
    gone = true;
    view.render();
    assert.equal(sendBtn(card(el, "Q1")).disabled, true);
    assert.equal(reply(card(el, "Q1")).disabled, true);
    assert.match(errorOf(card(el, "Q1")), /%deepagent approvals -t t7/);
  });

  it("keeps a draft for a re-displayed view, and drops cards no longer pending", () => {
    const st = memory();
    const first = setup([question("Q1", "Your name?")], {}, st);
    type(reply(card(first.el, "Q1")), "half-typed");
    first.view.dispose();
    const again = setup([question("Q1", "Your name?")], {}, st);
    assert.equal(reply(card(again.el, "Q1")).value, "half-typed");
    again.fake.update({ pending: [] });
    again.view.render();
    assert.equal(again.el.querySelectorAll(".dnb-question").length, 0);
    assert.equal(again.el.hidden, true);
  });
});
