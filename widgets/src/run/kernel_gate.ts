// One way for every control of the run view to meet a kernel that is gone. A control that sends
// the kernel a message is marked with `asksKernel(el)`; once the kernel behind the view restarted
// or shut down, a click (or Enter / Space) on a marked control is caught before its own handler
// runs, nothing is sent, and one line at the control says what to do. The view's model refuses to
// send as well, so a control that forgot its mark sends nothing (and says nothing: the test that
// clicks every control of the view, widgets/test/kernel_gate.test.ts, finds it).

import { h } from "../lib/dom";

/** What a control says when it is used after its kernel is gone. */
export const GONE_LINE = "The kernel is gone: re-run the cell.";

const MARK = "data-asks-kernel";

/** Marks `el` as a control that sends the kernel a message (see the gate below). */
export function asksKernel<T extends Element>(el: T): T {
  el.setAttribute(MARK, "");
  return el;
}

export interface KernelGate {
  /** Whether the kernel behind the view is gone. */
  gone(): boolean;
  /** The kernel is gone: from now on the marked controls answer with `GONE_LINE`. */
  markGone(): void;
  dispose(): void;
}

/** The gate over the controls inside `root`, listening on `host` (root's parent: so the event is
 * caught before any listener of root's own). */
export function kernelGate(root: HTMLElement, host: HTMLElement): KernelGate {
  let gone = false;
  const line = h("span", "dnb-gone-line", GONE_LINE);
  line.setAttribute("role", "status");

  function onEvent(event: Event): void {
    if (!gone) return;
    if (event.type === "keydown" && !["Enter", " "].includes((event as KeyboardEvent).key)) return;
    const target = event.target as Element | null;
    const control = target && target.closest ? target.closest(`[${MARK}]`) : null;
    if (!control || !root.contains(control)) return;
    event.preventDefault();
    event.stopImmediatePropagation(); // the control's own handler never runs
    control.after(line); // said where the reader looked
  }

  function markGone(): void {
    if (gone) return;
    gone = true;
    root.setAttribute("data-kernel", "gone");
    for (const control of root.querySelectorAll(`[${MARK}]`)) {
      control.setAttribute("aria-disabled", "true");
      control.setAttribute("title", GONE_LINE);
    }
  }

  host.addEventListener("click", onEvent, true);
  host.addEventListener("keydown", onEvent, true);
  return {
    gone: () => gone,
    markGone,
    dispose() {
      host.removeEventListener("click", onEvent, true);
      host.removeEventListener("keydown", onEvent, true);
    },
  };
}
