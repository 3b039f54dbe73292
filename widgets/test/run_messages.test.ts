// The kernel's messages to the run view: a file goes to the file peek, any other to the first part
// that takes it, in order (the follow-up box, the timeline, the panels, the threads).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { messageRouter } from "../src/run/run_messages";

describe("the run view's messages", () => {
  it("hands a file to the peek and the others to the first part that takes them", () => {
    const got: string[] = [];
    const part = (name: string, takes: string) => ({
      receive(msg: unknown) { got.push(name); return (msg as { type?: string }).type === takes; },
    });
    const route = messageRouter({ receive: (msg) => { got.push(`peek ${msg.path}`); } },
      [part("compose", "composed"), part("timeline", "timeline"), part("panels", "graph"), part("threads", "threads")]);
    route({ type: "file", path: "/a.md" });
    assert.deepEqual(got.splice(0), ["peek /a.md"]);
    route({ type: "timeline" });
    assert.deepEqual(got.splice(0), ["compose", "timeline"]);
    route({ type: "threads" });
    assert.deepEqual(got.splice(0), ["compose", "timeline", "panels", "threads"]);
    route("not an object");
    assert.deepEqual(got.splice(0), ["compose", "timeline", "panels", "threads"]);
  });
});
