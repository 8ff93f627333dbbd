// Owns which allow rule an approval may be saved as (the interactive session's "allow and save" answers):
// the narrowest rule that matches exactly the call the person saw — `Bash(<the command>)`,
// `Edit(//<the real path>)`, or an MCP tool's name — and only when the rule grammar (protocol/tool_rule.ts)
// parses it and it matches that call, so a saved rule never approves more than what was approved.
// Only the top-level session's calls: a child's grant is computed from its parent, never saved for it.

import type { ApprovalRequest } from "../../protocol/approval.ts";
import { allowedBy, parseToolRule, type RuleScope } from "../../protocol/tool_rule.ts";

/** The rule to save for `request`, or undefined when none would be exactly as narrow. */
export function savedRuleFor(request: ApprovalRequest, scope: RuleScope): string | undefined {
  if (request.agentType !== "main") return undefined;
  const { tool, subject } = request;
  const text = tool === "Bash"
    ? `Bash(${subject})`
    : tool === "Write" || tool === "Edit"
    ? `Edit(/${subject})`
    : subject === tool
    ? tool
    : undefined;
  if (text === undefined || /[\n\r]/.test(text)) return undefined;
  const rule = parseToolRule(text);
  if ("error" in rule) return undefined;
  const target = tool === "Bash"
    ? { tool, input: { command: subject } }
    : tool === "Write" || tool === "Edit"
    ? { tool, input: request.input ?? {}, path: subject }
    : { tool, input: request.input ?? {} };
  return allowedBy([rule], target, scope) ? text : undefined;
}
