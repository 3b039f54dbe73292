// The transcript: items patched in place by id, streaming text appended, finished text shown as the
// HTML Python escaped, tool cards with their status marks, summaries.

import "./dom";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setExpanded } from "../src/run/tool_card";
import { summarizedText, tokensText } from "../src/run/summary_card";
import { tokensWords } from "../src/run/tokens";
import { ITEM_RECS, itemList, keyItems } from "../src/run/transcript";
import type { Item, ToolItem } from "../src/types";

function tool(id: string, fields: Partial<ToolItem> = {}): ToolItem {
  return {
    kind: "tool", id, agent: "main", name: "read_file", args: "file_path='/a.md'", args_full: '{"file_path": "/a.md"}',
    status: "running", result: "", result_full: "", ...fields,
  };
}

function list(): { box: HTMLElement; sync(items: Item[]): void; expanded: Set<string> } {
  const box = document.createElement("div");
  const expanded = new Set<string>();
  const items = itemList(box, expanded);
  return { box, expanded, sync: (all) => items.sync(keyItems(all)) };
}

const ids = (box: HTMLElement): string[] => [...box.children].map((el) => el.getAttribute("data-id")!);

describe("keyed patching", () => {
  it("keys items by id, de-duplicating repeats, and by position without one", () => {
    const keys = keyItems([{ id: "a" }, { id: "a" }, { id: "a" }, {}, "junk", null, { id: 7 }]).map((e) => e.key);
    assert.deepEqual(keys, ["a", "a~1", "a~2", "#3", "7"]);
  });

  it("keeps each item's element across updates, reorders and drops them", () => {
    const t = list();
    t.sync([{ kind: "prompt", id: "p", agent: "main", text: "Hi" }, tool("t1"), tool("t2")]);
    assert.deepEqual(ids(t.box), ["p", "t1", "t2"]);
    const [p, t1, t2] = [...t.box.children];
    t.sync([{ kind: "prompt", id: "p", agent: "main", text: "Hi" }, tool("t2", { status: "done" }), tool("t1")]);
    assert.deepEqual(ids(t.box), ["p", "t2", "t1"]);
    assert.equal(t.box.children[0], p);
    assert.equal(t.box.children[1], t2, "a patched item keeps its element");
    assert.equal(t.box.children[2], t1);
    t.sync([tool("t1")]);
    assert.deepEqual(ids(t.box), ["t1"]);
    assert.equal(t.box.children[0], t1);
  });

  it("builds an item again when its kind changes", () => {
    const t = list();
    t.sync([{ kind: "notice", id: "x", level: "cancelled", text: "note" }]);
    const before = t.box.firstElementChild;
    t.sync([{ kind: "error", id: "x", text: "boom" }]);
    assert.notEqual(t.box.firstElementChild, before);
    assert.equal(t.box.firstElementChild!.getAttribute("data-kind"), "error");
    assert.equal(t.box.querySelector(".dnb-error-text")!.textContent, "boom");
  });

  it("says under a text the run ended in the middle of that it was cut off, once", () => {
    const t = list();
    const text = { kind: "text", id: "x", agent: "main", text: "Half an ans", html: null } as Item;
    t.sync([text]);
    assert.equal(t.box.querySelector(".dnb-cut-off"), null);
    const cut = { ...text, html: "<p>Half an ans</p>", cut_off: true } as Item;
    t.sync([cut]);
    t.sync([{ ...cut }]);
    const notes = t.box.querySelectorAll(".dnb-cut-off");
    assert.equal(notes.length, 1);
    assert.equal(notes[0].textContent, "(cut off: the run ended before this text did)");
  });

  it("appends streaming text to one text node, then shows the finished HTML", () => {
    const t = list();
    t.sync([{ kind: "text", id: "m", agent: "main", text: "Hel", html: null }]);
    const body = t.box.querySelector(".dnb-text-body")!;
    const node = body.firstChild;
    assert.ok(body.classList.contains("dnb-streaming"));
    t.sync([{ kind: "text", id: "m", agent: "main", text: "Hello <b>", html: null }]);
    assert.equal(body.firstChild, node, "the stream grows in place");
    assert.equal(body.textContent, "Hello <b>");
    assert.equal(body.children.length, 0, "streaming text is text");
    t.sync([{ kind: "text", id: "m", agent: "main", text: "Bye", html: null }]);
    assert.equal(body.textContent, "Bye", "a text that does not continue the last replaces it");
    t.sync([{ kind: "text", id: "m", agent: "main", text: "Bye", html: "<p><strong>Bye</strong></p>" }]);
    assert.ok(body.classList.contains("dnb-md"));
    assert.ok(!body.classList.contains("dnb-streaming"));
    assert.equal(body.querySelector("strong")!.textContent, "Bye");
  });

  it("arms blocked images in finished text", () => {
    const t = list();
    const html = '<p><span class="dnb-image-blocked" data-src="https://x.test/a.png" data-alt="a">image</span></p>';
    t.sync([{ kind: "text", id: "m", agent: "main", text: "x", html }]);
    assert.equal(t.box.querySelectorAll(".dnb-image-load").length, 1);
    assert.equal(t.box.querySelector("img"), null);
  });

  it("shows every text field as text, bidi controls escaped", () => {
    const t = list();
    const evil = "<img src=x onerror=alert(1)>\u202egpj.exe";
    t.sync([
      { kind: "prompt", id: "p", agent: "main", text: evil },
      { kind: "text", id: "s", agent: "main", text: evil, html: null },
      tool("t", { name: evil, args: evil, result: evil, status: "done" }),
      { kind: "notice", id: "n", level: "cancelled", text: evil },
      { kind: "error", id: "e", text: evil },
    ]);
    assert.equal(t.box.querySelector("img"), null);
    assert.equal(t.box.querySelector(".dnb-prompt-text")!.textContent, "<img src=x onerror=alert(1)>\\u202egpj.exe");
    assert.equal(t.box.querySelector(".dnb-tool-name")!.textContent, "<img src=x onerror=alert(1)>\\u202egpj.exe");
    assert.ok(!t.box.textContent!.includes("\u202e"));
  });

  it("labels and indents a subagent's items", () => {
    const t = list();
    t.sync([tool("t", { agent: "main/researcher#1/critic#2" })]);
    const el = t.box.firstElementChild as HTMLElement;
    assert.ok(el.classList.contains("dnb-sub"));
    assert.equal(el.getAttribute("data-agent"), "main/researcher#1/critic#2");
    assert.equal(el.style.getPropertyValue("--dnb-depth"), "2");
    const label = el.querySelector(".dnb-agent-label") as HTMLElement;
    assert.equal(label.hidden, false);
    assert.equal(label.textContent, "critic#2");
  });
});

