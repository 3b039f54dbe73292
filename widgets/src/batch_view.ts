// deepnb batch grid: a row per input of a batch (status, step, tool calls, tokens, time, the
// answer's first line, a waiting-for-approval mark), progress with an estimate of the time left,
// a Stop for every run, and a click on a row that opens that run's live view below the grid
// (anywidget ESM module).
//
// Security: every string goes into the DOM as text (lib/dom.ts); nothing here sets HTML.
//
// Protocol (deepnb/views/batch/batch_view.py): the `rows` trait holds the grid as last synced in full;
// `{type: "rows", rows, progress?}` messages carry the rows that changed since. The view sends
// `hello` when it opens (the kernel answers with every row), `open {index}`, `close` and `stop`.

import type { AnyModel } from "@anywidget/types";
import { detailView, type Manager } from "./batch/detail";
import { progressView } from "./batch/progress";
import { rowsView } from "./batch/rows";
import { h, setText, smallButton } from "./lib/dom";
import { sendIfLive, watchKernel } from "./lib/kernel";
import { type NotebookManager, saveViewsAsSnapshots } from "./lib/saved_snapshots";
import { isObj, list, num, str } from "./lib/text";

interface BatchTraits {
  agent: string;
  total: number;
  rows: unknown[];
  progress: Record<string, unknown>;
  detail: string;
  selected: number;
  notice: string;
}

const GONE = "The kernel restarted or shut down: the grid shows the runs as they last were.";

function render({ model, el }: { model: AnyModel<BatchTraits>; el: HTMLElement }): () => void {
  const manager = (model as { widget_manager?: NotebookManager & Manager }).widget_manager;
  saveViewsAsSnapshots(manager);
  let gone = false;
  const root = h("div", "deepnb deepnb-batch");
  root.setAttribute("role", "region");
  root.setAttribute("aria-label", "Batch");
  const head = h("div", "dnb-batch-head");
  const title = h("span", "dnb-batch-title");
  const progress = progressView();
  const stop = smallButton("dnb-batch-stop", "■ Stop all", "Stop every run of the batch and drop the queued inputs");
  head.append(title, progress.el, stop);
  const notice = h("div", "dnb-batch-notice");
  notice.setAttribute("role", "status");
  const scroller = h("div", "dnb-batch-scroll");
  const rows = rowsView();
  scroller.append(rows.el);
  const detail = detailView(() => manager);
  root.append(head, notice, scroller, detail.el);
  el.replaceChildren(root);

  const send = (message: Record<string, unknown>): void => {
    if (gone || !sendIfLive(() => model.send(message))) setText(notice, GONE);
  };

  function onTitle(): void {
    setText(title, `Batch · ${str(model.get("agent"))} · ${num(model.get("total"))} inputs`);
  }
  function onRows(): void {
    rows.put(list(model.get("rows")));
  }
  function onProgress(): void {
    const p = model.get("progress");
    progress.set(p);
    const going = isObj(p) && (num(p.running) > 0 || num(p.queued) > 0 || num(p.interrupted) > 0);
    stop.disabled = gone || !going;
  }
  function onDetail(): void {
    rows.select(num(model.get("selected")));
    void detail.show(str(model.get("detail")));
  }
  function onNotice(): void {
    setText(notice, str(model.get("notice")));
  }
  function onMessage(message: unknown): void {
    if (!isObj(message) || message.type !== "rows") return;
    rows.put(list(message.rows));
    if (isObj(message.progress)) {
      progress.set(message.progress);
      const p = message.progress;
      stop.disabled = gone || !(num(p.running) > 0 || num(p.queued) > 0 || num(p.interrupted) > 0);
    }
  }
  function rowOf(target: EventTarget | null): number | null {
    const node = target as Element | null;
    const tr = node && node.closest ? node.closest(".dnb-batch-row") : null;
    return tr && rows.body.contains(tr) ? num(tr.getAttribute("data-index")) : null;
  }
  function onClick(event: Event): void {
    const index = rowOf(event.target);
    if (index === null) return;
    send(index === num(model.get("selected")) ? { type: "close" } : { type: "open", index });
  }
  function onKey(event: KeyboardEvent): void {
    if (event.key !== "Enter" && event.key !== " ") return;
    const index = rowOf(event.target);
    if (index === null) return;
    event.preventDefault();
    event.stopPropagation();
    send({ type: "open", index });
  }
  function onStop(): void {
    stop.disabled = true;
    send({ type: "stop" });
  }

  const handlers: Record<string, (...args: any[]) => void> = {
    "msg:custom": onMessage,
    "change:agent": onTitle,
    "change:total": onTitle,
    "change:rows": onRows,
    "change:progress": onProgress,
    "change:detail": onDetail,
    "change:selected": onDetail,
    "change:notice": onNotice,
  };
  onTitle();
  onRows();
  onProgress();
  onNotice();
  onDetail();
  for (const [name, handler] of Object.entries(handlers)) model.on(name, handler);
  scroller.addEventListener("click", onClick);
  scroller.addEventListener("keydown", onKey);
  stop.addEventListener("click", onStop);
  const timer = setInterval(() => progress.tick(), 1000);
  const unwatch = watchKernel(model, () => {
    gone = true;
    stop.disabled = true;
    setText(notice, GONE);
  });
  send({ type: "hello" });

  return () => {
    for (const [name, handler] of Object.entries(handlers)) model.off(name, handler);
    scroller.removeEventListener("click", onClick);
    scroller.removeEventListener("keydown", onKey);
    stop.removeEventListener("click", onStop);
    clearInterval(timer);
    detail.dispose();
    unwatch();
  };
}

export default { render };
