// DOM helpers shared by the views. Every string goes into the DOM as text (textContent,
// createTextNode, setAttribute of non-URL attributes); nothing here sets HTML.

import { shownText, str } from "./text";

/** A new element with a class and a text (shown with its bidi controls escaped). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K, cls?: string, text?: unknown,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = shownText(text);
  return node;
}

/** Sets a node's text, touching the DOM only when it changes. */
export function setText(node: Node, text: unknown): void {
  const value = shownText(text);
  if (node.textContent !== value) node.textContent = value;
}

/** Sets an attribute, touching the DOM only when it changes. */
export function setAttr(node: Element, name: string, value: unknown): void {
  const v = str(value);
  if (node.getAttribute(name) !== v) node.setAttribute(name, v);
}

export const show = (node: HTMLElement, visible: boolean): void => { node.hidden = !visible; };

// Keys pressed on `node` are its own: JupyterLab reads them at the document before the view does
// (Enter in command mode would edit the cell instead of opening a card or pressing a button; the
// arrow keys would move between cells), and stops looking for a shortcut at this attribute.
export function ownKeys<T extends Element>(node: T): T {
  node.setAttribute("data-lm-suppress-shortcuts", "true");
  return node;
}

/** A `type="button"` button that keeps its keys (see ownKeys), with an optional tooltip. */
export function smallButton(cls: string, label: unknown, title?: string): HTMLButtonElement {
  const node = ownKeys(h("button", cls, label));
  node.type = "button";
  if (title) node.title = title;
  return node;
}

/** Puts `node` right after `prev` in `parent` (first when `prev` is null), moving it only if needed. */
export function placeAt(parent: Node, node: Node, prev: Node | null): void {
  const want = prev ? prev.nextSibling : parent.firstChild;
  if (want !== node) parent.insertBefore(node, want);
}

/** Drops the entries of `map` whose key is not in `keys`, handing each to `drop`. */
export function keepOnly<K, V>(map: Map<K, V>, keys: Set<K>, drop?: (value: V) => void): void {
  for (const [key, value] of map) {
    if (keys.has(key)) continue;
    map.delete(key);
    if (drop) drop(value);
  }
}
