import assert from "node:assert/strict";
import { canUseToolRequest, toolVerdict } from "./sdk_control_tool.ts";

const INPUT = { command: "git push", description: "push", nested: { a: [1, 2] } };

Deno.test("canUseToolRequest: the SDK's can_use_tool, naming the call, its input and why it was asked", () => {
  const main = canUseToolRequest("q1", {
    sessionId: "session-1",
    agentType: "main",
    tool: "Bash",
    subject: "git push",
    reason: "Permission denied: Bash needs approval",
    callId: "toolu_1",
    input: INPUT,
  });
  assert.deepEqual(main, {
    type: "control_request",
    request_id: "q1",
    request: {
      subtype: "can_use_tool",
      tool_name: "Bash",
      input: INPUT,
      tool_use_id: "toolu_1",
      permission_suggestions: [],
      decision_reason: "Permission denied: Bash needs approval",
    },
  });
  const child = canUseToolRequest("q2", {
    sessionId: "agent-7",
    agentType: "review",
    tool: "Write",
    subject: "/w/a.ts",
    reason: "r",
  });
  assert.equal((child.request as Record<string, unknown>).agent_id, "agent-7");
  assert.deepEqual((child.request as Record<string, unknown>).input, {});
});

Deno.test("toolVerdict: only an allow that keeps the checked input runs the call", () => {
  const rows: [string, Record<string, unknown>, string, boolean][] = [
    ["allow", { subtype: "success", response: { behavior: "allow" } }, "allow_once", false],
    [
      "allow with the same input (keys in another order)",
      {
        subtype: "success",
        response: {
          behavior: "allow",
          updatedInput: { nested: { a: [1, 2] }, description: "push", command: "git push" },
        },
      },
      "allow_once",
      false,
    ],
    [
      "allow with a changed input: refused, never run unchecked",
      {
        subtype: "success",
        response: { behavior: "allow", updatedInput: { ...INPUT, command: "rm -rf /" } },
      },
      "deny",
      false,
    ],
    [
      "allow with an array input",
      { subtype: "success", response: { behavior: "allow", updatedInput: [] } },
      "deny",
      false,
    ],
    ["deny", { subtype: "success", response: { behavior: "deny", message: "no" } }, "deny", false],
    [
      "deny and interrupt",
      { subtype: "success", response: { behavior: "deny", message: "stop", interrupt: true } },
      "deny",
      true,
    ],
    ["an error response", { subtype: "error", error: "callback threw" }, "deny", false],
    ["a malformed answer", { subtype: "success", response: "allow" }, "deny", false],
    ["no answer body", { subtype: "success" }, "deny", false],
  ];
  for (const [name, response, answer, interrupt] of rows) {
    assert.deepEqual(toolVerdict(response, INPUT), { answer, interrupt }, name);
  }
});
