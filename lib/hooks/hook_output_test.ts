import assert from "node:assert/strict";
import { type HookEnd, type HookVerdict, mergeVerdicts, verdictOf } from "./hook_output.ts";
import type { HookEvent } from "../protocol/hook_config.ts";
import { NO_VERDICT, promptHookVerdict, withArguments } from "./prompt_hook.ts";

const run = (code: number, stdout = "", stderr = ""): HookEnd => ({ code, stdout, stderr });
const json = (o: unknown) => run(0, JSON.stringify(o) + "\n");

Deno.test("verdictOf: exit codes and JSON answers as Claude Code 2.1.332 reads them", () => {
  const cases: [HookEvent, HookEnd, HookVerdict][] = [
    ["PreToolUse", run(0), {}],
    [
      "PreToolUse",
      run(2, "", "No forbidden commands\n"),
      {
        block: "[h]: No forbidden commands\n",
        blockReason: "No forbidden commands",
        blockedBy: [{ label: "h", reason: "No forbidden commands" }],
      },
    ],
    ["PreToolUse", run(2), {
      block: "[h]: No stderr output",
      blockReason: "No stderr output",
      blockedBy: [{ label: "h", reason: "No stderr output" }],
    }],
    ["PreToolUse", run(3, "", " broken \n"), { error: "h exited with code 3: broken" }],
    ["PreToolUse", { code: 143, stdout: "", stderr: "", timedOut: true }, { error: "h timed out" }],
    ["PreToolUse", { failed: "no sandbox" }, { error: "h failed: no sandbox" }],
    ["UserPromptSubmit", run(0, "plain context\n"), { output: ["plain context"] }],
    ["SessionStart", run(0, "plain\n"), { output: ["plain"] }],
    [
      "UserPromptSubmit",
      json({ decision: "block", reason: "No passwords here" }),
      {
        block: "No passwords here",
        blockReason: "No passwords here",
        blockedBy: [{ label: "h", reason: "No passwords here" }],
      },
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
      blockedBy: [{ label: "h", reason: "keep going" }],
    }],
    ["Stop", json({ continue: false, stopReason: "enough" }), { stop: "enough" }],
    ["Stop", json({ continue: false }), { stop: "" }],
    ["PostToolUse", json({ hookSpecificOutput: { additionalContext: "ctx" } }), { context: ["ctx"] }],
    // A post-call block names its hook (tests/fixtures/claude/hooks_failure_block).
    ["PostToolUseFailure", json({ decision: "block", reason: "failure blocked" }), {
      block: "failure blocked",
      blockReason: "failure blocked",
      blockedBy: [{ label: "h", reason: "failure blocked" }],
    }],
    // PreCompact's passing stdout: instructions, and what the user is shown after the compaction.
    ["PreCompact", run(0, "keep names\n"), {
      output: ["keep names"],
      shown: ["PreCompact [h] completed successfully: keep names"],
    }],
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

Deno.test("promptHookVerdict: a prompt hook's JSON answer as Claude Code 2.1.332 reads it", () => {
  const label = "Is it safe? $ARGUMENTS";
  const cases: [HookEvent, string, HookVerdict][] = [
    ["PreToolUse", '{"ok": true, "reason": "fine"}', {}],
    // A PreToolUse block refuses the call and ends the run, unsaid (tests/fixtures/claude/hooks_prompt_pretool).
    ["PreToolUse", '{"ok": false, "reason": "no"}', {
      block: `[${label}]: no`,
      blockReason: "no",
      stop: "",
      quiet: true,
    }],
    ["Stop", '{"ok": false, "reason": "not yet"}', { block: `[${label}]: not yet`, blockReason: "not yet" }],
    ["Stop", '{"ok": false, "reason": ""}', {
      block: `[${label}]: No reason given`,
      blockReason: "No reason given",
    }],
    ["Stop", '{"ok": false, "impossible": true, "reason": "cannot"}', {
      error: `[${label}]: the condition can never be met: cannot`,
    }],
    // No usable answer: no verdict (tests/fixtures/claude/hooks_prompt_invalid).
    ["PreToolUse", "not json at all", { error: NO_VERDICT, noVerdict: { timedOut: false } }],
    ["PreToolUse", '{"reason": "no ok"}', { error: NO_VERDICT, noVerdict: { timedOut: false } }],
  ];
  for (const [event, text, want] of cases) {
    assert.deepEqual(promptHookVerdict(event, text, { label }), want, `${event} ${text}`);
  }
});

Deno.test("withArguments: $ARGUMENTS replaced by the input, else the input appended as Claude Code does", () => {
  assert.equal(withArguments("Check $ARGUMENTS now", { a: 1 }), 'Check {"a":1} now');
  assert.equal(withArguments("Check it.", { a: 1 }), 'Check it.\n\nARGUMENTS: {"a":1}');
});
