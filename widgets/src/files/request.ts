// The file view's request/reply convention: each request carries a `seq` unique to the view, and
// its reply echoes it.

import type { AnyModel } from "@anywidget/types";
import { sendIfLive, watchKernel } from "../lib/kernel";
import { str } from "../lib/text";
import type { FilesReply, FilesRequest, FilesTraits } from "../types";

/** Sends `message`; `onReply` gets the reply. Returns the request's seq. */
export type Request = <R extends FilesReply = any>(message: FilesRequest, onReply: (reply: R) => void) => string;

/** What a request gets once the kernel is gone: an error reply, at once. */
const GONE = "The kernel restarted or shut down: run %deepagent files again to browse.";

/** A view's requests and the replies they wait for. */
export interface Channel {
  request: Request;
  /** Hands a reply to the request it answers (another view's reply is left alone). */
  answer(reply: Record<string, unknown>): void;
  dispose(): void;
}

/** The requests of the view `viewId` over `model`'s comm; once the kernel is gone, each is
 * answered at once with an error. */
export function requestChannel(model: AnyModel<FilesTraits>, viewId: string): Channel {
  let counter = 0;
  const waiting = new Map<string, (reply: any) => void>(); // seq → what to do with the reply
  let gone = false; // no kernel behind the view (it restarted or shut down)
  const unwatch = watchKernel(model, () => {
    gone = true;
  });

  const request: Request = (message, onReply) => {
    const seq = `${viewId}:${++counter}`;
    if (gone || !sendIfLive(() => model.send({ ...message, seq }))) {
      onReply({ seq, error: GONE } as Parameters<typeof onReply>[0]);
      return seq;
    }
    waiting.set(seq, onReply);
    return seq;
  };

  return {
    request,
    answer(reply) {
      const seq = str(reply.seq);
      const onReply = waiting.get(seq);
      if (!onReply) return; // another view's reply
      waiting.delete(seq);
      onReply(reply);
    },
    dispose() {
      waiting.clear();
      unwatch();
    },
  };
}
