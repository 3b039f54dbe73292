// What the agents were given: the skills and memory files loaded into their prompts and the
// tools each agent can call, as one collapsed line under the header ("Given: 2 skills · 1 memory
// file · tools: main 9, critic 7") that opens to the lists. The static snapshot draws the same
// section (deepnb/views/run/given.py).

import { h, setText, show } from "../lib/dom";
import { isObj, list, plural, str } from "../lib/text";
import type { Given } from "../types";
import type { RunModel } from "./live_model";

const by = (agent: unknown): string => (str(agent) === "main" || !str(agent) ? "" : ` (${str(agent)})`);

/** The one-line summary, or "" when nothing is known yet. */
export function givenSummary(given: Given | undefined): string {
  const g: Record<string, any> = isObj(given) ? given : {};
  const skills = list(g.skills), memory = list(g.memory);
  const tools = isObj(g.tools) ? Object.entries(g.tools) : [];
  const parts: string[] = [];
  if (skills.length) parts.push(plural(skills.length, "skill"));
  if (memory.length) parts.push(plural(memory.length, "memory file"));
  if (tools.length) parts.push("tools: " + tools.map(([agent, names]) => `${agent} ${list(names).length}`).join(", "));
  return parts.length ? "Given: " + parts.join(" · ") : "";
}

export interface GivenView { el: HTMLElement; render(): void }

export function givenView(model: RunModel): GivenView {
  const el = h("details", "dnb-given");
  const summary = h("summary", "dnb-given-summary");
  const body = h("div", "dnb-given-body");
  el.append(summary, body);

  function section(title: string, rows: Node[]): Node[] {
    if (!rows.length) return [];
    const ul = h("ul", "dnb-given-list");
    ul.append(...rows);
    return [h("div", "dnb-given-title", title), ul];
  }

  function render(): void {
    const given = model.get("given");
    const line = givenSummary(given);
    show(el, line !== "");
    setText(summary, line);
    const g: Record<string, any> = isObj(given) ? given : {};
    const skills = list(g.skills).filter(isObj).map((s) => {
      const li = h("li", "dnb-given-skill");
      li.append(h("b", "", s.name), document.createTextNode(`${by(s.agent)} — ${str(s.description)}`));
      return li;
    });
    const memory = list(g.memory).filter(isObj).map((m) => {
      const li = h("li", "dnb-given-memory");
      li.append(h("code", "", m.path), document.createTextNode(by(m.agent)));
      return li;
    });
    const tools = (isObj(g.tools) ? Object.entries(g.tools) : []).map(([agent, names]) => {
      const li = h("li", "dnb-given-tools");
      li.append(h("b", "", agent), document.createTextNode(": " + list(names).map(str).join(", ")));
      return li;
    });
    body.replaceChildren(
      ...section("Skills in the prompt", skills),
      ...section("Memory files in the prompt", memory),
      ...section("Tools each agent can call", tools),
    );
  }

  return { el, render };
}
