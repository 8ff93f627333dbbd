import assert from "node:assert/strict";
import type { Message } from "../protocol/messages.ts";
import {
  recentReads,
  RESTORE_FILE_TOKENS,
  RESTORE_MAX_FILES,
  restoreReads,
  withRestored,
} from "./compaction_restore.ts";

/** An answer reading `path` and its result (an error: the gate refused it). */
function read(id: string, path: string, isError = false): Message[] {
  return [
    { role: "assistant", content: [{ type: "tool_call", id, name: "Read", input: { file_path: path } }] },
    { role: "user", content: [{ type: "tool_result", callId: id, content: "…", isError }] },
  ];
}

Deno.test("compaction restore: Claude Code's limits, pinned", () => {
  assert.equal(RESTORE_MAX_FILES, 5);
  assert.equal(RESTORE_FILE_TOKENS, 5_000);
});

Deno.test("compaction restore: the five read last, most recent first, once each; refused and kept reads left out", () => {
  const head = [
    ...read("1", "/w/a"),
    ...read("2", "/w/b"),
    ...read("3", "/w/secret", true),
    ...read("4", "/w/c"),
    ...read("5", "/w/a"),
    ...read("6", "/w/d"),
    ...read("7", "/w/e"),
    ...read("8", "/w/f"),
    ...read("9", "/w/g"),
  ];
  const kept = read("10", "/w/g");
  assert.deepEqual(recentReads(head, kept), ["/w/f", "/w/e", "/w/d", "/w/a", "/w/c"]);
  assert.deepEqual(
    recentReads(head.slice(0, 6), []),
    ["/w/b", "/w/a"],
    "the refused read of /w/secret is not done again",
  );
});

Deno.test("compaction restore: read again now; unreadable, or past 5,000 tokens, left out", async () => {
  const head = [...read("1", "/w/big"), ...read("2", "/w/gone"), ...read("3", "/w/ok")];
  const files: Record<string, string> = {
    "/w/big": "x".repeat(RESTORE_FILE_TOKENS * 4 + 4),
    "/w/ok": "1\tok",
  };
  const texts = await restoreReads(head, { kept: [], reread: (p) => Promise.resolve(files[p]) });
  assert.deepEqual(texts.map((t) => t.text), [
    '<system-reminder>\nCalled the Read tool with the following input: {"file_path":"/w/ok"}\n</system-reminder>',
    "<system-reminder>\nResult of calling the Read tool:\n1\tok\n</system-reminder>",
  ]);
  // Eleven readable files within the budget: the five read last.
  const many = Array.from({ length: 11 }, (_, i) => read(String(i), `/w/${i}`)).flat();
  const full = await restoreReads(many, {
    kept: [],
    reread: () => Promise.resolve("y".repeat(RESTORE_FILE_TOKENS * 4)),
  });
  assert.equal(full.length, 2 * 5);
  const failing = await restoreReads(head, { kept: [], reread: () => Promise.reject(new Error("gone")) });
  assert.deepEqual(failing, []);
});

Deno.test("compaction restore: after a last user message, in it; else as a hidden user message", () => {
  const texts = [{ type: "text" as const, text: "t" }];
  const endsUser: Message[] = [{ role: "user", content: [{ type: "text", text: "s" }] }];
  assert.deepEqual(withRestored(endsUser, texts), [{
    role: "user",
    content: [{ type: "text", text: "s" }, ...texts],
  }]);
  const endsAnswer: Message[] = [...endsUser, { role: "assistant", content: [{ type: "text", text: "a" }] }];
  assert.deepEqual(withRestored(endsAnswer, texts).at(-1), { role: "user", content: texts, hidden: true });
  assert.equal(withRestored(endsAnswer, []), endsAnswer);
});
