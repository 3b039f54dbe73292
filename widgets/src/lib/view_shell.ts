// The shell of a live view: its listeners on the model and the page, added when it opens and
// removed when it closes. And the frame the two grid views share, the batch grid (batch_view.ts)
// and the experiment matrix (experiment_view.ts): a labelled region with a head ending in Stop, a
// notice line, and the open run's live view below; a send that says so once the kernel is gone;
// `hello` once the view is drawn.
//
// Security: every string goes into the DOM as text (lib/dom.ts); nothing here sets HTML.
//
// Protocol (BATCH_MESSAGES in deepnb/views/batch/batch_view.py, MATRIX_MESSAGES in
// deepnb/views/experiment/experiment_live.py): both views send `hello`, `stop`, `close` and their
// own `open`; both sync `detail` (the open run's model id), `selected` and `notice`.

import type { AnyModel } from "@anywidget/types";
import { h, setText, smallButton } from "./dom";
import { sendIfLive, watchKernel } from "./kernel";
import { type NotebookManager, saveViewsAsSnapshots } from "./saved_snapshots";
import { str } from "./text";

// -- listeners ------------------------------------------------------------------------------------

/** What a view does on its model's events: a handler per trait it follows, and one for the kernel's
 * messages. */
export type ModelHandlers<T extends object> =
  { [K in keyof T & string as `change:${K}`]?: () => void } & { "msg:custom"?: (message: unknown) => void };

/** Registers each of `handlers` on `model`; returns what removes them. */
export function listenToModel<T extends object>(model: AnyModel<T>, handlers: ModelHandlers<T>): () => void {
  const pairs = Object.entries(handlers) as [string, (...args: any[]) => void][];
  for (const [name, handler] of pairs) model.on(name, handler);
  return () => {
    for (const [name, handler] of pairs) model.off(name, handler);
  };
}

/** Adds `handler` for `type` on `node`; returns what removes it. */
export function listen<K extends keyof HTMLElementEventMap>(
  node: HTMLElement, type: K, handler: (event: HTMLElementEventMap[K]) => void,
): () => void {
  node.addEventListener(type, handler);
  return () => node.removeEventListener(type, handler);
}

/** One function that calls each of `undo` in turn (what a view runs when it closes). */
export function undoAll(undo: (() => void)[]): () => void {
  return () => {
    for (const fn of undo) fn();
  };
}

/** The element matching `selector` at or above `target`, when it lies inside `container`. */
export function closestIn(target: EventTarget | null, selector: string, container: Element): Element | null {
  const node = target as Element | null;
  const found = node && node.closest ? node.closest(selector) : null;
  return found && container.contains(found) ? found : null;
}

/** Whether `event` is a key that opens what has focus (Enter or Space). */
export const isActivation = (event: KeyboardEvent): boolean => event.key === "Enter" || event.key === " ";

/** The notebook's widget manager behind `model` (none in front ends without one), its saves set
 * to write deepnb's views as snapshots. `M` is what the view uses of it beyond that. */
export function notebookManager<M extends object = object>(model: object): (NotebookManager & M) | undefined {
  const manager = (model as { widget_manager?: NotebookManager & M }).widget_manager;
  saveViewsAsSnapshots(manager);
  return manager;
}

// -- the grid views' frame ------------------------------------------------------------------------

/** The traits both grid views sync: the open run's model id, which run is open, the kernel's notice;
 * and, in the experiment's matrix, the open run read from its log (its record's safe HTML). */
export interface ShellTraits {
  detail: string;
  logged?: string;
  selected: unknown;
  notice: string;
}

/** What both grid views send; `O` is the view's own `open`. */
export type ShellMessage<O extends { type: "open" }> = { type: "hello" } | { type: "stop" } | { type: "close" } | O;

/** The open run's live view, or a logged run's record (batch/detail.ts detailView). */
export interface RunPanel {
  el: HTMLElement;
  show(modelId: string): Promise<void>;
  showRecord(html: string): void;
  dispose(): void;
}

/** The view's classes and words. */
export interface ShellOptions {
  /** The root's classes ("deepnb deepnb-batch") and the region's label. */
  root: string;
  label: string;
  head: string;
  notice: string;
  /** What the notice says once the kernel is gone. */
  gone: string;
  /** Stop's class, label and tooltip. */
  stop: { cls: string; label: string; title: string };
}

export interface LiveShell<O extends { type: "open" }> {
  root: HTMLDivElement;
  head: HTMLDivElement;
  notice: HTMLDivElement;
  stop: HTMLButtonElement;
  panel: RunPanel;
  /** Sends `message`; once the kernel is gone (or the send fails) the notice says so instead. */
  send(message: ShellMessage<O>): void;
  /** Sends `open`, or `close` when its run is the one open already. */
  toggle(isOpen: boolean, open: O): void;
  /** Whether the kernel behind the view is gone. */
  isGone(): boolean;
  /** The kernel is gone: nothing more is sent, Stop is off, the notice says so. */
  markGone(): void;
}