describe("tool cards", () => {
  const badge = (box: HTMLElement): string => box.querySelector(".dnb-tool-status")!.textContent!;

  it("marks each status", () => {
    const t = list();
    const seen: Record<string, string> = {};
    for (const status of ["running", "done", "error", "waiting", "cancelled", "interrupted"] as const) {
      t.sync([tool("t", { status })]);
      seen[status] = badge(t.box);
      assert.equal(t.box.firstElementChild!.getAttribute("data-status"), status);
    }
    assert.deepEqual(seen, {
      running: "running", done: "✓ done", error: "✗ error", waiting: "‖ waiting", cancelled: "■ cancelled",
      interrupted: "■ interrupted",
    });
  });

  it("puts the full arguments and result into the DOM only while open", () => {
    const t = list();
    t.sync([tool("t", { status: "done", result: "42", result_full: "42 and more" })]);
    const card = t.box.firstElementChild as HTMLElement;
    const detail = card.querySelector(".dnb-tool-detail") as HTMLElement;
    assert.equal(detail.hidden, true);
    assert.equal(card.querySelector(".dnb-tool-args-full")!.textContent, "");
    const head = card.querySelector(".dnb-tool-head")!;
    assert.equal(head.getAttribute("role"), "button");
    assert.equal(head.getAttribute("aria-expanded"), "false");
    setExpanded(ITEM_RECS.get(card)!, true);
    assert.equal(detail.hidden, false);
    assert.equal(head.getAttribute("aria-expanded"), "true");
    assert.equal(card.querySelector(".dnb-tool-args-full")!.textContent, '{"file_path": "/a.md"}');
    assert.equal(card.querySelector(".dnb-tool-result-full")!.textContent, "42 and more");
    t.sync([tool("t", { status: "done", result: "43", result_full: "43 now" })]);
    assert.equal(card.querySelector(".dnb-tool-result-full")!.textContent, "43 now", "an open card follows");
  });

  it("shows a result's content blocks by kind: texts apart, a bounded image, a web link, notes", () => {
    const t = list();
    const png = "data:image/png;base64,iVBORw0KGgo=";
    t.sync([tool("t", {
      status: "done", result: "one two", result_full: "one\n\ntwo",
      parts: [
        { kind: "text", text: "one <b>x</b>" },
        { kind: "text", text: "two" },
        { kind: "image", text: "image/png, 8 bytes", src: png },
        { kind: "image", text: "svg", src: "data:image/svg+xml;base64,PHN2Zz4=" },
        { kind: "link", text: "https://example.org/a", src: "https://example.org/a" },
        { kind: "link", text: "javascript:alert(1)", src: "javascript:alert(1)" },
        { kind: "note", text: "resource file:///etc/passwd" },
      ],
    })]);
    const card = t.box.firstElementChild as HTMLElement;
    const parts = [...card.querySelectorAll(".dnb-tool-part")] as HTMLElement[];
    assert.deepEqual(parts.map((p) => p.getAttribute("data-kind")), ["text", "text", "image", "note", "link", "note", "note"]);
    assert.equal(parts[0].textContent, "one <b>x</b>");
    assert.equal(card.querySelectorAll("b").length, 0, "a text stays text");
    const images = card.querySelectorAll("img");
    assert.equal(images.length, 1);
    assert.equal(images[0].getAttribute("src"), png);
    const links = card.querySelectorAll("a");
    assert.equal(links.length, 1);
    assert.equal(links[0].getAttribute("href"), "https://example.org/a");
    assert.equal(links[0].getAttribute("rel"), "noopener noreferrer nofollow");
    assert.equal((card.querySelector(".dnb-tool-result") as HTMLElement).hidden, true, "not run together again");
  });

  it("opens cards remembered as expanded", () => {
    const t = list();
    t.expanded.add("t");
    t.sync([tool("t")]);
    assert.ok(t.box.firstElementChild!.classList.contains("dnb-open"));
  });

  it("links a task card to its subagent", () => {
    const t = list();
    t.sync([tool("t", { name: "task", subagent: "main/general-purpose#2" })]);
    assert.equal(t.box.querySelector(".dnb-tool-subagent")!.textContent, "→ general-purpose #2");
    const show = t.box.querySelector(".dnb-show-subagent") as HTMLButtonElement;
    assert.equal(show.hidden, false);
    assert.equal(show.getAttribute("data-node"), "main/general-purpose#2");
  });

  it("shows an eval card's code, console and error, and no result preview", () => {
    const t = list();
    t.sync([tool("t", {
      name: "eval", status: "error", result: "raw",
      eval: { code: "1/0", code_html: '<span class="k">1/0</span>', stdout: "hi", error: "boom", error_type: "RangeError" },
    })]);
    const card = t.box.firstElementChild!;
    assert.ok(card.classList.contains("dnb-eval-card"));
    assert.equal(card.querySelector(".dnb-eval-code .k")!.textContent, "1/0");
    assert.equal(card.querySelector(".dnb-eval-stdout")!.textContent, "hi");
    assert.equal(card.querySelector(".dnb-eval-error")!.textContent, "RangeError: boom");
    assert.equal((card.querySelector(".dnb-tool-result") as HTMLElement).hidden, true);
  });
});

