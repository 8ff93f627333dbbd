// Owns the canonical Task result (docs/reference/task-tool.md), shared by foreground runs and result adoption: the
// child's final text, a note when a worktree was kept, and the resume hint with the child id.
// `recordNotes` gives the notes of a finished record, so adoption says the same as the live result;
// `foregroundResult`, `backgroundStarted` and `launchRefused` are the Task tool results of a launch.

import type { ChildOutcome } from "../executor/child.ts";
import type { Lineage, SubtaskState } from "../protocol/events.ts";
import type { SidecarRecord } from "../store/schema.ts";
import type { ToolResult } from "../tools/tool.ts";
import { preservedLine, worktreeView } from "../worktree/view.ts";
import { subtaskRef } from "./projections.ts";
import { lineageOf } from "../store/record_ops.ts";

/** The notes a finished record adds to its Task result: `Worktree preserved at …` when one was kept. */
export function recordNotes(record: Pick<SidecarRecord, "worktree">): string[] {
  const line = record.worktree === undefined ? undefined : preservedLine(record.worktree);
  return line === undefined ? [] : [line];
}

/** The child's final text (or failure), `notes` (e.g. a preserved worktree), then the resume hint. */
export function canonicalResult(
  agentId: string,
  outcome: Pick<ChildOutcome, "success" | "message" | "error" | "cancelled">,
  extra: { notes?: readonly string[]; lineage?: Lineage } = {},
): string {
  const { notes = [], lineage } = extra;
  const parts: string[] = [];
  if (outcome.success) {
    parts.push(
      outcome.message.trim() === ""
        ? "(The agent finished without a final message.)"
        : outcome.message.trim(),
    );
  } else if (outcome.cancelled) parts.push(`Subagent execution failed: the agent was cancelled.`);
  else parts.push(`Subagent execution failed: ${outcome.error ?? "unknown error"}`);
  parts.push(...notes);
  parts.push(`agentId: ${agentId} (to continue this agent, call Agent with resume_from: "${agentId}")`);
  if (lineage?.resumedFrom !== undefined) {
    parts.push(
      `resumed_from: ${lineage.resumedFrom}, root_agent_id: ${lineage.rootAgentId}, resume_depth: ${lineage.resumeDepth}`,
    );
  }
  return parts.join("\n\n");
}

/** At most 500 characters describing the outcome, for metadata, listings and events. */
export function summarize(
  outcome: Pick<ChildOutcome, "success" | "message" | "error" | "cancelled">,
): string {
  const text = outcome.success
    ? outcome.message
    : outcome.cancelled
    ? "cancelled"
    : `failed: ${outcome.error ?? "unknown error"}`;
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 500 ? `${flat.slice(0, 499)}…` : flat;
}

/** The Task result of a foreground run that ended: its canonical text, metadata and terminal ref. */
export function foregroundResult(
  callId: string,
  done: SidecarRecord,
  outcome: ChildOutcome,
  status: SubtaskState,
  summary: string,
  capped?: string[],
): ToolResult {
  return {
    content: canonicalResult(done.id, outcome, { lineage: lineageOf(done), notes: recordNotes(done) }) +
      cappedNote(capped),
    isError: !outcome.success,
    metadata: {
      agentId: done.id,
      lineage: lineageOf(done),
      status,
      summary,
      stats: outcome.stats,
      subagentType: done.subagentType,
      ...findingsMetadata(done),
      ...(capped === undefined ? {} : { capped }),
    },
    parts: [subtaskRef(callId, done, status)],
  };
}

/** The Task result of a background run that just started. */
export function backgroundStarted(record: SidecarRecord, capped?: string[]): ToolResult {
  return {
    content: JSON.stringify({
      agent_id: record.id,
      status: "running",
      ...(record.resumedFrom === undefined ? {} : { resumed_from: record.resumedFrom }),
      message: `Started ${record.subagentType} in the background. You will receive a completion notice ` +
        `when it finishes; do not poll for it. Continue with other work, or end your turn to wait.`,
    }),
    isError: false,
    metadata: {
      agentId: record.id,
      lineage: lineageOf(record),
      status: "running",
      subagentType: record.subagentType,
      background: true,
      ...(capped === undefined ? {} : { capped }),
    },
  };
}

/** Tells the model what the child did not get (the capability ceiling), so it does not expect it. */
function cappedNote(capped: string[] | undefined): string {
  return capped === undefined ? "" : `\nNote: ${capped.join("; ")}.`;
}

/** Task metadata of a finished record: its verdict, evidence and worktree. */
function findingsMetadata(record: SidecarRecord): Record<string, unknown> {
  const r = record.result;
  return {
    ...(r.modifiedFiles === undefined ? {} : { modifiedFiles: r.modifiedFiles }),
    ...(r.verificationCommands === undefined ? {} : { verificationCommands: r.verificationCommands }),
    ...(r.verificationVerdict === undefined ? {} : { verificationVerdict: r.verificationVerdict }),
    ...(record.worktree === undefined ? {} : { worktree: worktreeView(record.worktree) }),
  };
}

/** The Task result of a launch that was refused or could not record its child. */
export function launchRefused(message: string, id: string): ToolResult {
  return {
    content: `Subagent execution failed: ${message}\nagentId: ${id}`,
    isError: true,
    metadata: { agentId: id },
  };
}

/** How a finished run is reported: a record still running (its commit failed) counts as failed. */
export function completion(
  record: SidecarRecord,
  outcome: Pick<ChildOutcome, "success" | "message" | "error" | "cancelled">,
): { status: Exclude<SubtaskState, "running">; summary: string } {
  const status = record.status === "running" ? "failed" : record.status;
  return { status, summary: status === "cancelled" ? "cancelled" : summarize(outcome) };
}
