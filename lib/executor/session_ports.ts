// Owns what the top-level session's opener (main_runner.ts) is given from the layers above it, as two
// named ports: the session's subagent layer (its Task tools, the agent list for the system prompt,
// its background work) and its crash recovery (a continued session's orphans reconciled and finished
// results adopted before its first model request). lib/runtime/runtime.ts implements both.

import type { SubtaskRefPart } from "../protocol/events.ts";
import type { PendingWork } from "../protocol/delivery.ts";
import type { AnyTool } from "../tools/tool.ts";
import type { TranscriptLog } from "../session/transcript.ts";

/** What the subagent layer adds to one top-level session. */
export interface SessionSubagents {
  tools: AnyTool[];
  agentsText?: string;
  /** The subagent types this session can delegate to (shown in stream-json's system/init). */
  agentNames?: string[];
  /**
   * This session's background work. `delivered` holds inbox ids whose receipts the transcript has;
   * `subtasks` are the transcript's subtask refs (background calls made before a restart).
   */
  pending?: (delivered: Set<string>, subtasks: readonly SubtaskRefPart[]) => PendingWork;
}

/** What recovering a continued session did: `changed` = its transcript was written (rebuild the history). */
export interface RecoveryOutcome {
  changed: boolean;
  /** What recovery could not do (reported, never fatal). */
  warnings: string[];
}

/**
 * Crash recovery of a continued top-level session, run by its opener once the session's lease is held
 * and before its first model request (ARCHITECTURE.md, "Crash recovery: the planner and where it runs").
 */
export interface SessionRecovery {
  recover(session: { sessionId: string; transcript: TranscriptLog }): Promise<RecoveryOutcome>;
}