describe("summaries and notices", () => {
  it("says what was summarized", () => {
    assert.equal(tokensText(1200, 300), "tokens 1,200 → 300");
    assert.equal(tokensText(1200, null), "tokens before 1,200");
    assert.equal(tokensText("", 5), "tokens after 5");
    assert.equal(tokensText(null, undefined), "");
    const t = list();
    t.sync([{ // cutoff off the contract: shown as unknown
      kind: "summary", id: "s", agent: "main", messages: 12, cutoff: null as never, tokens_before: 9000,
      tokens_after: 800, summary: "short", summary_html: "<p>short</p>", file_path: "/conversation_history/t.md",
    }]);
    const card = t.box.firstElementChild!;
    assert.equal(card.querySelector(".dnb-summary-messages")!.textContent, "12 messages summarized");
    assert.equal((card.querySelector(".dnb-summary-cutoff") as HTMLElement).hidden, true);
    assert.equal(card.querySelector(".dnb-summary-tokens")!.textContent, "tokens 9,000 → 800");
    assert.equal(card.querySelector(".dnb-summary-text p")!.textContent, "short");
    assert.equal(card.querySelector(".dnb-summary-open")!.getAttribute("data-path"), "/conversation_history/t.md");
  });

  it("says in words what a summarization took out, never as an index", () => {
    assert.deepEqual(summarizedText(12, 12), ["12 messages summarized", ""]);
    assert.deepEqual(summarizedText(1, null), ["1 message summarized", ""]);
    assert.deepEqual(summarizedText(3, 15), ["3 messages summarized", "(15 in all)"]);
    assert.deepEqual(summarizedText(null, 1500), ["1,500 messages summarized in all", ""]);
    assert.deepEqual(summarizedText(null, null), ["", ""]);
    const t = list();
    t.sync([{ kind: "summary", id: "s", agent: "main", messages: 12, cutoff: 12, tokens_before: null,
      tokens_after: null, summary: "short", summary_html: "", file_path: "" }]);
    const card = t.box.firstElementChild!;
    assert.doesNotMatch(card.textContent!, /cutoff|index/);
    assert.equal((card.querySelector(".dnb-summary-cutoff") as HTMLElement).hidden, true);
    t.sync([{ kind: "summary", id: "s", agent: "main", messages: 3, cutoff: 15, tokens_before: null,
      tokens_after: null, summary: "short", summary_html: "", file_path: "" }]);
    assert.equal(card.querySelector(".dnb-summary-cutoff")!.textContent, "(15 in all)");
  });

  it("offers the rest of a folded transcript", () => {
    const t = list();
    t.sync([{ kind: "notice", id: "n", level: "collapsed", text: "40 steps folded", hidden: 40, expand: true }]);
    assert.equal(t.box.querySelector(".dnb-notice-text")!.textContent, "40 steps folded");
    assert.ok(t.box.querySelector("button.dnb-expand"));
    assert.equal(t.box.firstElementChild!.getAttribute("data-level"), "collapsed");
  });
});

