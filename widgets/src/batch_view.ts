// deepnb batch grid: a row per input of a batch (status, step, tool calls, tokens, time, the
// answer's first line, a waiting-for-approval mark), progress with an estimate of the time left,
// a Stop for every run, sort by any column (click its header, again to reverse), filter by text,
// and a click on a row that opens that run's live view below the grid, which Escape closes
// (anywidget ESM module). Its frame (region, notice, Stop, the open run, the kernel's going) is
// lib/view_shell.ts's, shared with the experiment matrix.
//
// Security: every string goes into the DOM as text (lib/dom.ts); nothing here sets HTML.
//
// Protocol (deepnb/views/batch/batch_view.py): the `rows` trait holds the grid as last synced in full;
// `{type: "rows", rows, progress?}` messages carry the rows that changed since. The view sends
// `hello` when it opens (the kernel answers with every row), `open {index}`, `close` and `stop`.

import type { AnyModel } from "@anywidget/types";
import { detailView, type Manager } from "./batch/detail";
import { type ProgressView, progressView } from "./batch/progress";
import { type RowsView, rowsView } from "./batch/rows";
import { h, setText } from "./lib/dom";
import { isObj, list, num, str } from "./lib/text";
import {
  closestIn, escapeCloses, filterBox, isActivation, listen, type LiveShell, liveShell, type LiveWiring, mountShell,
  openShell, type ShellOptions,
} from "./lib/view_shell";

interface BatchTraits {
  agent: string;
  total: number;
  rows: unknown[];
  progress: Record<string, unknown>;
  detail: string;
  selected: number;
  notice: string;
}

/** What the grid sends to open a row's run. */
type OpenRow = { type: "open"; index: number };

type BatchShell = LiveShell<OpenRow>;

const SHELL: ShellOptions = {
  root: "deepnb deepnb-batch",
  label: "Batch",
  head: "dnb-batch-head",
  notice: "dnb-batch-notice",
  gone: "The kernel restarted or shut down: the grid shows the runs as they last were.",
  stop: { cls: "dnb-batch-stop", label: "■ Stop all", title: "Stop every run of the batch and drop the queued inputs" },
};

/** Whether a batch's progress has runs that have not ended (Stop has something to stop). */
function isGoing(progress: unknown): boolean {
  return isObj(progress) && (num(progress.running) > 0 || num(progress.queued) > 0 || num(progress.interrupted) > 0);
}

/** The grid's parts that follow the model: the title, the progress line and the rows. */
interface GridParts {
  title: HTMLElement;
  progress: ProgressView;
  rows: RowsView;
}

/** What the grid draws from its traits and from the kernel's `rows` messages. */
function gridWiring(
  model: AnyModel<BatchTraits>, shell: BatchShell, { title, progress, rows }: GridParts,
): Omit<LiveWiring<BatchTraits>, "undo"> {
  const onTitle = (): void =>
    setText(title, `Batch · ${str(model.get("agent"))} · ${num(model.get("total"))} inputs`);
  const onRows = (): void => rows.put(list(model.get("rows")));
  const showProgress = (p: unknown): void => {
    progress.set(p);
    shell.stop.disabled = shell.isGone() || !isGoing(p);
  };
  const onProgress = (): void => showProgress(model.get("progress"));
  const markOpen = (): void => rows.select(num(model.get("selected")));
  const onMessage = (message: unknown): void => {
    if (!isObj(message) || message.type !== "rows") return;
    rows.put(list(message.rows));
    if (isObj(message.progress)) showProgress(message.progress);
  };
  return {
    handlers: {
      "msg:custom": onMessage,
      "change:agent": onTitle,
      "change:total": onTitle,
      "change:rows": onRows,
      "change:progress": onProgress,
    },
    draw() {
      onTitle();
      onRows();
      onProgress();
      markOpen();
    },
    markOpen,
  };
}

/** A click on a header sorts by its column; a click on a row opens its run (on the open row:
 * closes it); Enter or Space on either does the same; Escape closes the open run; typing in `find`
 * filters. Returns what removes the listeners. */
function rowControls(
  model: AnyModel<BatchTraits>, shell: BatchShell, rows: RowsView, scroller: HTMLElement, find: HTMLInputElement,
): (() => void)[] {
  const rowOf = (target: EventTarget | null): number | null => {
    const tr = closestIn(target, ".dnb-batch-row", rows.body);
    return tr ? num(tr.getAttribute("data-index")) : null;
  };
  const onClick = (event: Event): void => {
    if (rows.sortOn(event.target)) return;
    const index = rowOf(event.target);
    if (index === null) return;
    shell.toggle(index === num(model.get("selected")), { type: "open", index });
  };
  const onKey = (event: KeyboardEvent): void => {
    if (!isActivation(event)) return;
    if (rows.sortOn(event.target)) {
      event.preventDefault();
      return;
    }
    const index = rowOf(event.target);
    if (index === null) return;
    event.preventDefault();
    event.stopPropagation();
    shell.send({ type: "open", index });
  };
  const onEscape = (event: KeyboardEvent): void => void escapeCloses(event, model, shell);
  const onFilter = (): void => {
    const shown = rows.filter(find.value);
    find.title = find.value.trim() ? `${shown} of ${rows.count()} rows hold it` : "";
  };
  return [
    listen(scroller, "click", onClick),
    listen(scroller, "keydown", onKey),
    listen(shell.root, "keydown", onEscape),
    listen(find, "input", onFilter),
  ];
}

function render({ model, el }: { model: AnyModel<BatchTraits>; el: HTMLElement }): () => void {
  const shell = liveShell<BatchTraits, OpenRow, Manager>(model, SHELL, detailView);
  const title = h("span", "dnb-batch-title");
  const progress = progressView();
  const find = filterBox("dnb-batch-filter", "Filter rows by their input or answer");
  const scroller = h("div", "dnb-batch-scroll");
  const rows = rowsView();
  scroller.append(rows.el);
  mountShell(el, shell, [title, progress.el, find], [scroller]);
  const controls = rowControls(model, shell, rows, scroller, find);
  const timer = setInterval(() => progress.tick(), 1000);
  return openShell(model, shell, {
    ...gridWiring(model, shell, { title, progress, rows }),
    undo: [...controls, () => clearInterval(timer)],
  });
}

export default { render };