/** A labelled region: a view's root. */
export function viewRegion(cls: string, label: string): HTMLDivElement {
  const root = h("div", cls);
  root.setAttribute("role", "region");
  root.setAttribute("aria-label", label);
  return root;
}

/** A grid view's box that filters its rows by text (`label` says by what). */
export function filterBox(cls: string, label: string): HTMLInputElement {
  const find = h("input", cls);
  find.type = "search";
  find.placeholder = "Filter rows";
  find.setAttribute("aria-label", label);
  find.setAttribute("data-lm-suppress-shortcuts", "true");
  return find;
}

/** Whether a key press is Escape while a run is open below the grid; if so it asks the kernel to
 * close it (and the key goes no further). */
export function escapeCloses<T extends ShellTraits>(
  event: KeyboardEvent, model: AnyModel<T>, shell: LiveShell<{ type: "open" }>,
): boolean {
  if (event.key !== "Escape" || !isOpen(model)) return false;
  event.preventDefault();
  event.stopPropagation();
  shell.send({ type: "close" });
  return true;
}

/** Whether a run is open below the grid: a live run's view, or a logged run's record. */
function isOpen<T extends ShellTraits>(model: AnyModel<T>): boolean {
  return Boolean(str(model.get("detail")) || str(model.get("logged")));
}

/** A line screen readers announce when it changes. */
export function statusLine(cls: string): HTMLDivElement {
  const line = h("div", cls);
  line.setAttribute("role", "status");
  return line;
}

/** The frame of a grid view. `openPanel` makes the open run's view from the widget manager. */
export function liveShell<T extends ShellTraits, O extends { type: "open" }, M extends object>(
  model: AnyModel<T>, options: ShellOptions, openPanel: (manager: () => M | undefined) => RunPanel,
): LiveShell<O> {
  const manager = notebookManager<M>(model);
  let gone = false;
  const root = viewRegion(options.root, options.label);
  const head = h("div", options.head);
  const notice = statusLine(options.notice);
  const stop = smallButton(options.stop.cls, options.stop.label, options.stop.title);
  const panel = openPanel(() => manager);
  const send = (message: ShellMessage<O>): void => {
    if (gone || !sendIfLive(() => model.send(message))) setText(notice, options.gone);
  };
  return {
    root, head, notice, stop, panel, send,
    toggle: (isOpen, open) => send(isOpen ? { type: "close" } : open),
    isGone: () => gone,
    markGone() {
      gone = true;
      stop.disabled = true;
      setText(notice, options.gone);
    },
  };
}

/** Puts the frame into `el`: the head (`head`, then Stop), the notice, `body`, and the open run's view. */
export function mountShell<O extends { type: "open" }>(
  el: HTMLElement, shell: LiveShell<O>, head: HTMLElement[], body: HTMLElement[],
): void {
  shell.head.append(...head, shell.stop);
  shell.root.append(shell.head, shell.notice, ...body, shell.panel.el);
  el.replaceChildren(shell.root);
}

/** What a grid view adds to its frame when it opens. */
export interface LiveWiring<T extends ShellTraits> {
  /** The view's own trait handlers (the frame follows `notice`, `detail` and `selected`). */
  handlers: Omit<ModelHandlers<T>, "change:notice" | "change:detail" | "change:logged" | "change:selected">;
  /** Draws the view from its traits as they are (the frame then draws the notice and the open run). */
  draw(): void;
  /** Marks the open run's row or cell, when `detail` or `selected` changes. */
  markOpen(): void;
  /** The view's own listeners, each as what removes it, and what else its close undoes. */
  undo: (() => void)[];
}

/** Opens a grid view: draws it, follows its model, Stop and the kernel, and says `hello`. Returns
 * what closes it. */
export function openShell<T extends ShellTraits, O extends { type: "open" }>(
  model: AnyModel<T>, shell: LiveShell<O>, wiring: LiveWiring<T>,
): () => void {
  const showNotice = (): void => setText(shell.notice, str(model.get("notice")));
  const showRun = (): void => {
    const logged = str(model.get("logged"));
    if (logged) shell.panel.showRecord(logged);
    else void shell.panel.show(str(model.get("detail")));
  };
  const onOpen = (): void => {
    wiring.markOpen();
    showRun();
  };
  const onStop = (): void => {
    shell.stop.disabled = true;
    shell.send({ type: "stop" });
  };
  wiring.draw();
  showNotice();
  showRun();
  const handlers = { ...wiring.handlers, "change:notice": showNotice, "change:detail": onOpen,
    "change:logged": onOpen, "change:selected": onOpen } as ModelHandlers<T>;
  const stopListening = listenToModel(model, handlers);
  const stopClicks = listen(shell.stop, "click", onStop);
  const unwatch = watchKernel(model, () => shell.markGone());
  shell.send({ type: "hello" });
  return undoAll([stopListening, ...wiring.undo, stopClicks, () => shell.panel.dispose(), unwatch]);
}
