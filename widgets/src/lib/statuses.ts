// Reading a status the kernel sent against the schema's tables and sets. A status comes in as a
// string (a saved view or an older deepnb may send one no table lists), so these take any string
// and fall back, like deepnb.core.schema.shown_as.

/** `table`'s text for `status`, or `fallback` for a status it does not list. */
export function shownAs<K extends string>(
  table: Readonly<Partial<Record<K, string>>>,
  status: string,
  fallback: string,
): string {
  const text = Object.prototype.hasOwnProperty.call(table, status)
    ? (table as Readonly<Record<string, string>>)[status] : undefined;
  return text || fallback;
}

/** Whether `status` is one of `set` (`ENDED`, `OPEN_NODE`…). */
export function isIn<K extends string>(set: ReadonlySet<K>, status: string): status is K {
  return (set as ReadonlySet<string>).has(status);
}
