// The kernel's custom messages to the run view, each handed to the part it answers: a file to the
// file peek; the others offered to each receiver in turn until one takes it.

import { isObj } from "../lib/text";
import type { FileMessage } from "../types";

export interface Receiver { receive(msg: unknown): boolean }

/** What the view runs on `msg:custom`. `receivers` are asked in their order. */
export function messageRouter(peek: { receive(msg: FileMessage): void }, receivers: Receiver[]): (msg: unknown) => void {
  return (msg) => {
    if (isObj(msg) && msg.type === "file") peek.receive(msg as FileMessage);
    else receivers.some((part) => part.receive(msg));
  };
}
