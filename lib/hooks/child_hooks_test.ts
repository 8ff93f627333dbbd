// The hook points of a Worker child's loop (child_hooks.ts): each asks the main thread with plain data
// and uses its answer; `continue: false` in any answer ends the run after that step; only the points
// some hook listens to are set; what comes back is checked before use.

import assert from "node:assert/strict";
import { STOP_COMPLETED, type ToolCallRequest } from "../executor/hooks.ts";
import type { ToolResult } from "../tools/tool.ts";
import { type ChildHookAnswer, type ChildHookCall, isChildHookAnswer, workerHooks } from "./child_hooks.ts";

const request = (input: unknown) =>
  ({
    call: { type: "tool_call", id: "t1", name: "Bash", input: { command: "ls -la" } },
    input,
  }) as unknown as ToolCallRequest;

Deno.test("workerHooks: each point asks with plain data and answers with the main thread's answer", async () => {
  const asked: ChildHookCall[] = [];
  const answers: ChildHookAnswer[] = [
    { permission: { decision: "deny", reason: "no" } },
    { after: { annotate: "noted" } },
    { continueWith: "say DONE", stop: true },
  ];
  const hooks = workerHooks(["beforePermission", "afterToolCall", "onTurnEnd"], (call) => {
    asked.push(call);
    return Promise.resolve(answers.shift()!);
  });
  assert.equal(hooks.shouldStop!({ sessionId: "s", turn: 1, final: false }), undefined);
  assert.deepEqual(await hooks.beforePermission!(request({ command: "ls" })), {
    decision: "deny",
    reason: "no",
  });
  const result: ToolResult = { content: "out", isError: false, metadata: { big: true } };
  assert.deepEqual(await hooks.afterToolCall!(request("not an object"), result), { annotate: "noted" });
  const answer = { role: "assistant" as const, content: [{ type: "text" as const, text: "hi" }] };
  const conversation = [{ role: "user" as const, content: [{ type: "text" as const, text: "task" }] }];
  assert.deepEqual(await hooks.onTurnEnd!({ sessionId: "s", turn: 3, answer, conversation }), {
    continueWith: "say DONE",
  });
  assert.equal(hooks.shouldStop!({ sessionId: "s", turn: 3, final: true }), STOP_COMPLETED);
  assert.deepEqual(asked, [
    {
      point: "beforePermission",
      call: { id: "t1", name: "Bash", input: { command: "ls -la" } },
      input: { command: "ls" },
    },
    {
      point: "afterToolCall",
      call: { id: "t1", name: "Bash", input: { command: "ls -la" } },
      input: { command: "ls -la" },
      result: { content: "out", isError: false },
    },
    // The conversation travels for a SubagentStop `prompt` hook (it judges it).
    { point: "onTurnEnd", turn: 3, answer, conversation },
  ]);
});

Deno.test("workerHooks: no point, no hook; only the points asked for are set", () => {
  assert.deepEqual(workerHooks([], () => Promise.reject(new Error("never"))), {});
  const only = workerHooks(["afterToolCall"], () => Promise.resolve({}));
  assert.deepEqual(Object.keys(only).sort(), ["afterToolCall", "shouldStop"]);
});

Deno.test("isChildHookAnswer: the main thread's answers, nothing else", () => {
  const good: unknown[] = [
    {},
    { permission: {} },
    { permission: { decision: "allow", reason: "r", input: { a: 1 } } },
    { after: { replace: { content: "x", isError: true }, annotate: "n" } },
    { continueWith: "again", stop: false },
  ];
  const bad: unknown[] = [
    null,
    [],
    { permission: { decision: "grant" } },
    { permission: { input: "rm -rf /" } },
    { after: { replace: { content: 3 } } },
    { continueWith: 7 },
    { stop: "yes" },
  ];
  for (const v of good) assert.equal(isChildHookAnswer(v), true, JSON.stringify(v));
  for (const v of bad) assert.equal(isChildHookAnswer(v), false, JSON.stringify(v));
});
