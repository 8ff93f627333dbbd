import assert from "node:assert/strict";
import { ChildUsage } from "./direct_run.ts";

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
