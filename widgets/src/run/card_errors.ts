// The `card_errors` trait: why the kernel refused what a card sent, by the card's key. A send
// forgets the refusals it could get again first, so that one worded the same way still arrives
// as a change.

import { isObj } from "../lib/text";
import type { Read, RunModel } from "./live_model";

/** The refusals now, by key (none when the trait holds anything but an object). */
export function errorsOf(read: Read): Record<string, string> {
  const errors = read("card_errors");
  return isObj(errors) ? errors : {};
}

/** Drops the refusals under `keys` from `errors` (the trait as read) and syncs the rest, when one
 * of them was there. */
export function forgetRefusals(model: RunModel, errors: Record<string, string>, keys: string[]): void {
  const stale = keys.filter((key) => key in errors);
  if (!stale.length) return;
  const rest = { ...errors };
  for (const key of stale) delete rest[key];
  model.set("card_errors", rest);
  model.save_changes();
}
