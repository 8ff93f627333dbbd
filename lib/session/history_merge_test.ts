import assert from "node:assert/strict";
import { mergeByOverlap, overlapLength } from "./history_merge.ts";
import type { Message } from "../protocol/messages.ts";

const m = (role: "user" | "assistant", text: string): Message => ({
  role,
  content: [{ type: "text", text }],
});

Deno.test("mergeByOverlap: longest tail/head overlap", () => {
  const a = [m("user", "1"), m("assistant", "2"), m("user", "3")];
  const cases: [Message[], Message[], string[], number][] = [
    [[], [], [], 0],
    [a, [], ["1", "2", "3"], 0],
    [[], a, ["1", "2", "3"], 0],
    // The transcript continues the sidecar.
    [a, [m("assistant", "2"), m("user", "3"), m("assistant", "4")], ["1", "2", "3", "4"], 2],
    // The sidecar already holds everything the transcript has.
    [a, [m("user", "3")], ["1", "2", "3"], 1],
    [a, a, ["1", "2", "3"], 3],
    // No overlap: concatenated (a resumed child's inherited history, then its own).
    [a, [m("user", "x")], ["1", "2", "3", "x"], 0],
    // A shorter overlap is taken when the longer one does not match.
    [[m("user", "x"), m("user", "x")], [m("user", "x"), m("user", "y")], ["x", "x", "y"], 1],
  ];
  for (const [s, t, expect, k] of cases) {
    assert.equal(overlapLength(s, t), k);
    assert.deepEqual(mergeByOverlap(s, t).map((x) => (x.content[0] as { text: string }).text), expect);
  }
});
