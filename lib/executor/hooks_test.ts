// Table tests of the hook points' merge rules (hooks.ts): several hooks answer as one, in hook order.

import assert from "node:assert/strict";
import { userText } from "../protocol/messages.ts";
import type { RuntimeEvent } from "../protocol/events.ts";
import type { ToolResult } from "../tools/tool.ts";
import {
  applyAfterToolCall,
  HookPoints,
  type LoopHooks,
  mergeHooks,
  type ToolCallRequest,
  type UserPromptAnswer,
} from "./hooks.ts";

// The hooks below read only the call; the rest of a request is never looked at.
const request = {
  call: { type: "tool_call", id: "c1", name: "Write", input: { file_path: "a.txt", content: "x" } },
  input: { file_path: "a.txt", content: "x" },
} as unknown as ToolCallRequest;
const result: ToolResult = { content: "Wrote a.txt", isError: false, metadata: { bytes: 1 } };

Deno.test("mergeHooks: beforeToolCall chains rewrites in order and the first block wins", async () => {
  const seen: unknown[] = [];
  const merged = mergeHooks(
    {
      beforeToolCall: (
        r,
      ) => (seen.push(r.input), { allow: true, input: { file_path: "a.txt", content: "y" } }),
    },
    { beforeToolCall: (r) => (seen.push(r.input), { allow: true }) },
    { beforeToolCall: () => ({ allow: false, message: "no" }) },
    { beforeToolCall: () => assert.fail("a later hook is not asked once one blocked") },
  );
  assert.deepEqual(await merged.beforeToolCall!(request), { allow: false, message: "no" });
  assert.deepEqual(seen, [{ file_path: "a.txt", content: "x" }, { file_path: "a.txt", content: "y" }]);
  const rewrite = mergeHooks(
    { beforeToolCall: () => ({ allow: true, input: { file_path: "b.txt", content: "x" } }) },
    { beforeToolCall: () => ({ allow: true }) },
  );
  assert.deepEqual(await rewrite.beforeToolCall!(request), {
    allow: true,
    input: { file_path: "b.txt", content: "x" },
  });
});

Deno.test("mergeHooks: afterToolCall replacements chain and annotations accumulate in order", async () => {
  const seen: string[] = [];
  const merged = mergeHooks(
    { afterToolCall: (_r, res) => (seen.push(res.content), { replace: { content: "first" } }) },
    { afterToolCall: (_r, res) => (seen.push(res.content), { annotate: "note one", context: ["ctx one"] }) },
    { afterToolCall: () => undefined },
    { afterToolCall: () => ({ context: ["ctx two"] }) },
    { afterToolCall: () => ({ annotate: "note two", replace: { content: "failed", isError: true } }) },
  );
  const answer = await merged.afterToolCall!(request, result);
  assert.deepEqual(seen, ["Wrote a.txt", "first"]);
  assert.deepEqual(answer, {
    replace: { content: "failed", isError: true },
    annotate: "note one\n\nnote two",
    context: ["ctx one", "ctx two"],
  });
  // Context goes after the step's results in a system turn (ToolResult.systemContext), the result's
  // content without it.
  assert.deepEqual(applyAfterToolCall(result, answer), {
    content: "failed\n\nnote one\n\nnote two",
    isError: true,
    metadata: { bytes: 1 },
    systemContext: ["ctx one", "ctx two"],
  });
  assert.equal(applyAfterToolCall(result, undefined), result, "no opinion leaves the result as it is");
});

Deno.test("mergeHooks: transformContext chains; onTurnEnd joins every text; shouldStop takes the first error", async () => {
  const signal = new AbortController().signal;
  const merged = mergeHooks(
    { transformContext: (c) => ({ ...c, system: `${c.system} +a` }) },
    {
      transformContext: (c) => ({ ...c, system: `${c.system} +b` }),
      onTurnEnd: () => ({ continueWith: "one" }),
    },
    { onTurnEnd: () => undefined, shouldStop: () => undefined },
    {
      onTurnEnd: () => ({ continueWith: "two" }),
      shouldStop: () => ({ type: "structured_output_retries_exhausted", message: "first" }),
    },
    { shouldStop: () => ({ type: "max_turns_exceeded", message: "second" }) },
  );
  const context = await merged.transformContext!({ system: "s", messages: [] }, signal);
  assert.equal(context.system, "s +a +b");
  const end = { sessionId: "s", turn: 1, answer: userText("x") };
  assert.deepEqual(await merged.onTurnEnd!(end), { continueWith: "one\n\ntwo" });
  assert.deepEqual(merged.shouldStop!({ sessionId: "s", turn: 1, final: true }), {
    type: "structured_output_retries_exhausted",
    message: "first",
  });
  const quiet = mergeHooks({ onTurnEnd: () => undefined }, { onTurnEnd: () => ({}) });
  assert.deepEqual(await quiet.onTurnEnd!(end), {});
});