describe("thinking", () => {
  const thinking = (text: string, html: string | null, agent = "main"): Item =>
    ({ kind: "thinking", id: "k1", agent, text, html });
  const fold = (box: HTMLElement): HTMLDetailsElement => box.querySelector("details.dnb-thinking-details")!;
  const byReader = (details: HTMLDetailsElement, open: boolean): void => {
    details.open = open;
    details.dispatchEvent(new Event("toggle"));
  };

  it("streams open, as text, then folds once the answer starts", () => {
    const t = list();
    t.sync([thinking("Weigh the <b>options", null)]);
    const details = fold(t.box);
    assert.equal(details.open, true);
    assert.equal(t.box.querySelector(".dnb-thinking-title")!.textContent, "Thinking");
    assert.equal(t.box.querySelector(".dnb-thinking-text")!.textContent, "Weigh the <b>options");
    assert.equal(t.box.querySelector(".dnb-thinking-text b"), null, "streamed thinking is text, never HTML");
    t.sync([thinking("Weigh the <b>options first.", "<p>Weigh the &lt;b&gt;options first.</p>"),
      { kind: "text", id: "t1", agent: "main", text: "Done", html: null }]);
    assert.equal(fold(t.box), details, "patched in place");
    assert.equal(details.open, false, "folded once the answer starts");
    assert.equal(t.box.querySelector(".dnb-thinking-text")!.textContent, "Weigh the <b>options first.");
  });

  it("keeps the reader's choice: closed while streaming stays closed, opened stays open", () => {
    const t = list();
    t.sync([thinking("Hmm", null)]);
    byReader(fold(t.box), false);
    t.sync([thinking("Hmm, more", null)]);
    assert.equal(fold(t.box).open, false);
    byReader(fold(t.box), true);
    t.sync([thinking("Hmm, more.", "<p>Hmm, more.</p>")]);
    assert.equal(fold(t.box).open, true, "opened by the reader: the answer does not fold it");
    assert.ok(t.expanded.has("k1"), "remembered for a redrawn view");
  });

  it("keeps a reader's click whose toggle event comes after the next update", () => {
    const t = list();
    t.sync([thinking("Hmm", null)]);
    const details = fold(t.box);
    t.sync([thinking("Hmm.", "<p>Hmm.</p>"), { kind: "text", id: "t1", agent: "main", text: "Done", html: null }]);
    assert.equal(details.open, false);
    let held = true; // the click's toggle event is still queued when the next update comes
    t.box.addEventListener("toggle", (e) => { if (held) e.stopImmediatePropagation(); }, true);
    details.open = true; // the click
    t.sync([thinking("Hmm.", "<p>Hmm.</p>"), { kind: "text", id: "t1", agent: "main", text: "Done.", html: null }]);
    held = false;
    details.dispatchEvent(new Event("toggle"));
    assert.equal(details.open, true, "the reader's click stands");
    assert.ok(t.expanded.has("k1"));
  });

  it("labels a subagent's thinking", () => {
    const t = list();
    t.sync([thinking("Sources first", null, "main/researcher")]);
    assert.equal(t.box.querySelector(".dnb-thinking-toggle .dnb-agent-label")!.textContent, "researcher");
  });
});

