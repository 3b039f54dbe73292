// The box under a run view: Send (a follow-up) once the run ended, Steer while it runs or waits;
// Enter sends, Shift+Enter does not; the text stays until the kernel says it went through; a
// refusal is one line; earlier turns show above the transcript, their text never as markup.

import "./dom";
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { FakeModel, mount, window } from "./dom";
import view from "../src/run_view";
import { steers } from "../src/run/compose";
import type { RunTraits } from "../src/types";

const shown: (() => void)[] = [];
afterEach(() => { for (const dispose of shown.splice(0)) dispose(); });

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
  const text = el.querySelector(".dnb-compose-text") as HTMLTextAreaElement;
  const button = el.querySelector(".dnb-compose-send") as HTMLButtonElement;
  const said = el.querySelector(".dnb-compose-said") as HTMLElement;
  return { fake, el, text, button, said };
}

const sent = (fake: FakeModel<RunTraits>) => fake.sent.filter((m) => m.type === "follow_up" || m.type === "steer");

function enter(node: HTMLElement, shiftKey = false): KeyboardEvent {
  const event = new window.KeyboardEvent("keydown", { key: "Enter", shiftKey, bubbles: true, cancelable: true });
  node.dispatchEvent(event as unknown as Event);
  return event as unknown as KeyboardEvent;
}

describe("the box under a run view", () => {
  it("sends a follow-up with Send once the run ended, and keeps the text until the kernel took it", () => {
    const { fake, text, button, said } = show({ status: "done" });
    assert.equal(button.textContent, "Send");
    text.value = "And then?";
    button.click();
    assert.deepEqual(sent(fake), [{ type: "follow_up", prompt: "And then?" }]);
    assert.equal(button.disabled, true, "one message at a time");
    button.click();
    assert.equal(sent(fake).length, 1);
    assert.equal(text.value, "And then?");
    fake.message({ type: "composed", kind: "follow_up", error: "" });
    assert.equal(text.value, "");
    assert.equal(button.disabled, false);
    assert.equal(said.textContent, "");
  });

  it("sends on Enter, and Shift+Enter is a new line", () => {
    const { fake, text } = show({ status: "error" });
    text.value = "Try again";
    assert.equal(enter(text, true).defaultPrevented, false);
    assert.equal(sent(fake).length, 0);
    assert.equal(enter(text).defaultPrevented, true);
    assert.deepEqual(sent(fake), [{ type: "follow_up", prompt: "Try again" }]);
  });

  it("steers while the run runs or waits, and shows a refusal in one line, as text", () => {
    const { fake, text, button, said } = show({ status: "running" });
    assert.equal(button.textContent, "Steer");
    assert.equal(steers("interrupted"), true);
    assert.equal(steers("cancelled"), false);
    text.value = "Focus on otters";
    enter(text);
    assert.deepEqual(sent(fake), [{ type: "steer", message: "Focus on otters" }]);
    fake.message({ type: "composed", kind: "steer", error: "Agent 'x' cannot be steered: <b>no</b>" });
    assert.equal(said.textContent, "Agent 'x' cannot be steered: <b>no</b>");
    assert.ok(said.classList.contains("dnb-error"));
    assert.equal(said.querySelector("b"), null);
    assert.equal(text.value, "Focus on otters", "a refused message stays in the box");
    fake.update({ status: "done" });
    assert.equal(button.textContent, "Send", "the run ended: the box follows up");
  });

  it("does not send an empty box", () => {
    const { fake, text, button, said } = show({ status: "done" });
    text.value = "  \n ";
    button.click();
    assert.equal(sent(fake).length, 0);
    assert.equal(said.textContent, "Type the follow-up first.");
  });

  it("shows the earlier turns above the transcript and the follow-up's cell under the view", () => {
    const { el, fake } = show({ status: "running" });
    assert.equal((el.querySelector(".dnb-turns") as HTMLElement).hidden, true);
    fake.update({ turns: [{ run_id: "run-1", prompt: "Plan <img src=x onerror=alert(1)>", status: "done",
      head: "deepnb · agent a · done · 1 step", answer_html: "<p>Step <strong>one</strong></p>", error: "" }], follow_up_cell: "%%deepagent -a a -t t" });
    const turns = el.querySelector(".dnb-turns") as HTMLElement;
    assert.equal(turns.hidden, false);
    assert.equal(turns.querySelector(".dnb-turn-prompt")!.textContent, "› Plan <img src=x onerror=alert(1)>");
    assert.equal(turns.querySelector("img"), null, "a prompt is text");
    assert.equal(turns.querySelector(".dnb-turn-answer strong")!.textContent, "one");
    assert.equal(turns.querySelector(".dnb-turn-now")!.textContent, "Follow-up 1");
    const cell = el.querySelector(".dnb-follow-up-cell") as HTMLElement;
    assert.equal(cell.hidden, false);
    assert.equal(cell.querySelector("code")!.textContent, "%%deepagent -a a -t t");
    const order = [...el.querySelector(".deepnb-run")!.children].map((n) => n.className);
    assert.ok(order.indexOf("dnb-turns") < order.indexOf("dnb-transcript"));
    assert.ok(order.indexOf("dnb-compose") < order.indexOf("dnb-muted dnb-follow-up-cell"));
  });
});

describe("the box while a cell holds the kernel", () => {
  it("says the kernel reads it once the cell has ended, and still sends", () => {
    const { fake, text, button, said } = show({ status: "running", live_controls: false });
    assert.equal(said.textContent, "This kernel reads the box once the cell has ended (a --bg cell ends at once).");
    assert.equal(button.disabled, false);
    text.value = "Hurry";
    button.click();
    assert.deepEqual(sent(fake), [{ type: "steer", message: "Hurry" }]);
    fake.message({ type: "composed", kind: "steer", error: "run-1 has ended (done): send it with run.follow_up(...) instead." });
    fake.update({ status: "done" });
    assert.equal(said.textContent, "run-1 has ended (done): send it with run.follow_up(...) instead.");
    assert.equal(button.textContent, "Send");
  });
});
