// The statuses' words and marks come from the schema alone (deepnb/core/schema.py, mirrored into
// src/schema.ts): the views look them up there, and a view that declares its own table of labels
// or marks, or its own copy of a status set, fails here.

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { isIn, shownAs } from "../src/lib/statuses";
import * as schema from "../src/schema";

const SRC = new URL("../src/", import.meta.url);

/** Each TypeScript source under src/ but the schema's mirror: [path, text]. */
function sources(): [string, string][] {
  const names = readdirSync(SRC, { recursive: true, encoding: "utf8" });
  return names.filter((name) => name.endsWith(".ts") && name !== "schema.ts")
    .map((name) => [name, readFileSync(new URL(name, SRC), "utf8")]);
}

/** The schema's status sets: the keys of each table and the members of each set, by name. */
function statusSets(): [string, Set<string>][] {
  return Object.entries(schema).flatMap(([name, value]): [string, Set<string>][] => {
    if (value instanceof Set) return [[name, new Set([...value].map(String))]];
    if (value && typeof value === "object") return [[name, new Set(Object.keys(value))]];
    return [];
  });
}

/** Where `text` declares a table like one of the schema's, or a copy of one of its sets. */
export function copies(text: string, sets: [string, Set<string>][]): string[] {
  const found: string[] = [];
  for (const literal of text.match(/\{[^{}]*\}/g) || []) {
    // `running: "…"`, `"in_progress": "…"`: a key with a string for its value, as a table has.
    const keys = [...literal.matchAll(/["']?(\w+)["']?\s*:\s*["'`]/g)].map((m) => m[1]);
    const like = sets.find(([, set]) => keys.filter((key) => set.has(key)).length >= 2);
    if (like) found.push(`like ${like[0]}: ${literal.trim()}`);
  }
  for (const literal of text.match(/\[\s*(?:["'][\w ]*["']\s*,?\s*)+\]/g) || []) {
    const members = new Set([...literal.matchAll(/["']([\w ]*)["']/g)].map((m) => m[1]));
    const like = sets.find(([, set]) => members.size === set.size && [...members].every((m) => set.has(m)));
    if (like) found.push(`like ${like[0]}: ${literal}`);
  }
  return found;
}

describe("status tables", () => {
  it("are declared only in the schema's mirror", () => {
    const sets = statusSets();
    assert.ok(sets.some(([name]) => name === "RUN_STATUS_LABEL") && sets.some(([name]) => name === "ENDED"));
    const found = sources().flatMap(([path, text]) => copies(text, sets).map((copy) => `${path}: ${copy}`));
    assert.deepEqual(found, [], "use the schema's table (src/schema.ts) with shownAs from src/lib/statuses.ts");
  });

  it("are found where a view declares one again", () => {
    const sets = statusSets();
    assert.equal(copies('const MARK: Record<string, string> = { done: "✓", error: "✗" };', sets).length > 0, true);
    assert.equal(copies("const L = {\n  'in_progress': '◐',\n  completed: '✓',\n};", sets).length > 0, true);
    assert.equal(copies('const ENDED = new Set(["done", "error", "cancelled"]);', sets).length > 0, true);
    assert.deepEqual(copies('const t = { type: "approve" }; const k = new Set(["markdown", "code"]);', sets), []);
    assert.deepEqual(copies("interface R { error: string; done: boolean }", sets), []);
  });
});

describe("shownAs", () => {
  it("gives a status's text from the schema's table, or the fallback for one it does not list", () => {
    assert.equal(shownAs(schema.RUN_STATUS_LABEL, "error", "?"), "failed");
    assert.equal(shownAs(schema.NODE_STATUS_LABEL, "sleeping", "sleeping"), "sleeping");
    assert.equal(shownAs(schema.TOOL_STATUS_MARK, "running", ""), "", "a running card has no mark");
    assert.equal(shownAs(schema.TODO_STATUS_MARK, "toString", "○"), "○", "not the object's own names");
  });

  it("tells whether a status is in one of the schema's sets", () => {
    assert.equal(isIn(schema.ENDED, "cancelled"), true);
    assert.equal(isIn(schema.ENDED, "interrupted"), false);
    assert.equal(isIn(schema.OPEN_NODE, "waiting"), true);
  });
});
