import assert from "node:assert/strict";
import { type HookEnd, type HookVerdict, mergeVerdicts, verdictOf } from "./hook_output.ts";
import type { HookEvent } from "../protocol/hook_config.ts";

const run = (code: number, stdout = "", stderr = ""): HookEnd => ({ code, stdout, stderr });
const json = (o: unknown) => run(0, JSON.stringify(o) + "\n");

Deno.test("verdictOf: exit codes and JSON answers as Claude Code 2.1.332 reads them", () => {
  const cases: [HookEvent, HookEnd, HookVerdict][] = [
    ["PreToolUse", run(0), {}],
    [
      "PreToolUse",
      run(2, "", "No forbidden commands\n"),
      { block: "[h]: No forbidden commands\n", blockReason: "No forbidden commands" },
    ],
    ["PreToolUse", run(2), { block: "[h]: No stderr output", blockReason: "No stderr output" }],
    ["PreToolUse", run(3, "", " broken \n"), { error: "h exited with code 3: broken" }],
    ["PreToolUse", { code: 143, stdout: "", stderr: "", timedOut: true }, { error: "h timed out" }],
    ["PreToolUse", { failed: "no sandbox" }, { error: "h failed: no sandbox" }],
    ["UserPromptSubmit", run(0, "plain context\n"), { output: ["plain context"] }],
    ["SessionStart", run(0, "plain\n"), { output: ["plain"] }],
    [
      "UserPromptSubmit",
      json({ decision: "block", reason: "No passwords here" }),
      { block: "No passwords here", blockReason: "No passwords here" },
    ],
    ["PostToolUse", run(0, "plain\n"), {}],
    ["PreToolUse", run(0, "{not json"), {}],
    [
      "PreToolUse",
      json({ hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "json says no" } }),
      { permission: "deny", permissionReason: "json says no" },
    ],
    ["PreToolUse", json({ hookSpecificOutput: { permissionDecision: "allow" } }), { permission: "allow" }],
    ["PreToolUse", json({ hookSpecificOutput: { permissionDecision: "maybe" } }), {}],
    ["PreToolUse", json({ decision: "approve" }), { permission: "allow" }],
    [
      "PreToolUse",
      json({ decision: "block", reason: "old style" }),
      { permission: "deny", permissionReason: "old style" },
    ],
    [
      "PreToolUse",
      json({ hookSpecificOutput: { updatedInput: { command: "ls" } } }),
      { updatedInput: { command: "ls" } },
    ],
    ["Stop", json({ decision: "block", reason: "keep going" }), {
      block: "keep going",
      blockReason: "keep going",
    }],
    ["Stop", json({ continue: false, stopReason: "enough" }), { stop: "enough" }],
    ["Stop", json({ continue: false }), { stop: "" }],
    ["PostToolUse", json({ hookSpecificOutput: { additionalContext: "ctx" } }), { context: ["ctx"] }],
    ["Notification", json({ systemMessage: "hi" }), { message: "hi" }],
    ["PreToolUse", { answer: { hookSpecificOutput: { permissionDecision: "ask" } } }, { permission: "ask" }],
  ];
  for (const [event, end, want] of cases) {
    assert.deepEqual(verdictOf(event, end, { label: "h" }), want, `${event} ${JSON.stringify(end)}`);
  }
});

Deno.test("mergeVerdicts: deny beats ask beats allow; blocks and context add up; first rewrite wins", () => {
  assert.deepEqual(mergeVerdicts([]), {});
  assert.deepEqual(
    mergeVerdicts([
      { permission: "allow", permissionReason: "a", updatedInput: { n: 1 } },
      { permission: "deny", permissionReason: "d" },
      { permission: "ask", permissionReason: "q", updatedInput: { n: 2 } },
    ]),
    { permission: "deny", permissionReason: "d", updatedInput: { n: 1 } },
  );
  assert.deepEqual(
    mergeVerdicts([
      { block: "[a]: x", blockReason: "x", context: ["c1"], output: ["o1"] },
      { block: "y", blockReason: "y", context: ["c2"], error: "e" },
    ]),
    { block: "[a]: x\ny", blockReason: "x\ny", context: ["c1", "c2"], output: ["o1"], error: "e" },
  );
});
