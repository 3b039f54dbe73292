// The record a view keeps for one transcript item, and the helpers that patch it in place.

import { show, setText } from "../lib/dom";
import { str } from "../lib/text";
import type { SummaryParts } from "./summary_card";
import type { ThinkingParts } from "./thinking_card";
import type { ToolParts } from "./tool_card";

export interface ItemRecord {
  /** The item's id (or position) in its list. */
  key: string;
  kind: string;
  el: HTMLElement;
  /** The fields last shown, by name. */
  f: Record<string, any>;
  /** The item object last shown: an update that hands back the same object changes nothing. */
  item?: object;
  /** The agent path last shown. */
  agent?: string;
  /** The subagent's name, on text, tool and summary items. */
  label?: HTMLElement;
  body?: HTMLElement;
  /** A streaming text item's text node. */
  stream?: Text | null;
  tool?: ToolParts;
  summary?: SummaryParts;
  thinking?: ThinkingParts;
}

/** Returns true when `item[name]` differs from the last value seen, and remembers the new value. */
export function changed(rec: { f: Record<string, any> }, item: Record<string, any>, name: string): boolean {
  const value = item[name] === undefined ? null : item[name];
  if (rec.f[name] === value) return false;
  rec.f[name] = value;
  return true;
}

/** Remembers `value` under `name`; true when it differs from the last one. */
export function differs(rec: { f: Record<string, any> }, name: string, value: unknown): boolean {
  if (rec.f[name] === value) return false;
  rec.f[name] = value;
  return true;
}

/** "main/general-purpose#2" → "general-purpose #2", as the Subagents panel labels it. */
export function nodeLabel(path: unknown): string {
  return str(path).split("/").pop()!.replace("#", " #");
}

/** "main agent", or "subagent general-purpose #2". */
export function agentName(agent: unknown): string {
  const path = str(agent) || "main";
  return path === "main" ? "main agent" : `subagent ${nodeLabel(path)}`;
}

/** Marks an item as a subagent's (indented, labelled with its name) or the main agent's. */
export function agentLabel(rec: ItemRecord, agentValue: unknown): void {
  const agent = str(agentValue) || "main";
  if (rec.agent === agent) return;
  rec.agent = agent;
  const sub = agent !== "main";
  rec.el.classList.toggle("dnb-sub", sub);
  rec.el.style.setProperty("--dnb-depth", String(sub ? Math.max(1, agent.split("/").length - 1) : 0));
  if (sub) rec.el.setAttribute("data-agent", agent);
  else rec.el.removeAttribute("data-agent");
  if (!rec.label) return;
  show(rec.label, sub);
  setText(rec.label, sub ? agent.split("/").pop() : "");
  if (sub) rec.label.title = agent;
}
