// What a view remembers beyond the synced state, per run: expanded tool cards, summaries and
// subagents, the peeked file, and the approval cards' open forms, drafts, sends in flight and caret.
// Keyed by the run (thread and start time), not by `model`: anywidget gives each view its own
// model proxy, and the view is displayed again whenever its output is updated (on pause and on
// finish).

import { str } from "../lib/text";
import type { GraphScene, StepStateMessage } from "../types";
import type { RunModel } from "./live_model";

/** The edits of one step in the state panel, not sent yet. */
export interface StepEdits {
  todos?: { content: string; status: string }[];
  files: Map<string, string>;
  messages: Map<string, string>;
}

/** The Graph and Step state tabs: which one is open, the drawing, the step shown and its edits. */
export interface PanelMemory {
  tab: "graph" | "state" | null;
  scene: GraphScene | null;
  step: StepStateMessage | null;
  edits: Map<number, StepEdits>;
  said: string;
}

export interface Peek {
  path: string;
  loading: boolean;
  slow?: boolean;
  html?: string;
  text?: string;
  error?: string;
}

export interface Draft { mode: string; values: Record<string, string> }

export interface Focus {
  key: string;
  field: string;
  node: HTMLTextAreaElement;
  start: number | null;
  end: number | null;
}

export interface RunMemory {
  /** Tool item ids, and summary item ids whose text is open. */
  expanded: Set<string>;
  /** Subagent node ids whose transcript is shown. */
  nodesOpen: Set<string>;
  /** The file panel. */
  peek: Peek | null;
  /** Approval key → the open form and what was typed in it. */
  drafts: Map<string, Draft>;
  /** Approval key → the card_errors key a refusal of that send lands on. */
  sending: Map<string, string>;
  /** Approval key → an error found before sending (nothing was sent). */
  local: Map<string, string>;
  /** The form field last focused. */
  focus: Focus | null;
  logOpen: boolean;
  /** The Graph and Step state tabs (made by `panelMemory` on first use). */
  panels?: PanelMemory;
}

/** The tabs' memory of a run's views. */
export function panelMemory(st: RunMemory): PanelMemory {
  st.panels ??= { tab: null, scene: null, step: null, edits: new Map(), said: "" };
  return st.panels;
}

const RUNS = new Map<string, RunMemory>();

export function runMemory(model: RunModel): RunMemory {
  const key = `${str(model.get("thread_id"))}@${str((model.get("progress") || {}).started_at)}`;
  let st = RUNS.get(key);
  if (!st) {
    st = {
      expanded: new Set(),
      nodesOpen: new Set(),
      peek: null,
      drafts: new Map(),
      sending: new Map(),
      local: new Map(),
      focus: null,
      logOpen: false,
    };
    RUNS.set(key, st);
    if (RUNS.size > 64) RUNS.delete(RUNS.keys().next().value!);
  }
  return st;
}
