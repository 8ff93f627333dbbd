// Owns result adoption (docs/guides/subagents.md, "Crash recovery"): when a parent session is
// continued after a crash and its transcript has foreground Task calls without results, decide —
// purely — which child results may be adopted instead of running the child again. A call is adopted
// only when tool name, owner, child id, description, explicit type, resume lineage and a well-formed
// completed/failed result all match; never a background or cancelled child. The apply step (writing
// the results, the terminal subtask_refs, then `turn_aborted(process_restart)`, in one batch) is
// `adoptResults` below; the rest of the calls keep the generic "interrupted" repair of history.ts.

import type { ToolResultBlock } from "../protocol/messages.ts";
import type { NewTranscriptEvent, SubtaskRefPart, TranscriptEvent } from "../protocol/events.ts";
import type { SidecarRecord } from "../store/schema.ts";
import type { SidecarOwner } from "../store/store.ts";
import { isOwnedBy } from "../store/record_ops.ts";
import { canonicalResult, recordNotes } from "../run/result.ts";
import { lineageOf } from "../store/record_ops.ts";
import { isDelegationTool } from "../protocol/tool_names.ts";

/** A tool call of the transcript that has no result yet. */
export interface OrphanCall {
  callId: string;
  name: string;
  input: Record<string, unknown>;
}

export interface AdoptionPlan {
  /** The open turn the adoption closes (`turn_aborted(process_restart)`). */
  turn: number;
  adopted: { callId: string; agentId: string; result: ToolResultBlock; ref: SubtaskRefPart }[];
  /** Task calls not adopted, with the reason (they keep the generic interrupted result). */
  refused: { callId: string; reason: string }[];
}

/**
 * The open turn of the transcript and its tool calls that have no result. Undefined when no turn is
 * open (nothing was cut off, or an earlier pass already closed it).
 */
export function orphanCalls(
  events: readonly TranscriptEvent[],
): { turn: number; calls: OrphanCall[] } | undefined {
  let turn: number | undefined;
  let calls = new Map<string, OrphanCall>();
  const roles = new Map<string, string>();
  for (const e of events) {
    switch (e.type) {
      case "turn_started":
        turn = e.data.turn;
        calls = new Map();
        break;
      case "turn_completed":
      case "turn_aborted":
        turn = undefined;
        calls = new Map();
        break;
      case "message_created":
        roles.set(e.data.messageId, e.data.role);
        break;
      case "part_created": {
        const part = e.data.part;
        if (part.type === "tool_call" && roles.get(e.data.messageId) === "assistant") {
          calls.set(part.id, { callId: part.id, name: part.name, input: part.input });
        } else if (part.type === "tool_result") calls.delete(part.callId);
        break;
      }
      default:
        break;
    }
  }
  return turn === undefined ? undefined : { turn, calls: [...calls.values()] };
}

/** Why `record` may not be adopted as the result of `call`, or null when it may. */
export function adoptionRefusal(
  call: OrphanCall,
  record: SidecarRecord | null,
  owner: SidecarOwner,
): string | null {
  if (!isDelegationTool(call.name)) return "not an Agent call";
  const input = call.input;
  const id = input.subagent_session_id;
  if (typeof id !== "string") return "the call has no child id";
  if (record === null) return `child ${id} has no usable sidecar`;
  if (record.id !== id) return `the sidecar is ${record.id}, not ${id}`;
  if (!isOwnedBy(record, owner)) return `child ${id} belongs to another session or folder`;
  if (input.run_in_background === true || record.background) return `child ${id} ran in the background`;
  if (input.description !== record.description) return `child ${id} has another description`;
  if (input.subagent_type !== undefined && input.subagent_type !== record.subagentType) {
    return `child ${id} is a "${record.subagentType}" agent, not "${String(input.subagent_type)}"`;
  }
  const from = input.resume_from ?? input.resume;
  if (from === undefined && input.subagent_type === undefined) return `the call names no agent type`;
  if (from !== record.resumedFrom) return `child ${id} has another resume lineage`;
  if (record.status !== "completed" && record.status !== "failed") return `child ${id} is ${record.status}`;
  const r = record.result;
  if (typeof r.success !== "boolean" || typeof r.message !== "string") {
    return `child ${id} has a malformed result`;
  }
  if (r.success !== (record.status === "completed")) {
    return `child ${id} has a result that contradicts its status`;
  }
  if (r.error !== undefined && typeof r.error !== "string") return `child ${id} has a malformed error`;
  return null;
}

/** Pure: which orphan calls of the open turn get their child's result. */
export function planAdoption(
  events: readonly TranscriptEvent[],
  records: ReadonlyMap<string, SidecarRecord | null>,
  owner: SidecarOwner,
): AdoptionPlan | undefined {
  const open = orphanCalls(events);
  if (open === undefined) return undefined;
  const plan: AdoptionPlan = { turn: open.turn, adopted: [], refused: [] };
  for (const call of open.calls) {
    if (!isDelegationTool(call.name)) continue;
    const id = call.input.subagent_session_id;
    const record = typeof id === "string" ? records.get(id) ?? null : null;
    const refusal = adoptionRefusal(call, record, owner);
    if (refusal !== null || record === null) {
      plan.refused.push({ callId: call.callId, reason: refusal ?? "no record" });
      continue;
    }
    const status = record.status === "completed" ? "completed" : "failed";
    plan.adopted.push({
      callId: call.callId,
      agentId: record.id,
      result: {
        type: "tool_result",
        callId: call.callId,
        content: canonicalResult(record.id, { ...record.result, cancelled: false }, {
          lineage: lineageOf(record),
          notes: recordNotes(record),
        }),
        isError: !record.result.success,
      },
      ref: {
        type: "subtask_ref",
        callId: call.callId,
        agentId: record.id,
        subagentType: record.subagentType,
        description: record.description,
        background: false,
        state: status,
        lineage: record.resumedFrom === undefined
          ? { rootAgentId: record.rootAgentId, resumeDepth: record.resumeDepth }
          : {
            rootAgentId: record.rootAgentId,
            resumedFrom: record.resumedFrom,
            resumeDepth: record.resumeDepth,
          },
      },
    });
  }
  return plan;
}

/**
 * The events that carry out `plan`, in one batch: one user message with the adopted results (flagged
 * `adopted`) and the terminal subtask_refs, then `turn_aborted(process_restart)`. Nothing when no call
 * was adopted (the open turn stays as it was; the generic repair applies).
 */
export function adoptionEvents(
  plan: AdoptionPlan,
  message: (content: ToolResultBlock[], parts: SubtaskRefPart[]) => NewTranscriptEvent[],
): NewTranscriptEvent[] {
  if (plan.adopted.length === 0) return [];
  return [
    ...message(plan.adopted.map((a) => a.result), plan.adopted.map((a) => a.ref)),
    {
      type: "turn_aborted",
      data: {
        turn: plan.turn,
        cause: "process_restart",
        reason: `the process stopped; adopted the finished result of ${
          plan.adopted.map((a) => a.agentId).join(", ")
        }`,
      },
    },
  ];
}
