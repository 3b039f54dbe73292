// The shared helpers: text that is shown, never parsed; bidi controls escaped; formatting; and
// the click-to-load of images from content.

import "./dom";
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { click } from "./dom";
import { h, keepOnly, placeAt, setAttr, setText, smallButton } from "../src/lib/dom";
import { armImages } from "../src/lib/images";
import { fmtDuration, fmtElapsed, fmtInt, isObj, known, list, num, plural, shownText, str, waitedWords } from "../src/lib/text";

const ATTACK = `<img src=x onerror="alert(1)"><script>alert(2)</script>`;

describe("text", () => {
  it("turns anything into a string, and missing values into empty ones", () => {
    assert.equal(str(undefined), "");
    assert.equal(str(null), "");
    assert.equal(str(0), "0");
    assert.equal(num("12"), 12);
    assert.equal(num("x"), 0);
    assert.equal(num(Infinity), 0);
    assert.equal(isObj([]), false);
    assert.equal(isObj(null), false);
    assert.equal(isObj({}), true);
    assert.deepEqual(list("abc"), []);
    assert.equal(known(""), false);
    assert.equal(known(null), false);
    assert.equal(known(0), true);
  });

  it("formats counts and durations", () => {
    assert.equal(fmtInt(1234567.4), "1,234,567");
    assert.equal(plural(1, "step"), "1 step");
    assert.equal(plural(2000, "step"), "2,000 steps");
    assert.equal(fmtElapsed(-3), "0s");
    assert.equal(fmtElapsed(59.9), "59s");
    assert.equal(fmtElapsed(187), "3m 07s");
    assert.equal(fmtElapsed(3720), "1h 02m");
  });

  it("shows bidi control characters as escapes", () => {
    assert.equal(shownText("report\u202etxt.exe"), "report\\u202etxt.exe");
    assert.equal(shownText("\u2066a\u2069\u200f\u061c"), "\\u2066a\\u2069\\u200f\\u061c");
    assert.equal(shownText("plain café ✓"), "plain café ✓");
  });
});

describe("durations", () => {
  // the same cases as tests/unit/test_waiting_time.py: the live view says them as the snapshot does
  const WORDS: [number, string][] = [
    [0, "0.0 s"], [4.46, "4.5 s"], [59.9, "59.9 s"], [65, "1m 05s"], [3599, "59m 59s"], [3725, "1h 02m"],
  ];
  it("says a duration as the snapshot does", () => {
    for (const [seconds, words] of WORDS) {
      assert.equal(fmtDuration(seconds), words);
      assert.equal(waitedWords(seconds), seconds ? ` (+ ${words} waiting)` : "");
    }
  });
});

describe("dom", () => {
  it("puts text in as text: no element is made from it", () => {
    const node = h("div", "dnb-x", ATTACK);
    assert.equal(node.className, "dnb-x");
    assert.equal(node.textContent, ATTACK);
    assert.equal(node.children.length, 0);
    assert.equal(node.querySelector("img, script"), null);
    setText(node, `${ATTACK}!`);
    assert.equal(node.children.length, 0);
    assert.equal(node.textContent, `${ATTACK}!`);
  });

  it("escapes bidi controls in element text", () => {
    assert.equal(h("span", "", "a\u202eb").textContent, "a\\u202eb");
    const node = h("span");
    setText(node, "\u202ex");
    assert.equal(node.textContent, "\\u202ex");
  });

  it("writes text and attributes only when they change", () => {
    const node = h("span", "", "same");
    const first = node.firstChild;
    setText(node, "same");
    assert.equal(node.firstChild, first, "an unchanged text keeps its text node");
    setText(node, "other");
    assert.notEqual(node.firstChild, first);
    setAttr(node, "data-x", null);
    assert.equal(node.getAttribute("data-x"), "");
    setAttr(node, "data-x", 3);
    assert.equal(node.getAttribute("data-x"), "3");
  });

  it("makes buttons that keep their keys from JupyterLab", () => {
    const button = smallButton("dnb-b", "Go", "Do it");
    assert.equal(button.type, "button");
    assert.equal(button.title, "Do it");
    assert.equal(button.getAttribute("data-lm-suppress-shortcuts"), "true");
  });

  it("places and prunes keyed nodes", () => {
    const parent = h("div");
    const [a, b] = [h("i", "a"), h("i", "b")];
    placeAt(parent, b, null);
    placeAt(parent, a, null);
    placeAt(parent, b, a);
    assert.deepEqual([...parent.children].map((n) => n.className), ["a", "b"]);
    const map = new Map([["a", a], ["b", b]]);
    const dropped: string[] = [];
    keepOnly(map, new Set(["b"]), (node) => dropped.push(node.className));
    assert.deepEqual([...map.keys()], ["b"]);
    assert.deepEqual(dropped, ["a"]);
  });
});

describe("images from content", () => {
  function blocked(src: string): HTMLElement {
    const box = h("div");
    const holder = h("span", "dnb-image-blocked", `image: ${src}`);
    holder.setAttribute("data-src", src);
    holder.setAttribute("data-alt", "a chart");
    box.append(holder);
    return box;
  }

  it("loads a remote image only after its button is clicked", () => {
    const box = blocked("https://example.com/track.png");
    assert.equal(box.querySelector("img"), null);
    armImages(box);
    armImages(box); // twice: still one button
    const buttons = box.querySelectorAll(".dnb-image-load");
    assert.equal(buttons.length, 1);
    assert.equal(box.querySelector("img"), null, "arming loads nothing");
    click(buttons[0]);
    const img = box.querySelector("img")!;
    assert.equal(img.getAttribute("src"), "https://example.com/track.png");
    assert.equal(img.className, "dnb-image-loaded");
    assert.equal(img.alt, "a chart");
    assert.equal(img.referrerPolicy, "no-referrer");
    assert.equal(box.querySelector(".dnb-image-blocked"), null);
  });

  it("never loads a source that is not http(s)", () => {
    for (const src of ["javascript:alert(1)", "data:text/html,<script>", "file:///etc/passwd"]) {
      const box = blocked(src);
      armImages(box);
      click(box.querySelector(".dnb-image-load"));
      assert.equal(box.querySelector("img"), null, src);
      assert.ok(box.querySelector(".dnb-image-blocked"), src);
    }
  });
});
