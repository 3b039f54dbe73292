// How a decision on a gated tool call is said: on its approval card and on the tool card it
// answered in the tool's place. deepnb/views/run/decided.py says it the same way (the same cases
// are in widgets/test/decided.test.ts and tests/unit/test_decided_words.py).

import { shownAs } from "../lib/statuses";
import { isObj, str } from "../lib/text";
import { DECISION_LABEL } from "../schema";

/** The tool statuses of a call that never ran: something was given in the tool's place. */
export const NOT_RUN = new Set(["declined", "responded"]);

interface Said { type?: unknown; message?: unknown; args?: unknown; auto?: unknown }

const who = (decision: Said): string => (decision.auto ? "a rule" : "you");

/** "✗ rejected by you: too risky", "✓ approved by a rule", "✎ edited by you: x=1". */
export function decisionWords(decision: Said): string {
  const type = str(decision.type);
  const detail = str(type === "edit" ? decision.args : decision.message);
  const words = `${shownAs(DECISION_LABEL, type, type)} by ${who(decision)}`;
  return detail ? `${words}: ${detail}` : words;
}

/** What the card of a tool call that never ran says of it ("" for one that ran). */
export function notRunWords(item: { status?: unknown; decision?: unknown }): string {
  if (!NOT_RUN.has(str(item.status))) return "";
  if (!isObj(item.decision)) return "Not run: a result was given in its place";
  const decision = item.decision as Said;
  if (decision.type === "respond") return `Not run: ${who(decision)} responded in its place`;
  const message = str(decision.message);
  return `Not run: declined by ${who(decision)}${message ? ` — ${message}` : ""}`;
}
