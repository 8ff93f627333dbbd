// Owns the decisions of the Agent SDK's canUseTool over stream-json (docs/guides/agent-sdk.md): the
// `can_use_tool` control request Blade sends for a call its permission gate would refuse but a person
// may approve (`--permission-prompt-tool stdio`), and what the SDK's answer means. Pure, table-tested;
// cli/sdk_session.ts writes the request and waits for the answer.

import type { ApprovalRequest, ApprovalVerdict } from "../protocol/approval.ts";
import { isRecord } from "./sdk_control.ts";

/**
 * The `can_use_tool` request Blade sends the SDK (`--permission-prompt-tool stdio`, the SDK's canUseTool)
 * for a call the permission gate would refuse but a person may approve.
 */
export function canUseToolRequest(id: string, req: ApprovalRequest): Record<string, unknown> {
  return {
    type: "control_request",
    request_id: id,
    request: {
      subtype: "can_use_tool",
      tool_name: req.tool,
      display_name: req.tool,
      input: req.input ?? {},
      ...(typeof req.input?.description === "string" ? { description: req.input.description } : {}),
      tool_use_id: req.callId ?? "",
      permission_suggestions: [],
      decision_reason: req.reason,
      ...(req.agentType === "main" ? {} : { agent_id: req.sessionId }),
    },
  };
}

export interface ToolVerdict {
  verdict: ApprovalVerdict;
  /** A deny with `interrupt: true`: the turn stops too. */
  interrupt: boolean;
}

/**
 * The SDK's answer to can_use_tool (its canUseTool's result), or an MCP approval tool's: `allow` runs
 * the call — with `updatedInput` when it changes it (the tool runner checks the changed call again:
 * executor/tool_runner.ts); `deny` refuses it, and its `message` is what the model is told. An error
 * response, a malformed one, or anything but allow is a deny.
 */
export function toolVerdict(response: Record<string, unknown>, input: Record<string, unknown>): ToolVerdict {
  const body = response.subtype === "success" && isRecord(response.response) ? response.response : {};
  return permissionResult(body, input);
}

/** A permission result (`{behavior: "allow"|"deny", updatedInput?, message?, interrupt?}`) as a verdict. */
export function permissionResult(body: Record<string, unknown>, input: Record<string, unknown>): ToolVerdict {
  if (body.behavior === "allow") {
    const updated = body.updatedInput;
    // A changed input that is no object cannot be a call: unparsable means refused.
    if (updated !== undefined && updated !== null && !isRecord(updated)) {
      return {
        verdict: { answer: "deny", message: "The approver's updatedInput is not an object." },
        interrupt: false,
      };
    }
    const changed = isRecord(updated) && !sameJson(updated, input);
    return {
      verdict: changed ? { answer: "allow_once", updatedInput: updated } : { answer: "allow_once" },
      interrupt: false,
    };
  }
  const message = typeof body.message === "string" && body.message.trim() !== "" ? body.message : undefined;
  return {
    verdict: message === undefined ? { answer: "deny" } : { answer: "deny", message },
    interrupt: body.behavior === "deny" && body.interrupt === true,
  };
}

/** Whether two JSON values are equal (objects by their keys, in any order). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length &&
      a.every((x, i) => sameJson(x, b[i]));
  }
  if (!isRecord(a) || !isRecord(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length &&
    keys.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
}
