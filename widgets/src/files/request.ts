// The file view's request/reply convention: each request carries a `seq` unique to the view, and
// its reply echoes it.

import type { FilesReply, FilesRequest } from "../types";

/** Sends `message`; `onReply` gets the reply. Returns the request's seq. */
export type Request = <R extends FilesReply = any>(message: FilesRequest, onReply: (reply: R) => void) => string;
