// Owns `--permission-prompt-tool mcp__<server>__<tool>` (Claude Code's MCP approval tool): a call the
// permission gate would refuse but a person may approve is put to that MCP tool as
// `{tool_name, input, tool_use_id}`; its text answer is a permission result in JSON —
// `{"behavior":"allow","updatedInput":{…}}` or `{"behavior":"deny","message":"…"}` — read as the
// Agent SDK's canUseTool answer is (cli/sdk_control_tool.ts). A missing tool, a failed call or an
// answer that is not such JSON refuses the call, saying why.

import type { ApprovalVerdict, Approver } from "../protocol/approval.ts";
import type { McpHub } from "../mcp/hub.ts";
import { isRecord } from "./sdk_control.ts";
import { permissionResult } from "./sdk_control_tool.ts";

/** The verdict of the approval tool's answer (its text content). */
export function promptToolVerdict(
  result: { content: readonly Record<string, unknown>[]; isError: boolean },
  o: { input: Record<string, unknown>; tool: string },
): ApprovalVerdict {
  const { input, tool } = o;
  const text = result.content.map((c) => (c.type === "text" && typeof c.text === "string" ? c.text : ""))
    .join("");
  if (result.isError) {
    return {
      answer: "deny",
      message: `Permission denied: the approval tool ${tool} failed: ${text.slice(0, 500)}`,
    };
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!isRecord(body) || (body.behavior !== "allow" && body.behavior !== "deny")) {
    return {
      answer: "deny",
      message:
        `Permission denied: the approval tool ${tool} did not answer with {"behavior": "allow"|"deny", …}.`,
    };
  }
  return permissionResult(body, input).verdict;
}

/** The Approver that asks the MCP tool `tool` of the run's servers. */
export function mcpApprover(hub: McpHub | undefined, tool: string): Approver {
  return async (request, signal) => {
    if (hub === undefined) {
      return {
        answer: "deny",
        message: `Permission denied: no MCP server is configured for the approval tool ${tool}.`,
      };
    }
    const input = request.input ?? {};
    const result = await hub.call(
      tool,
      { tool_name: request.tool, input, tool_use_id: request.callId ?? "" },
      signal,
    );
    return promptToolVerdict(result, { input, tool });
  };
}

/**
 * The run's MCP approver, when `--permission-prompt-tool` names an MCP tool (and `--permission-prompts`
 * is not `none`: then nobody is asked).
 */
export function promptToolApprover(
  values: Record<string, unknown>,
  hub: McpHub | undefined,
): Approver | undefined {
  const tool = values["permission-prompt-tool"];
  if (typeof tool !== "string" || !tool.startsWith("mcp__") || values["permission-prompts"] === "none") {
    return undefined;
  }
  return mcpApprover(hub, tool);
}
