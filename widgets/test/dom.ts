// The DOM shim the view tests run against: happy-dom's window, its globals installed on Node's
// globalThis before any view code runs (import this module first), and a fake anywidget model.

import { Window } from "happy-dom";

const window = new Window({ url: "http://localhost:8888/lab", width: 1280, height: 900 });
const g = globalThis as any;
for (const name of ["document", "Node", "HTMLElement", "Element", "Event", "MouseEvent", "KeyboardEvent",
  "FocusEvent", "InputEvent", "Text", "getSelection"]) {
  const value = (window as any)[name];
  g[name] = typeof value === "function" && name === "getSelection" ? value.bind(window) : value;
}
g.window = window;
g.requestAnimationFrame = (fn: (t: number) => void) => setTimeout(() => fn(Date.now()), 0);

export { window };

type Handler = (...args: any[]) => void;

/** A stand-in for anywidget's model: traits, change events, custom messages, and what was sent. */
export class FakeModel<T extends Record<string, any>> {
  traits: Partial<T>;
  sent: any[] = [];
  saved = 0;
  private handlers = new Map<string, Set<Handler>>();
  widget_manager: any = {};

  constructor(traits: Partial<T>) {
    this.traits = { ...traits };
  }

  get<K extends keyof T>(name: K): T[K] {
    return this.traits[name] as T[K];
  }

  set<K extends keyof T>(name: K, value: T[K]): void {
    this.traits[name] = value;
  }

  save_changes(): void {
    this.saved++;
  }

  send(content: any): void {
    this.sent.push(content);
  }

  on(event: string, fn: Handler): void {
    if (!this.handlers.has(event)) this.handlers.set(event, new Set());
    this.handlers.get(event)!.add(fn);
  }

  off(event?: string | null, fn?: Handler | null): void {
    if (event && fn) this.handlers.get(event)?.delete(fn);
  }

  /** The kernel changes traits: each fires its `change:` event. */
  update(changes: Partial<T>): void {
    for (const [name, value] of Object.entries(changes)) {
      (this.traits as any)[name] = value;
      for (const fn of [...(this.handlers.get(`change:${name}`) || [])]) fn();
    }
  }

  /** The kernel sends a custom message. */
  message(msg: unknown): void {
    for (const fn of [...(this.handlers.get("msg:custom") || [])]) fn(msg, []);
  }

  listeners(event: string): number {
    return this.handlers.get(event)?.size || 0;
  }
}

/** A fresh element attached to the document, for a view to render into. */
export function mount(): HTMLElement {
  const el = document.createElement("div");
  document.body.replaceChildren(el);
  return el;
}

/** Clicks `node` the way a user does (a bubbling click event). */
export function click(node: Element | null): void {
  if (!node) throw new Error("nothing to click");
  node.dispatchEvent(new (globalThis as any).MouseEvent("click", { bubbles: true, cancelable: true }));
}

/** Presses `key` on `node` (a bubbling keydown). */
export function press(node: Element, key: string, init: Record<string, unknown> = {}): void {
  node.dispatchEvent(new (globalThis as any).KeyboardEvent("keydown", { key, bubbles: true, cancelable: true, ...init }));
}

/** Types `text` into a textarea or input (its value, then a bubbling input event). */
export function type(node: Element, text: string): void {
  (node as HTMLTextAreaElement).value = text;
  node.dispatchEvent(new (globalThis as any).Event("input", { bubbles: true }));
}

/** Waits for timers and animation frames queued so far. */
export const settle = (ms = 0): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
