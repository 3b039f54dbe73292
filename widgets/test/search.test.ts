// The transcript search: highlights built from text nodes, the match it is at and the next one,
// the folded cards it opens (tool card, thinking, summary, a closed subagent) and gives back as the
// reader left them, and no walk while the box is empty.

import "./dom";
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { click, FakeModel, mount } from "./dom";
import view from "../src/run_view";
import { CURRENT, HIT, markText, matchWords, step, unmark } from "../src/run/highlight";
import type { ItemRecord } from "../src/run/record";
import { SEARCH_DELAY, transcriptTools } from "../src/run/transcript_tools";
import type { Item, RunTraits, TreeNode } from "../src/types";

const shown: (() => void)[] = [];
afterEach(() => { for (const dispose of shown.splice(0)) dispose(); });
let runs = 0;

function showRun(fields: Partial<RunTraits>) {
  const fake = new FakeModel<RunTraits>({
    agent: "researcher", thread_id: `s${++runs}`, status: "done", error: "", items: [], todos: [],
    progress: { steps: 3, tool_calls: 2, tokens_in: 10, tokens_out: 2, started_at: 1_700_000_000, elapsed: 5,
      todo_progress: "" },
    pending: [], decisions: [], card_errors: {}, files_changed: [], tree: [], async_tasks: [], async_error: "",
    live_controls: true, stop_hint: "", code_css: "", revision: 0, ...fields,
  });
  const el = mount();
  shown.push(view.render({ model: fake as any, el }));
  return { fake, el };
}

const settled = (): Promise<void> => new Promise((done) => setTimeout(done, SEARCH_DELAY + 10));
const box = (el: Element): HTMLInputElement => el.querySelector(".dnb-search") as HTMLInputElement;
function type(el: Element, value: string): void {
  box(el).value = value;
  box(el).dispatchEvent(new (globalThis as any).Event("input", { bubbles: true }));
}
function key(el: Element, name: string, shiftKey = false): void {
  box(el).dispatchEvent(new (globalThis as any).KeyboardEvent("keydown", { key: name, shiftKey, bubbles: true }));
}
const count = (el: Element): string => el.querySelector(".dnb-search-count")!.textContent!;
const marks = (el: Element): string[] => [...el.querySelectorAll(`mark.${HIT}`)].map((m) => m.textContent!);
const at = (el: Element): Element | null => el.querySelector(`.${CURRENT}`);

const tool = (id: string, content: string): Item => ({ kind: "tool", id, agent: "main", name: "write_file",
  args: `content='${content.slice(0, 20)}…'`, args_full: JSON.stringify({ content }), status: "done",
  result: `Updated file /${id}.md`, result_full: `Updated file /${id}.md` } as Item);
const FILLER = "Tide pools hold water when the sea goes out. ";
const items = (): Item[] => [
  { kind: "prompt", id: "p", agent: "main", text: "Survey the pools" } as Item,
  tool("t1", FILLER + "A quokka was seen."),
  { kind: "thinking", id: "k", agent: "main", text: "Was the Quokka real?", html: "<p>Was the Quokka real?</p>" } as Item,
  tool("t2", FILLER + "Nothing else."),
  { kind: "summary", id: "s", agent: "main", summary: "Earlier: one quokka.", summary_html: "<p>Earlier: one quokka.</p>",
    messages: 4, cutoff: 4, tokens_before: 100, tokens_after: 10, file_path: "" } as Item,
  { kind: "text", id: "x", agent: "main", text: "Done.", html: "<p>Done.</p>" } as Item,
];

