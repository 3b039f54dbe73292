// How the file view writes sizes, times and paths.

import { num, str } from "../lib/text";

/** Bytes as "512 B", "1.5 kB" or "2.0 MB" ("" when unknown). */
export function fmtSize(size: unknown): string {
  if (size === null || size === undefined || size === "") return "";
  const n = num(size);
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} kB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** An ISO time as "2025-01-31 14:03" in local time (the text itself when it is not a time). */
export function fmtTime(iso: unknown): string {
  const text = str(iso);
  const date = text ? new Date(text) : null;
  if (!date || Number.isNaN(date.getTime())) return text;
  const pad = (n: number): string => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** The folder holding `path` ("/a/b.md" → "/a/", "/a/" → "/"). */
export const parentOf = (path: unknown): string => {
  const trimmed = str(path).replace(/\/$/, "");
  return trimmed.slice(0, trimmed.lastIndexOf("/") + 1) || "/";
};

/** Whether a change at `changed` can alter what folder `folder` lists. */
export const touches = (folder: string, changed: unknown): boolean =>
  changed === "/" || str(changed).startsWith(folder);
