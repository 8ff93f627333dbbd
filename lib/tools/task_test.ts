// The Task tool's warm-up hint: what a streamed call (not yet validated) says about its launch is
// passed on; a call whose grant cannot be known before it launches (a resume) is not prepared for.

import assert from "node:assert/strict";
import { taskTool, type WarmCall } from "./task.ts";

Deno.test("Task warm: the call's agent type and isolation are passed on; a resume or a malformed call is not", () => {
  const seen: WarmCall[] = [];
  const tool = taskTool({
    agentTypes: () => [],
    plan: () => Promise.resolve(undefined),
    launch: () => Promise.reject(new Error("not launched here")),
    warm: (call) => void seen.push(call),
  });
  const cases: [Record<string, unknown>, WarmCall | undefined][] = [
    [{ subagent_type: "worker", prompt: "p" }, { subagentType: "worker" }],
    [{ subagent_type: "worker", isolation: "worktree" }, { subagentType: "worker", isolation: "worktree" }],
    [{ subagent_type: "worker", isolation: "none" }, { subagentType: "worker", isolation: "none" }],
    // Not a value the schema allows: the agent's own isolation decides.
    [{ subagent_type: "worker", isolation: "sideways" }, { subagentType: "worker" }],
    [{ subagent_type: "worker", resume_from: "agent-x" }, undefined],
    [{ subagent_type: "worker", resume: "agent-x" }, undefined],
    [{ subagent_type: 7 }, undefined],
    [{}, undefined],
  ];
  for (const [input, expected] of cases) {
    seen.length = 0;
    tool.warm?.(input);
    assert.deepEqual(seen, expected === undefined ? [] : [expected], JSON.stringify(input));
  }
});