describe("highlights", () => {
  it("wraps each match in a mark built from the text nodes, and takes it out again", () => {
    const div = document.createElement("div");
    div.append("An <img src=x> and a ", Object.assign(document.createElement("b"), { textContent: "QUOKKA" }),
      ", quokka again: quokkaquokka");
    const before = div.textContent;
    const found = markText(div, "quokka");
    assert.deepEqual(found.map((m) => m.textContent), ["QUOKKA", "quokka", "quokka", "quokka"]);
    assert.equal(div.textContent, before); // the text is the text it was
    assert.equal(div.querySelector("img"), null); // text stays text
    assert.equal(markText(div, "<img src=x>").length, 1);
    unmark(div);
    assert.equal(div.querySelector("mark"), null);
    assert.equal(div.textContent, before);
    assert.equal(div.childNodes.length, 3); // the split text joined again
  });

  it("leaves streaming text and buttons alone", () => {
    const div = document.createElement("div");
    div.append(Object.assign(document.createElement("div"), { className: "dnb-streaming", textContent: "quokka" }),
      Object.assign(document.createElement("button"), { textContent: "quokka" }), "quokka");
    assert.equal(markText(div, "quokka").length, 1);
  });

  it("steps through the matches, wrapping around both ways", () => {
    assert.deepEqual([step(-1, 3), step(0, 3), step(2, 3), step(0, 3, true), step(-1, 3, true)], [0, 1, 0, 2, 2]);
    assert.equal(step(0, 0), -1);
    assert.deepEqual([matchWords(1, 7), matchWords(-1, 0)], ["match 2 of 7", "no match"]);
  });
});

