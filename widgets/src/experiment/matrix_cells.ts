// The matrix's cells as places: the cell (and epoch) at a click or a key, the cell element of a
// dataset row and variant, the focus kept on a cell (or its epoch button) across a redraw; and the
// samples the matrix shows, in its order, for the sample view's previous and next.

import { isObj, list, num, str } from "../lib/text";
import { closestIn } from "../lib/view_shell";
import type { FilteredCell } from "./filters";
import type { SampleKey } from "./sample";

/** A cell of the matrix: its dataset row and variant (and an epoch of it, from its strip). */
export interface CellKey { row: number; variant: string; epoch?: number }

/** The cell that has the focus, and whether it is on one of its epoch buttons. */
export interface Focused { key: CellKey; epoch: boolean }

export interface MatrixCells {
  /** The cell at `target` (with the epoch of its strip's button there), if any. */
  cellOf(target: EventTarget | null): CellKey | null;
  /** The cell element of `key`, if it is shown. */
  cellAt(key: CellKey): HTMLElement | null;
  /** The cell (and epoch button) that has the focus, if one has. */
  focused(): Focused | null;
  /** Puts the focus back on `focused`'s cell (or its epoch button) once it is drawn again. */
  refocus(focused: Focused): void;
}

/** The cells of the matrix's body `tbody`. */
export function matrixCells(tbody: HTMLElement): MatrixCells {
  function cellOf(target: EventTarget | null): CellKey | null {
    const td = closestIn(target, ".dnb-experiment-cell", tbody);
    if (!td) return null;
    const key: CellKey = { row: num(td.getAttribute("data-row")), variant: str(td.getAttribute("data-variant")) };
    const epoch = closestIn(target, "[data-epoch]", td);
    return epoch ? { ...key, epoch: num(epoch.getAttribute("data-epoch")) } : key;
  }

  function cellAt(key: CellKey): HTMLElement | null {
    return [...tbody.querySelectorAll<HTMLElement>(".dnb-experiment-cell")].find((td) =>
      td.getAttribute("data-row") === String(key.row) && td.getAttribute("data-variant") === key.variant) ?? null;
  }

  return {
    cellOf,
    cellAt,
    focused() {
      const active = tbody.ownerDocument.activeElement;
      const key = active && tbody.contains(active) ? cellOf(active) : null;
      return key ? { key, epoch: active!.hasAttribute("data-epoch") } : null;
    },
    refocus(focused) {
      const td = cellAt(focused.key);
      const button = focused.epoch ? td?.querySelector<HTMLElement>(`[data-epoch="${num(focused.key.epoch)}"]`) : null;
      (button ?? td)?.focus({ preventScroll: true });
    },
  };
}

/** The samples of `rows` in the matrix's order: each row's `variants`, each one's epochs (those
 * queued left out; a cell without epochs is its epoch 0 once it is not queued). */
export function samplesOf(rows: { r: number; cells: FilteredCell[] }[], variants: string[]): SampleKey[] {
  return rows.flatMap((row) => variants.flatMap((variant) => {
    const cell = row.cells.find((c) => c.v === variant);
    if (!cell) return [];
    const epochs = list(cell.epochs).filter(isObj);
    if (!epochs.length) return cell.kind === "queued" ? [] : [{ row: row.r, variant, epoch: 0 }];
    return epochs.flatMap((e, epoch) => (str(e.s) === "queued" ? [] : [{ row: row.r, variant, epoch }]));
  }));
}
