// While a run writes files the kernel says so (`{type: "changed", paths}`), often many times a
// second: changes close together make one refresh of what the view shows.

import { list, str } from "../lib/text";

export interface ChangeBatcher {
  /** Adds the changed `paths`; the refresh comes `delay` ms after the first of a batch. */
  add(paths: unknown): void;
  dispose(): void;
}

/** `apply(paths)` gets every path changed during a batch, once. */
export function changeBatcher(delay: number, apply: (paths: string[]) => void): ChangeBatcher {
  let pending: Set<string> | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  return {
    add(paths) {
      const incoming = list(paths).map(str);
      pending = pending === null ? new Set(incoming) : new Set([...pending, ...incoming]);
      if (timer !== null) return;
      timer = setTimeout(() => {
        timer = null;
        const changed = [...(pending || [])];
        pending = null;
        apply(changed);
      }, delay);
    },
    dispose() {
      if (timer !== null) clearTimeout(timer);
    },
  };
}
