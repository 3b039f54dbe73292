// How a count of tokens is said, in the head line and on a subagent's card: what the providers
// reported, the part spent reasoning, and how many model calls reported nothing (unknown, never 0).
// The same words as deepnb/views/run/tokens.py says them in a snapshot.

import { num } from "../lib/text";

// Said on every streamed token's update: one formatter (as the header's counts have).
const INTEGER = new Intl.NumberFormat("en-US");
const fmtInt = (value: number): string => INTEGER.format(Math.round(value));

export interface TokenCounts {
  tokens_in?: unknown;
  tokens_out?: unknown;
  tokens_reasoning?: unknown;
  tokens_unreported?: unknown;
}

/** "tokens 1,200 in / 300 out (80 reasoning)"; "tokens unknown" when no model call reported any. */
export function tokensWords(counts: TokenCounts): string {
  const tokensIn = num(counts.tokens_in);
  const tokensOut = num(counts.tokens_out);
  const reasoning = num(counts.tokens_reasoning);
  const unreported = num(counts.tokens_unreported);
  if (unreported && !tokensIn && !tokensOut) return "tokens unknown";
  let words = `tokens ${fmtInt(tokensIn)} in / ${fmtInt(tokensOut)} out`;
  if (reasoning) words += ` (${fmtInt(reasoning)} reasoning)`;
  if (unreported) words += ` · ${fmtInt(unreported)} model call${unreported === 1 ? "" : "s"} unreported`;
  return words;
}
