// Live patches. While a run streams, the kernel sends `{type: "patch"}` messages with only what
// changed (the transcript items that changed, the subagent nodes that changed, the other fields
// that changed, and the item order when it changed) instead of re-sending every trait.
// `liveModel` folds them over the synced traits and offers the model's get/set/on/off/send, so
// the view reads one source. A full sync (the run stopped; the `revision` trait grows) supersedes
// every patch.

import type { AnyModel } from "@anywidget/types";
import { sendIfLive } from "../lib/kernel";
import { isObj, list, str } from "../lib/text";
import type { Item, RunOutgoing, RunTraits, TreeNode } from "../types";

type Callback = (...args: any[]) => void;

/** The run view's model as its parts read it: the synced traits with the live patches applied. */
export interface RunModel {
  get<K extends keyof RunTraits>(name: K): RunTraits[K];
  set<K extends keyof RunTraits>(name: K, value: RunTraits[K]): void;
  save_changes(): void;
  send(message: RunOutgoing): void;
  on(event: string, fn: Callback): void;
  off(event: string, fn: Callback): void;
  dispose(): void;
}

/** Reads one synced field: `RunModel.get`, or what a test gives a part instead. */
export type Read = <K extends keyof RunTraits>(name: K) => RunTraits[K];

/** `gone()` says the kernel behind the view is gone: then nothing is sent. */
export function liveModel(widget: AnyModel<RunTraits>, gone: () => boolean = () => false): RunModel {
  const overlay = new Map<string, unknown>(); // trait name → value from patches
  const listeners = new Map<string, Set<Callback>>(); // "change:name" → callbacks
  const relays = new Map<Callback, Callback>(); // callback → the function registered on the widget
  const get = <K extends keyof RunTraits>(name: K): RunTraits[K] =>
    (overlay.has(name) ? overlay.get(name) : widget.get(name)) as RunTraits[K];
  const fire = (name: string): void => {
    for (const fn of listeners.get(`change:${name}`) || []) fn();
  };

  function onPatch(msg: unknown): void {
    if (!isObj(msg) || msg.type !== "patch") return;
    for (const [name, value] of Object.entries(isObj(msg.state) ? msg.state : {})) {
      overlay.set(name, value);
      fire(name);
    }
    upsertNodes(list(msg.nodes).filter((node) => isObj(node) && str(node.id) !== ""));
    const upsert = list(msg.upsert).filter(isObj) as Item[];
    const appended = list(msg.append_ids);
    if (!upsert.length && !Array.isArray(msg.ids) && !appended.length) return;
    const current = list(get("items")).filter(isObj) as Item[];
    const byId = new Map<unknown, Item>(current.map((item) => [item.id, item]));
    for (const item of upsert) byId.set(item.id, item);
    // `ids` is the whole order; `append_ids` names only the items added at the end.
    const ids: unknown[] = Array.isArray(msg.ids) ? msg.ids : current.map((item) => item.id).concat(appended);
    overlay.set("items", ids.map((id) => byId.get(id)).filter(Boolean));
    fire("items");
  }

  // Changed nodes replace theirs by id; new ones go at the end (the tree is in start order). Done
  // before the items, so a subagent's first items arrive to its node.
  function upsertNodes(nodes: TreeNode[]): void {
    if (!nodes.length) return;
    const tree = list(get("tree")).filter(isObj) as TreeNode[];
    const at = new Map(tree.map((node, i) => [str(node.id), i]));
    for (const node of nodes) {
      const i = at.get(str(node.id));
      if (i === undefined) at.set(str(node.id), tree.push(node) - 1);
      else tree[i] = node;
    }
    overlay.set("tree", tree);
    fire("tree");
  }

  function onFullSync(): void {
    const names = [...overlay.keys()];
    overlay.clear();
    for (const name of names) fire(name);
  }

  widget.on("msg:custom", onPatch);
  widget.on("change:revision", onFullSync);

  return {
    get,
    set: (name, value) => widget.set(name, value),
    save_changes: () => widget.save_changes(),
    send: (message) => void (gone() || sendIfLive(() => widget.send(message))),
    on(event, fn) {
      const name = event.startsWith("change:") ? event.slice(7) : null;
      const relay: Callback = (...args) => {
        if (name !== null) overlay.delete(name);
        fn(...args);
      };
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event)!.add(fn);
      relays.set(fn, relay);
      widget.on(event, relay);
    },
    off(event, fn) {
      listeners.get(event)?.delete(fn);
      const relay = relays.get(fn);
      if (relay) widget.off(event, relay);
      relays.delete(fn);
    },
    dispose() {
      widget.off("msg:custom", onPatch);
      widget.off("change:revision", onFullSync);
      listeners.clear();
    },
  };
}
