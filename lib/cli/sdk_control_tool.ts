// Owns the decisions of the Agent SDK's canUseTool over stream-json (docs/guides/agent-sdk.md): the
// `can_use_tool` control request Blade sends for a call its permission gate would refuse but a person
// may approve (`--permission-prompt-tool stdio`), and what the SDK's answer means. Pure, table-tested;
// cli/sdk_session.ts writes the request and waits for the answer.

import type { ApprovalAnswer, ApprovalRequest } from "../protocol/approval.ts";
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
      input: req.input ?? {},
      tool_use_id: req.callId ?? "",
      permission_suggestions: [],
      decision_reason: req.reason,
      ...(req.agentType === "main" ? {} : { agent_id: req.sessionId }),
    },
  };
}

export interface ToolVerdict {
  answer: ApprovalAnswer;
  /** A deny with `interrupt: true`: the turn stops too. */
  interrupt: boolean;
}

/**
 * The SDK's answer to can_use_tool. Only `allow` without a changed input runs the call: Blade runs the
 * call its gate checked, so an `updatedInput` that changes it is refused (rather than run unchecked).
 * An error response, a malformed one, or anything but allow is a deny.
 */
export function toolVerdict(response: Record<string, unknown>, input: Record<string, unknown>): ToolVerdict {
  const body = response.subtype === "success" && isRecord(response.response) ? response.response : {};
  if (body.behavior === "allow") {
    const updated = body.updatedInput;
    const same = updated === undefined || (sameJson(updated, input));
    return { answer: same ? "allow_once" : "deny", interrupt: false };
  }
  return { answer: "deny", interrupt: body.behavior === "deny" && body.interrupt === true };
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
