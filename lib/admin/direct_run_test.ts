import assert from "node:assert/strict";
import { ChildUsage, type DirectRunDeps, type DirectRunRequest, runDirect } from "./direct_run.ts";
import type { RuntimeWarning } from "../protocol/events.ts";
import { sequentialIds } from "../testing/fakes.ts";

Deno.test("ChildUsage sums input and output tokens of the child's own turns only", () => {
  const usage = new ChildUsage("agent-a");
  const turn = (sessionId: string, inputTokens: number, outputTokens: number) => ({
    type: "turn_completed" as const,
    sessionId,
    turn: 1,
    usage: { inputTokens, outputTokens },
  });
  usage.observe({
    type: "subagent_event",
    parentSessionId: "session-p",
    agentId: "agent-a",
    event: turn("agent-a", 10, 2),
  });
  usage.observe({
    type: "subagent_event",
    parentSessionId: "session-p",
    agentId: "agent-a",
    event: turn("agent-a", 20, 3),
  });
  // Another child, a grandchild's turn relayed through the child, and the parent's own turn do not count.
  usage.observe({
    type: "subagent_event",
    parentSessionId: "session-p",
    agentId: "agent-b",
    event: turn("agent-b", 99, 99),
  });
  usage.observe({
    type: "subagent_event",
    parentSessionId: "session-p",
    agentId: "agent-a",
    event: {
      type: "subagent_event",
      parentSessionId: "agent-a",
      agentId: "agent-c",
      event: turn("agent-c", 7, 7),
    },
  });
  usage.observe(turn("session-p", 5, 5));
  assert.deepEqual(usage.usage, { inputTokens: 30, outputTokens: 5 });
});

function directDeps(launched: { content: string; isError: boolean }) {
  const deps: DirectRunDeps = {
    ids: sequentialIds("id-"),
    transcript: { append: () => Promise.resolve([]) },
    launch: () =>
      Promise.resolve({ ...launched, metadata: { stats: { tokens: 3, toolCalls: 2, durationMs: 5 } } }),
    store: { load: () => Promise.resolve(null) },
    waitBackground: () => Promise.resolve(),
  };
  return { deps };
}

function request(lost?: RuntimeWarning): DirectRunRequest {
  return {
    agent: "general-purpose",
    prompt: "p",
    description: "d",
    agentId: "agent-a",
    callId: "run_1",
    background: false,
    interrupted: () => false,
    usage: new ChildUsage("agent-a"),
    lostWork: () => lost,
  };
}

Deno.test("runDirect: a child that succeeded while work was lost fails with the warning's code and message", async () => {
  const warning: RuntimeWarning = {
    type: "runtime_warning",
    sessionId: "session-p",
    code: "notice_dropped",
    message: "The completion notice of agent-g could not be written",
    agentId: "agent-g",
    workLost: true,
  };
  const { deps } = directDeps({ content: "done", isError: false });
  const lost = await runDirect(deps, request(warning));
  assert.equal(lost.status, "failed");
  assert.equal(lost.error, warning.message);
  assert.equal(lost.errorCode, "notice_dropped");

  const clean = await runDirect(directDeps({ content: "done", isError: false }).deps, request());
  assert.equal(clean.status, "completed");
  assert.equal(clean.error, undefined);
  assert.equal(clean.errorCode, undefined);

  // A failed child keeps its own error; the code is left to the caller (subagent_failed).
  const failed = await runDirect(directDeps({ content: "boom", isError: true }).deps, request(warning));
  assert.equal(failed.status, "failed");
  assert.equal(failed.error, "boom");
  assert.equal(failed.errorCode, undefined);
});
