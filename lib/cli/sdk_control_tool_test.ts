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
      display_name: "Bash",
      input: INPUT,
      description: "push",
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

Deno.test("toolVerdict: allow runs the call (as the approver changed it); deny refuses it with its message", () => {
  const rows: [string, Record<string, unknown>, unknown, boolean][] = [
    ["allow", { subtype: "success", response: { behavior: "allow" } }, { answer: "allow_once" }, false],
    [
      "allow with the same input (keys in another order)",
      {
        subtype: "success",
        response: {
          behavior: "allow",
          updatedInput: { nested: { a: [1, 2] }, description: "push", command: "git push" },
        },
      },
      { answer: "allow_once" },
      false,
    ],
    [
      "allow with a changed input: that input runs (checked again by the tool runner)",
      {
        subtype: "success",
        response: { behavior: "allow", updatedInput: { ...INPUT, command: "git push -n" } },
      },
      { answer: "allow_once", updatedInput: { ...INPUT, command: "git push -n" } },
      false,
    ],
    [
      "allow with an array input: unparsable, refused",
      { subtype: "success", response: { behavior: "allow", updatedInput: [] } },
      { answer: "deny", message: "The approver's updatedInput is not an object." },
      false,
    ],
    [
      "deny: its message is what the model is told",
      { subtype: "success", response: { behavior: "deny", message: "no" } },
      { answer: "deny", message: "no" },
      false,
    ],
    [
      "deny and interrupt",
      { subtype: "success", response: { behavior: "deny", message: "stop", interrupt: true } },
      { answer: "deny", message: "stop" },
      true,
    ],
    [
      "deny without a message",
      { subtype: "success", response: { behavior: "deny" } },
      { answer: "deny" },
      false,
    ],
    ["an error response", { subtype: "error", error: "callback threw" }, { answer: "deny" }, false],
    ["a malformed answer", { subtype: "success", response: "allow" }, { answer: "deny" }, false],
    ["no answer body", { subtype: "success" }, { answer: "deny" }, false],
  ];
  for (const [name, response, verdict, interrupt] of rows) {
    assert.deepEqual(toolVerdict(response, INPUT), { verdict, interrupt }, name);
  }
});
