// Owns the canonical Task result (docs/reference/task-tool.md), shared by foreground runs and result adoption: the
// child's final text, a note when a worktree was kept, and the resume hint with the child id.

import type { ChildOutcome } from "../executor/child.ts";
import type { Lineage } from "../protocol/events.ts";

export interface WorktreeNote {
  path: string;
  branch: string;
}

export function canonicalResult(
  agentId: string,
  outcome: Pick<ChildOutcome, "success" | "message" | "error" | "cancelled">,
  extra: { worktree?: WorktreeNote; lineage?: Lineage } = {},
): string {
  const { worktree, lineage } = extra;
  const parts: string[] = [];
  if (outcome.success) {
    parts.push(
      outcome.message.trim() === ""
        ? "(The agent finished without a final message.)"
        : outcome.message.trim(),
    );
  } else if (outcome.cancelled) parts.push(`Subagent execution failed: the agent was cancelled.`);
  else parts.push(`Subagent execution failed: ${outcome.error ?? "unknown error"}`);
  if (worktree !== undefined) {
    parts.push(`The agent's worktree was kept: ${worktree.path} (branch ${worktree.branch}).`);
  }
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
