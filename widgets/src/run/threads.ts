// The thread switcher: this agent's threads (asked for when opened, Python answers through the
// session protocol), and a click shows one thread's latest state below, read-only. The view's own
// run stays as it is. Thread ids and times are text; the state's `html` was escaped in Python
// (deepnb/views/run/thread_preview.py).

import { h, setText, show, smallButton } from "../lib/dom";
import { asksKernel } from "./kernel_gate";
import { armImages } from "../lib/images";
import { isObj, list, num, str } from "../lib/text";
import type { RunOutgoing } from "../types";

interface ThreadRow { thread_id: string; updated_at: string; steps: number }

export interface ThreadsMessage { type: "threads"; threads: ThreadRow[]; error: string }
export interface ThreadMessage { type: "thread"; thread_id: string; html: string; messages: number; error: string }

interface Sender {
  get(name: "thread_id"): string;
  send(content: RunOutgoing): void;
}

export interface ThreadsView {
  el: HTMLElement;
  /** Takes the kernel's `threads` or `thread` reply; returns whether it was one. */
  receive(msg: unknown): boolean;
  dispose(): void;
}

/** The toggle and the thread buttons ask the kernel: once it is gone the run view's gate answers them. */
export function threadsView(model: Sender): ThreadsView {
  const el = h("div", "dnb-threads");
  const toggle = asksKernel(smallButton("dnb-threads-toggle", "Threads", "This agent's threads: show one, read-only"));
  toggle.setAttribute("aria-expanded", "false");
  const panel = h("div", "dnb-threads-panel");
  panel.setAttribute("role", "region");
  panel.setAttribute("aria-label", "Threads of this agent");
  panel.hidden = true;
  const status = h("div", "dnb-threads-status dnb-muted");
  status.setAttribute("aria-live", "polite");
  const listEl = h("ul", "dnb-threads-list");
  const shown = h("div", "dnb-thread-shown");
  shown.hidden = true;
  const shownHead = h("div", "dnb-thread-shown-head");
  const shownTitle = h("span", "dnb-thread-shown-title");
  const close = smallButton("dnb-thread-close", "×", "Close this thread");
  close.setAttribute("aria-label", "Close this thread");
  shownHead.append(shownTitle, close);
  const shownBody = h("div", "dnb-thread-shown-body");
  shown.append(shownHead, shownBody);
  panel.append(status, listEl, shown);
  el.append(toggle, panel);
  let asked: string | null = null; // the thread whose state is on its way

  function onToggle(): void {
    const open = panel.hidden;
    panel.hidden = !open;
    toggle.setAttribute("aria-expanded", String(open));
    if (!open) return;
    model.send({ type: "threads" });
    setText(status, "Loading the threads…");
  }

  function onList(event: MouseEvent): void {
    const btn = (event.target as Element).closest && (event.target as Element).closest<HTMLElement>(".dnb-thread-pick");
    if (!btn) return;
    const id = btn.getAttribute("data-thread") || "";
    model.send({ type: "show_thread", thread_id: id });
    asked = id;
    shown.hidden = false;
    setText(shownTitle, `Thread ${id} — loading…`);
    shownBody.replaceChildren();
  }

  function showList(msg: ThreadsMessage): void {
    const rows = list(msg.threads).filter(isObj) as ThreadRow[];
    const current = str(model.get("thread_id"));
    setText(status, str(msg.error) || (rows.length ? `${rows.length} thread${rows.length === 1 ? "" : "s"}, newest first`
      : "No threads yet."));
    listEl.replaceChildren(...rows.map((row) => {
      const id = str(row.thread_id);
      const btn = asksKernel(smallButton("dnb-thread-pick", undefined, `Show thread ${id} (read-only)`));
      btn.setAttribute("data-thread", id);
      btn.append(h("code", "dnb-thread-id", id), h("span", "dnb-muted",
        ` · ${num(row.steps)} step${num(row.steps) === 1 ? "" : "s"} · ${str(row.updated_at).replace("T", " ")}`));
      if (id === current) btn.append(h("span", "dnb-thread-here", " · this run"));
      const li = h("li");
      li.append(btn);
      return li;
    }));
  }

  function showThread(msg: ThreadMessage): void {
    const id = str(msg.thread_id);
    if (asked === null || id !== asked) return; // closed, or another thread asked for since
    asked = null;
    if (msg.error) {
      setText(shownTitle, `Thread ${id}`);
      shownBody.replaceChildren(h("div", "dnb-error", msg.error));
      return;
    }
    setText(shownTitle, `Thread ${id} — latest state, read-only (${num(msg.messages)} messages)`);
    shownBody.innerHTML = str(msg.html); // escaped in Python (thread_preview)
    armImages(shownBody);
  }

  function onClose(): void {
    asked = null;
    shown.hidden = true;
    shownBody.replaceChildren();
  }

  function receive(msg: unknown): boolean {
    if (!isObj(msg)) return false;
    if (msg.type === "threads") showList(msg as unknown as ThreadsMessage);
    else if (msg.type === "thread") showThread(msg as unknown as ThreadMessage);
    else return false;
    return true;
  }

  toggle.addEventListener("click", onToggle);
  listEl.addEventListener("click", onList);
  close.addEventListener("click", onClose);
  show(el, true);

  return {
    el,
    receive,
    dispose() {
      toggle.removeEventListener("click", onToggle);
      listEl.removeEventListener("click", onList);
      close.removeEventListener("click", onClose);
    },
  };
}
