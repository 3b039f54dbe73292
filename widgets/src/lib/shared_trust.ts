// A collaborator's run shows live here too (real-time collaboration, jupyter-collaboration).
//
// JupyterLab renders a widget only in a trusted output. A cell is trusted in the page that runs it,
// and that page writes `trusted: true` into the shared cell's metadata; a page that opens the
// notebook afterwards reads the flag and trusts the cell. But a page that was already open read it
// only when it opened, so the outputs of a run a collaborator started arrive there untrusted, and
// JupyterLab shows the run's sanitized snapshot (frozen, unstyled, no approval cards) instead of the
// live view, until that person trusts the whole notebook.
//
// So in a collaborative notebook, a cell that the shared document marks trusted, and whose outputs
// hold a deepnb view of a model this page's widget manager has from the running kernel, is trusted
// here as a page opened now would trust it: the cell's views draw live and their cards work. Cells
// without a live deepnb view, and outputs saved in the file (their models are gone), are left as
// they are; nothing here trusts what the notebook's own flag does not.

import { deepnbModelIds, type NotebookManager } from "./saved_snapshots";

const WIDGET_VIEW = "application/vnd.jupyter.widget-view+json";
const FOLLOWS = Symbol.for("deepnb.followsSharedTrust");

interface Slot {
  connect(slot: () => void): unknown;
}

/** What deepnb reads of a JupyterLab code cell's model. */
export interface CellModel {
  readonly type: string;
  trusted: boolean;
  getMetadata(key: string): unknown;
  readonly metadataChanged?: Slot;
  readonly outputs?: { readonly length: number; get(index: number): { readonly data?: Record<string, unknown> }; readonly changed?: Slot };
}

/** What deepnb reads of a JupyterLab notebook model: whether it is a shared document, its cells. */
export interface SharedNotebook {
  readonly collaborative?: boolean;
  readonly cells: Iterable<CellModel> & { readonly changed?: Slot };
}

type Manager = NotebookManager & { [FOLLOWS]?: () => void };

/** The model ids of the widget views among `cell`'s outputs. */
function viewIds(cell: CellModel): string[] {
  const ids: string[] = [];
  const outputs = cell.outputs;
  for (let i = 0; outputs && i < outputs.length; i++) {
    const view = (outputs.get(i).data || {})[WIDGET_VIEW] as { model_id?: unknown } | undefined;
    if (view && view.model_id) ids.push(String(view.model_id));
  }
  return ids;
}

/** Trusts each cell of `notebook` that the shared document marks trusted and that shows one of the
 * live deepnb views `live` names; returns how many it trusted. */
export function trustSharedRuns(notebook: SharedNotebook, live: Set<string>): number {
  let trusted = 0;
  for (const cell of notebook.cells) {
    if (cell.type !== "code" || cell.trusted || cell.getMetadata("trusted") !== true) continue;
    if (!viewIds(cell).some((id) => live.has(id))) continue;
    cell.trusted = true;
    trusted++;
  }
  return trusted;
}

/** Once per collaborative notebook (its widget manager): its cells follow the shared document's
 * trust as above, checked whenever a cell, its outputs or its metadata change. A view's output
 * usually arrives by the shared document after its model came from the kernel, so the check runs
 * while JupyterLab applies that change, and the re-trusted outputs are not written back to the
 * shared document. Each call (a deepnb model created in this page) checks again once the manager
 * holds the new model: its view may be in an output already. */
export function followSharedTrust(manager: Manager | undefined): void {
  const notebook = manager && manager.context && (manager.context.model as unknown as SharedNotebook | undefined);
  if (!manager || !notebook || !notebook.collaborative || !notebook.cells) return;
  if (!manager[FOLLOWS]) {
    const check = (): void => {
      try {
        trustSharedRuns(notebook, deepnbModelIds(manager));
      } catch (error) {
        console.error("deepnb: could not follow the shared notebook's trust", error);
      }
    };
    const watched = new WeakSet<CellModel>();
    const watch = (): void => {
      for (const cell of notebook.cells) {
        if (cell.type !== "code" || watched.has(cell)) continue;
        watched.add(cell);
        if (cell.outputs && cell.outputs.changed) cell.outputs.changed.connect(check);
        if (cell.metadataChanged) cell.metadataChanged.connect(check);
      }
    };
    if (notebook.cells.changed) notebook.cells.changed.connect(() => (watch(), check()));
    watch();
    manager[FOLLOWS] = check;
  }
  setTimeout(manager[FOLLOWS]!, 0);
}