describe("the search box", () => {
  it("waits for the typing to stop, opens the folded cards holding the word and marks it", async () => {
    const { el } = showRun({ items: items() });
    type(el, "quokka");
    assert.equal(marks(el).length, 0); // not yet: debounced
    await settled();
    const t1 = el.querySelector('[data-id="t1"]')!;
    assert.ok(t1.classList.contains("dnb-open")); // the folded tool card
    assert.equal((el.querySelector('[data-id="k"] details') as HTMLDetailsElement).open, true); // thinking
    assert.equal((el.querySelector('[data-id="s"] details') as HTMLDetailsElement).open, true); // summary
    assert.equal((el.querySelector('[data-id="t2"]') as HTMLElement).hidden, true);
    assert.ok(t1.querySelector(`.dnb-tool-args-full mark.${HIT}`));
    assert.deepEqual(marks(el), ["quokka", "Quokka", "quokka"]);
    assert.equal(count(el), "match 1 of 3 · 3 of 6 items");
    assert.equal(at(el), el.querySelectorAll(`mark.${HIT}`)[0]);
  });

  it("waits for the typing to stop while the run streams updates too", async () => {
    const { el, fake } = showRun({ items: items(), status: "running" });
    type(el, "quokk");
    fake.update({ items: items() }); // an update before the typing stopped searches nothing yet
    assert.deepEqual(marks(el), []);
    type(el, "quokka");
    await settled();
    assert.equal(marks(el).length, 3);
    key(el, "Enter");
    fake.update({ items: items() });
    assert.equal(count(el), "match 2 of 3 · 3 of 6 items");
  });

  it("goes to the next match on Enter and the buttons, the previous on Shift+Enter, wrapping", async () => {
    const { el } = showRun({ items: items() });
    type(el, "quokka");
    key(el, "Enter"); // typed, not yet searched: Enter searches and stays on the first
    const all = (): Element[] => [...el.querySelectorAll(`mark.${HIT}`)];
    assert.equal(at(el), all()[0]);
    key(el, "Enter");
    assert.equal(at(el), all()[1]);
    assert.equal(count(el), "match 2 of 3 · 3 of 6 items");
    assert.equal(el.querySelectorAll(`.${CURRENT}`).length, 1);
    click(el.querySelector('[aria-label="Next match"]'));
    assert.equal(at(el), all()[2]);
    click(el.querySelector('[aria-label="Next match"]'));
    assert.equal(at(el), all()[0]); // around
    key(el, "Enter", true);
    assert.equal(at(el), all()[2]);
    click(el.querySelector('[aria-label="Previous match"]'));
    assert.equal(at(el), all()[1]);
  });

  it("stays at its match while updates hand back the same items as new objects", async () => {
    const { el, fake } = showRun({ items: items(), status: "running" });
    type(el, "quokka");
    await settled();
    key(el, "Enter");
    const second = at(el);
    assert.equal(second, el.querySelectorAll(`mark.${HIT}`)[1]);
    fake.update({ items: items() }); // equal, not the same objects: nothing is marked again
    assert.equal(at(el), second);
    assert.ok(second!.isConnected);
    assert.equal(count(el), "match 2 of 3 · 3 of 6 items");
    fake.update({ items: items().filter((item) => item.id !== "t1") }); // the match before it went
    assert.equal(at(el), el.querySelectorAll(`mark.${HIT}`)[0]);
    assert.equal(count(el), "match 1 of 2 · 2 of 5 items");
  });

  it("Escape clears it and gives each card back the state its reader left it in", async () => {
    const { el } = showRun({ items: items() });
    click(el.querySelector('[data-id="t2"] .dnb-tool-head')); // the reader opened t2
    type(el, "quokka");
    await settled();
    click(el.querySelector('[data-id="t1"] .dnb-tool-head')); // and closed t1, which the search opened
    assert.equal(el.querySelector('[data-id="t1"]')!.classList.contains("dnb-open"), false);
    type(el, "quokka ");
    type(el, "quokka"); // the same query: the reader's close stands
    await settled();
    assert.equal(el.querySelector('[data-id="t1"]')!.classList.contains("dnb-open"), false);
    key(el, "Escape");
    assert.deepEqual(marks(el), []);
    assert.equal(count(el), "");
    assert.equal(el.querySelector('[data-id="t1"]')!.classList.contains("dnb-open"), false);
    assert.equal(el.querySelector('[data-id="t2"]')!.classList.contains("dnb-open"), true);
    assert.equal((el.querySelector('[data-id="k"] details') as HTMLDetailsElement).open, false);
    assert.equal((el.querySelector('[data-id="s"] details') as HTMLDetailsElement).open, false);
    assert.equal(el.querySelector('[data-id="t1"] .dnb-tool-args')!.textContent, "content='Tide pools hold wate…'");
  });

  it("opens a closed subagent whose transcript holds the word, and closes it again", async () => {
    const sub = { kind: "text", id: "s1", agent: "main/general-purpose", text: "A quokka in pool 9.",
      html: "<p>A quokka in pool 9.</p>" } as Item;
    const node = { id: "main/general-purpose", parent: "main", name: "general-purpose", label: "general-purpose",
      description: "", source: "task", call_id: "c1", status: "done", started_at: 1, finished_at: 2, tool_calls: 0,
      tokens_in: 0, tokens_out: 0, activity: "", result: "", result_full: "", children: [], calls_declined: 0,
      calls_failed: 0 } as TreeNode;
    const { el } = showRun({ items: [...items(), sub], tree: [node] });
    const card = el.querySelector(".dnb-node")!;
    assert.equal(card.classList.contains("dnb-open"), false);
    type(el, "pool 9");
    await settled();
    assert.equal(card.classList.contains("dnb-open"), true);
    assert.deepEqual(marks(el), ["pool 9"]);
    assert.ok(card.querySelector(`.dnb-node-transcript mark.${HIT}`));
    key(el, "Escape");
    assert.equal(card.classList.contains("dnb-open"), false);
    click(card.querySelector(".dnb-node-head")); // the reader's own open is not the search's
    type(el, "pool 9");
    await settled();
    key(el, "Escape");
    assert.equal(card.classList.contains("dnb-open"), true);
  });

  it("marks a streamed update again, and walks nothing while the box is empty", async () => {
    const { el, fake } = showRun({ items: items() });
    type(el, "quokka");
    await settled();
    fake.update({ items: [...items(), tool("t3", "Another quokka.")] });
    assert.equal(marks(el).length, 5); // the new card's preview and its full arguments
    assert.equal(count(el), "match 1 of 5 · 4 of 7 items");
    let walked = 0;
    const tools = transcriptTools({ records: () => { walked++; return [] as ItemRecord[]; } }, new Set());
    for (let i = 0; i < 5; i++) tools.apply();
    assert.equal(walked, 0);
    tools.dispose();
  });
});
