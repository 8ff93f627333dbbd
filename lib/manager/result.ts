// Owns the canonical Task result (docs/reference/task-tool.md), shared by foreground runs and result adoption: the
// child's final text, a note when a worktree was kept, and the resume hint with the child id.
// `recordNotes` gives the notes of a finished record, so adoption says the same as the live result.

import type { ChildOutcome } from "../executor/child.ts";
import type { Lineage } from "../protocol/events.ts";
import type { SidecarRecord } from "../store/schema.ts";
import { preservedLine } from "../worktree/view.ts";

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
  parts.push(`agentId: ${agentId} (to continue this agent, call Task with resume_from: "${agentId}")`);
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
