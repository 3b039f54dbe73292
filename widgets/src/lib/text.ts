// Text helpers shared by the views: values from the kernel turned into safe, formatted strings.

/** Any value as a string ("" for undefined and null). */
export const str = (value: unknown): string =>
  value === undefined || value === null ? "" : String(value);

/** Any value as a finite number (0 when it is not one). */
export const num = (value: unknown): number =>
  Number.isFinite(Number(value)) ? Number(value) : 0;

/** Whether `value` is a plain object (not null, not an array). */
export const isObj = (value: unknown): value is Record<string, any> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** `value` when it is an array, else an empty one. */
export const list = (value: unknown): any[] => (Array.isArray(value) ? value : []);

/** Whether `value` is a number the kernel knows (not missing, not blank). */
export const known = (value: unknown): boolean =>
  value !== null && value !== undefined && value !== "" && Number.isFinite(Number(value));

export const fmtInt = (value: unknown): string => Math.round(num(value)).toLocaleString("en-US");

export const plural = (n: unknown, word: string): string =>
  `${fmtInt(n)} ${word}${num(n) === 1 ? "" : "s"}`;

export const pad2 = (n: number): string => String(n).padStart(2, "0");

/** Seconds as "42s", "3m 07s" or "1h 02m". */
export function fmtElapsed(seconds: unknown): string {
  const s = Math.max(0, Math.floor(num(seconds)));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, "0")}m`;
}

/** A length of time as the run view says it, live and in its snapshot (deepnb/views/run/durations.py):
 * "12.3 s" under a minute, "1m 05s", "2h 03m". */
export function fmtDuration(seconds: unknown): string {
  const s = Math.max(0, num(seconds));
  if (s < 60) return `${s.toFixed(1)} s`;
  const whole = Math.floor(s);
  const m = Math.floor(whole / 60);
  if (m < 60) return `${m}m ${String(whole % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, "0")}m`;
}

/** A wait shorter than this (seconds) is not said. */
export const WAITED_FLOOR = 0.05;

/** " (+ 42.0 s waiting)": the time spent waiting for decisions or answers, never part of a
 * duration but said beside it ("" for none). */
export const waitedWords = (waited: unknown): string =>
  num(waited) >= WAITED_FLOOR ? ` (+ ${fmtDuration(waited)} waiting)` : "";

// Bidi control characters (an RTL override can make "txt.exe" read "exe.txt") are shown as
// escapes, \u202e, in every text a view writes.
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `value` as the text a view shows: a string with its bidi control characters escaped. */
export const shownText = (value: unknown): string =>
  str(value).replace(BIDI_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** Whether `text` (an agent's answer) is what `preview` shows: the same words, or, when the preview
 * was clipped ("…"), their beginning. A subagent's answer then shows once, not twice. */
export function sameAnswer(text: unknown, preview: unknown): boolean {
  const words = str(text).split(/\s+/).filter(Boolean).join(" ");
  const shown = str(preview).trim();
  if (!shown || !words) return false;
  return words === shown || (shown.endsWith("…") && words.startsWith(shown.slice(0, -1)));
}

/** `text` shortened to `max` characters by an ellipsis in its middle, so both the start of a long
 * path and its file name stay visible. */
export function middleEllipsis(text: string, max: number): string {
  if (text.length <= max) return text;
  const tail = Math.ceil((max - 1) * 0.6);
  return `${text.slice(0, max - 1 - tail)}…${text.slice(text.length - tail)}`;
}
