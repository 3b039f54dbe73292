// A download: the bytes the kernel sent, saved through a Blob URL made here (never a URL from the
// kernel or from a file).

import { str } from "../lib/text";
import type { Blob64 } from "../types";

export function saveBlob(msg: Blob64): void {
  const raw = atob(str(msg.base64));
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  const url = URL.createObjectURL(new Blob([bytes], { type: str(msg.mime) || "application/octet-stream" }));
  const link = document.createElement("a");
  link.href = url; // a Blob URL made here, never a URL from the kernel
  link.download = str(msg.name) || "download";
  link.hidden = true;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