Deno.test("mergeHooks: onSessionStart's messages join in hook order; one hook or none is itself", async () => {
  const one: LoopHooks = { onSessionStart: () => ({ messages: [userText("a", true)] }) };
  const merged = mergeHooks(one, undefined, { onSessionStart: () => undefined }, {
    onSessionStart: () => ({ messages: [userText("b", true)] }),
  });
  const start = { sessionId: "s", agentType: "main", depth: 0, resumed: false };
  assert.deepEqual(await merged.onSessionStart!(start), {
    messages: [userText("a", true), userText("b", true)],
  });
  assert.equal(mergeHooks(undefined, one), one);
  assert.deepEqual(mergeHooks(), {});
});

Deno.test("mergeHooks: onUserPrompt's messages join in hook order; the first block wins, later hooks are not asked", async () => {
  const asked: string[] = [];
  const hook = (name: string, answer: UserPromptAnswer): LoopHooks => ({
    onUserPrompt: () => (asked.push(name), answer),
  });
  const prompt = { sessionId: "s", text: "hi" };
  const passing = mergeHooks(
    hook("a", { messages: [userText("a", true)] }),
    hook("b", {}),
    hook("c", { messages: [userText("c", true)] }),
  );
  assert.deepEqual(await passing.onUserPrompt!(prompt), {
    messages: [userText("a", true), userText("c", true)],
  });
  asked.length = 0;
  const blocking = mergeHooks(
    hook("a", { messages: [userText("a", true)] }),
    hook("b", { block: { message: "no", reason: "r" } }),
    hook("c", { block: { message: "later", reason: "r2" } }),
  );
  assert.deepEqual(await blocking.onUserPrompt!(prompt), { block: { message: "no", reason: "r" } });
  assert.deepEqual(asked, ["a", "b"]);
});

Deno.test("HookPoints: a hook that throws is no opinion and a hook_failed warning; beforeToolCall refuses", async () => {
  const events: RuntimeEvent[] = [];
  const boom = () => {
    throw new Error("boom");
  };
  const points = new HookPoints({
    onSessionStart: boom,
    beforeToolCall: boom,
    afterToolCall: boom,
    transformContext: boom,
    onTurnEnd: boom,
    shouldStop: boom,
  }, { emit: (e) => events.push(e), sessionId: "session-1" });
  const context = { system: "s", messages: [] };
  assert.deepEqual(
    await points.sessionStart({ sessionId: "s", agentType: "main", depth: 0, resumed: false }),
    [],
  );
  assert.equal(await points.context(context, new AbortController().signal), context);
  assert.equal(await points.turnEnd({ sessionId: "s", turn: 1, answer: userText("x") }), undefined);
  assert.equal(points.stop({ sessionId: "s", turn: 1, final: true }), undefined);
  assert.equal(await points.after(request, result), result);
  assert.deepEqual(await points.before(request), {
    allow: false,
    askable: false,
    message: "Write was refused: the permission check failed (boom).",
  });
  assert.deepEqual(
    events.map((e) => e.type === "runtime_warning" ? [e.code, e.message, e.workLost] : e.type),
    ["onSessionStart", "transformContext", "onTurnEnd", "shouldStop", "afterToolCall"].map((p) => [
      "hook_failed",
      `A ${p} hook failed and was ignored: boom`,
      false,
    ]),
  );
});

Deno.test("mergeHooks: beforeCompact joins the instructions in order; the first block wins and later hooks are not asked", async () => {
  const asked: string[] = [];
  const hook = (name: string, answer: { instructions?: string; block?: string }) => ({
    beforeCompact: () => {
      asked.push(name);
      return answer;
    },
  });
  const start = { sessionId: "s", trigger: "manual" as const, instructions: "keep the numbers" };
  const joined = mergeHooks(
    hook("a", { instructions: "one" }),
    hook("b", {}),
    hook("c", { instructions: "two" }),
  );
  assert.deepEqual(await joined.beforeCompact!(start), { instructions: "one\n\ntwo" });
  assert.deepEqual(asked, ["a", "b", "c"]);
  asked.length = 0;
  const blocked = mergeHooks(
    hook("a", { instructions: "one" }),
    hook("b", { block: "Compaction blocked by PreCompact hook: [x]: no" }),
    hook("c", { instructions: "two" }),
  );
  assert.deepEqual(await blocked.beforeCompact!(start), {
    block: "Compaction blocked by PreCompact hook: [x]: no",
  });
  assert.deepEqual(asked, ["a", "b"]);
});
