import assert from "node:assert/strict";
import type { ApprovalRequest } from "../../protocol/approval.ts";
import { savedRuleFor } from "./saved_rule.ts";

const scope = { workspaceRoot: "/repo", home: "/home/me" };

function request(tool: string, subject: string, agentType = "main"): ApprovalRequest {
  return { sessionId: "session-1", agentType, tool, subject, reason: "needs approval" };
}

Deno.test("savedRuleFor: the narrowest rule that matches exactly the approved call, or none", () => {
  const cases: [ApprovalRequest, string | undefined][] = [
    [request("Bash", "npm test"), "Bash(npm test)"],
    [request("Write", "/repo/src/a.ts"), "Edit(//repo/src/a.ts)"],
    [request("Edit", "/repo/src/a.ts"), "Edit(//repo/src/a.ts)"],
    [request("mcp__docs__note", "mcp__docs__note"), "mcp__docs__note"],
    // A child's call is never saved: its grant is computed from its parent.
    [request("Bash", "npm test", "general-purpose"), undefined],
    // A command a one-line rule cannot name exactly is not offered.
    [request("Bash", "echo a\necho b"), undefined],
  ];
  for (const [r, want] of cases) assert.equal(savedRuleFor(r, scope), want, `${r.tool} ${r.subject}`);
});
