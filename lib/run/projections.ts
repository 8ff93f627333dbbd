// Owns the pure projections of a sidecar record onto the protocol: the `subagent` info of runtime
// events (and the whole `subagent_completed` event) and the `subtask_ref`
// transcript part (running before a launch, terminal after it). No I/O; background delivery, launching and TaskOutput all read these.

import type { RuntimeEvent, SubagentInfo, SubtaskRefPart, SubtaskState } from "../protocol/events.ts";
import { worktreeView } from "../worktree/view.ts";
import type { SidecarRecord } from "../store/schema.ts";
import { lineageOf } from "../store/record_ops.ts";

export function subagentInfo(record: SidecarRecord): SubagentInfo {
  return {
    session_id: record.id,
    subagent_type: record.subagentType,
    description: record.description,
    background: record.background,
    root_agent_id: record.rootAgentId,
    resumed_from: record.resumedFrom ?? null,
    resume_depth: record.resumeDepth,
  };
}

export function subtaskRef(callId: string, record: SidecarRecord, state: SubtaskState): SubtaskRefPart {
  return {
    type: "subtask_ref",
    callId,
    agentId: record.id,
    subagentType: record.subagentType,
    description: record.description,
    background: record.background,
    state,
    lineage: lineageOf(record),
  };
}

/** The `subagent_completed` event of a finished record (`status` and `summary` as the Task result says). */
export function subagentCompleted(
  parentSessionId: string,
  callId: string,
  record: SidecarRecord,
  end: { status: SubtaskState; summary: string },
): Extract<RuntimeEvent, { type: "subagent_completed" }> {
  return {
    type: "subagent_completed",
    parentSessionId,
    callId,
    subagent: subagentInfo(record),
    state: end.status,
    success: end.status === "completed",
    summary: end.summary,
    ...(record.result.verificationVerdict === undefined
      ? {}
      : { verdict: record.result.verificationVerdict }),
    ...(record.worktree === undefined ? {} : { worktree: worktreeView(record.worktree) }),
  };
}
