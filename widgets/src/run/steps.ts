// How the header says a run's steps: the thread's steps the run made (the numbers its fork chips,
// its timeline, `%deepagent history` and `--at` use), and its model calls where subagents made
// more. The same words as deepnb/views/run/steps.py says them in a snapshot.

import { num } from "../lib/text";

const INTEGER = new Intl.NumberFormat("en-US");
const fmtInt = (value: number): string => INTEGER.format(Math.round(value));
const plural = (n: number, noun: string): string => `${fmtInt(n)} ${noun}${n === 1 ? "" : "s"}`;

export interface StepCounts {
  steps?: unknown;
  step?: unknown;
  first_step?: unknown;
}

/** "6 steps"; "6 steps (7–12)" on a thread that had 6 before; "… · 14 model calls" when
 * subagents made more model calls than the run's steps. */
export function stepsWords(counts: StepCounts): string {
  const calls = num(counts.steps);
  if (counts.step === undefined || counts.step === null) return plural(calls, "step");
  const first = num(counts.first_step);
  const now = num(counts.step);
  const own = now - first;
  let words = plural(own, "step");
  if (first && own) words += own === 1 ? ` (${fmtInt(now)})` : ` (${fmtInt(first + 1)}–${fmtInt(now)})`;
  if (calls > own) words += ` · ${plural(calls, "model call")}`;
  return words;
}
