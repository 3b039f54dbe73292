// What is typed in the approval forms, and where the caret is: each field's text goes to its
// card's draft and the caret to the run's memory, so that a re-displayed view gets both back.
// Keys typed in a form stay there: JupyterLab would otherwise hold back Enter's line break (its
// guard for pending shortcuts). Ctrl/Cmd+Enter sends the form.

import { str } from "../lib/text";
import type { Card } from "./approval_card";
import { keyOf } from "./approval_pending";
import type { RunMemory } from "./memory";

export interface FormTyping {
  /** Gives a re-displayed view the focus back (see below). */
  restoreFocus(): void;
  dispose(): void;
}

function onKeyDown(event: KeyboardEvent): void {
  const target = event.target as HTMLElement;
  if (target.tagName !== "TEXTAREA") return;
  event.stopPropagation();
  if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
  event.preventDefault();
  target.closest(".dnb-approval-form")?.querySelector<HTMLElement>("[data-act$='-send']")?.click();
}

/** Follows the forms in `el`, whose cards `cards` holds by key. */
export function formTyping(el: HTMLElement, st: RunMemory, cards: Map<string, Card>): FormTyping {
  let disposed = false;

  function fieldOf(target: EventTarget | null): { key: string; field: string } | null {
    const node = target as HTMLElement | null;
    if (!node || node.tagName !== "TEXTAREA" || !el.contains(node)) return null;
    return { key: keyOf(node), field: str(node.getAttribute("data-field")) };
  }

  function onInput(event: Event): void {
    const where = fieldOf(event.target);
    const draft = where && st.drafts.get(where.key);
    if (draft) draft.values[where.field] = (event.target as HTMLTextAreaElement).value;
    if (where) noteCaret(event);
  }

  function noteCaret(event: Event): void {
    const where = fieldOf(event.target);
    if (where) {
      const area = event.target as HTMLTextAreaElement;
      const { selectionStart: start, selectionEnd: end } = area;
      st.focus = { ...where, node: area, start, end };
    }
  }

  // Forget the field when the user leaves it; not when it leaves the page with its view.
  function onFocusOut(event: FocusEvent): void {
    const f = st.focus;
    if (!f || f.node !== event.target) return;
    if (event.relatedTarget) st.focus = null;
    else setTimeout(() => { if (st.focus === f && f.node.isConnected) st.focus = null; }, 0);
  }

  // A re-displayed view gets the focus back, caret included, when the field that had it left the
  // page with the old view and nothing else took it. Both views can be on the page for a moment,
  // and a new one is rendered before it is attached: so try again for a few frames.
  function restoreFocus(tries = 20): void {
    const f = st.focus;
    if (!f || disposed) return;
    if (f.node.isConnected || !el.isConnected) {
      if (tries > 0) requestAnimationFrame(() => restoreFocus(tries - 1));
      return;
    }
    const active = document.activeElement;
    const card = cards.get(f.key);
    const area = card && card.form &&
      [...card.form.querySelectorAll("textarea")].find((a) => a.getAttribute("data-field") === f.field);
    if (!area || (active && active !== document.body)) return;
    area.focus({ preventScroll: true });
    area.setSelectionRange(f.start, f.end);
    st.focus = { ...f, node: area };
  }

  const listeners: [string, (event: any) => void][] = [
    ["keydown", onKeyDown], ["input", onInput], ["focusin", noteCaret], ["keyup", noteCaret],
    ["mouseup", noteCaret], ["focusout", onFocusOut]];
  for (const [name, fn] of listeners) el.addEventListener(name, fn);

  return {
    restoreFocus: () => restoreFocus(),
    dispose() {
      disposed = true;
      for (const [name, fn] of listeners) el.removeEventListener(name, fn);
    },
  };
}