describe("node updates", () => {
  it("shows a node's name and its update as text, escaped, patched in place", () => {
    const t = list();
    const update = (text: string): Item => ({ kind: "update", id: "u", agent: "main", node: "write<b>", keys: ["joke"], text });
    t.sync([update('{\n  "joke": "<img src=x onerror=alert(1)>"\n}')]);
    const el = t.box.firstElementChild as HTMLElement;
    assert.ok(el.classList.contains("dnb-update"));
    assert.equal(el.querySelector(".dnb-update-node")!.textContent, "write<b>");
    assert.equal(el.querySelector("img"), null, "the update is text, never HTML");
    assert.match(el.querySelector(".dnb-update-values")!.textContent!, /"joke": "<img src=x/);
    t.sync([update('{"joke": "Why did the cat sit on the computer?"}')]);
    assert.equal(t.box.firstElementChild, el);
    assert.match(el.querySelector(".dnb-update-values")!.textContent!, /cat sit/);
  });
});

describe("token counts", () => {
  it("says reasoning apart, and unknown where no provider reported usage, never 0", () => {
    assert.equal(tokensWords({ tokens_in: 1200, tokens_out: 300 }), "tokens 1,200 in / 300 out");
    assert.equal(tokensWords({ tokens_in: 1200, tokens_out: 300, tokens_reasoning: 80 }),
      "tokens 1,200 in / 300 out (80 reasoning)");
    assert.equal(tokensWords({ tokens_in: 0, tokens_out: 0, tokens_unreported: 3 }), "tokens unknown");
    assert.equal(tokensWords({ tokens_in: 10, tokens_out: 5, tokens_unreported: 1 }),
      "tokens 10 in / 5 out · 1 model call unreported");
  });
});
