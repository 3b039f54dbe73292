// A view knows when its kernel is gone: after a restart or a shutdown nothing behind it can act on
// a click (its comm is closed, and a send on it throws "Cannot send").

interface Signal<T> {
  connect(slot: (sender: unknown, value: T) => void): unknown;
  disconnect(slot: (sender: unknown, value: T) => void): unknown;
}

/** What deepnb uses of the notebook's session (JupyterLab's and Notebook 7's `sessionContext`). */
interface Session {
  statusChanged: Signal<string>;
  kernelChanged: Signal<{ oldValue?: unknown } | null>;
}

const GONE_STATUS = new Set(["restarting", "autorestarting", "dead"]);

/** What a card says once its kernel is gone. */
export const goneText = (thread: string): string =>
  `kernel restarted — %deepagent approvals -t ${thread} brings these back`;

/** Calls `onGone` once, when the kernel behind `model`'s view restarts or shuts down. Returns what
 * stops watching. Front ends without a notebook session (VS Code, Voilà) are not watched. */
export function watchKernel(model: unknown, onGone: () => void): () => void {
  const manager = (model as { widget_manager?: { context?: { sessionContext?: Session } } }).widget_manager;
  const session = manager && manager.context && manager.context.sessionContext;
  if (!session) return () => {};
  let gone = false;
  const goneNow = (): void => {
    if (gone) return;
    gone = true;
    onGone();
  };
  const onStatus = (_sender: unknown, status: string): void => {
    if (GONE_STATUS.has(status)) goneNow();
  };
  const onKernel = (_sender: unknown, change: { oldValue?: unknown } | null): void => {
    if (change && change.oldValue) goneNow();
  };
  session.statusChanged.connect(onStatus);
  session.kernelChanged.connect(onKernel);
  return () => {
    session.statusChanged.disconnect(onStatus);
    session.kernelChanged.disconnect(onKernel);
  };
}

/** `send()`, unless the comm is closed: then a warning, not an uncaught "Cannot send". Returns
 * whether it was sent. */
export function sendIfLive(send: () => void): boolean {
  try {
    send();
    return true;
  } catch (error) {
    console.warn("deepnb: the kernel is gone, nothing was sent", error);
    return false;
  }
}
