// Owns the public projection of a sidecar (docs/reference/sidecars.md), used by listings and `--json`: built field by
// field from an allow-list, so it never carries the prompt, messages, configSnapshot, paths, parent
// ids, admission owner, PID or process identity, nor any unknown field.

import type {
  RestartRecovery,
  SidecarRecord,
  SidecarStats,
  SidecarStatus,
  VerificationVerdict,
} from "./schema.ts";

export interface PublicSidecar {
  id: string;
  subagentType: string;
  description: string;
  status: SidecarStatus;
  background: boolean;
  result: {
    success: boolean;
    message: string;
    error?: string;
    verificationCommands?: string[];
    verificationVerdict?: VerificationVerdict;
    /** How many files the run modified (the paths themselves are not public). */
    modifiedFileCount?: number;
  };
  stats: SidecarStats;
  createdAt: number;
  lastActiveAt: number;
  completedAt?: number;
  restartRecovery?: RestartRecovery;
  rootAgentId: string;
  resumedFrom?: string;
  resumeDepth: number;
  isolation: SidecarRecord["isolation"];
  /** The worktree's branch and base commit; never its path or repository root. */
  worktree?: { branch: string; baseCommit: string };
  /** The machine (hostname) whose process runs or ran it, when a shared store recorded one (`--store`). */
  machine?: string;
  /** A remote child's worker and result branch (`blade tasks output <id> --fetch` brings it here). */
  remote?: { worker?: string; branch?: string; commits?: number; baseCommit: string };
}

export function publicProjection(record: SidecarRecord): PublicSidecar {
  const r = record.result;
  const result: PublicSidecar["result"] = { success: r.success, message: r.message };
  if (r.error !== undefined) result.error = r.error;
  if (r.verificationCommands !== undefined) result.verificationCommands = [...r.verificationCommands];
  if (r.verificationVerdict !== undefined) {
    result.verificationVerdict = structuredClone(r.verificationVerdict);
  }
  if (r.modifiedFiles !== undefined) result.modifiedFileCount = r.modifiedFiles.length;
  const out: PublicSidecar = {
    id: record.id,
    subagentType: record.subagentType,
    description: record.description,
    status: record.status,
    background: record.background,
    result,
    stats: {
      tokens: record.stats.tokens,
      toolCalls: record.stats.toolCalls,
      durationMs: record.stats.durationMs,
    },
    createdAt: record.createdAt,
    lastActiveAt: record.lastActiveAt,
    rootAgentId: record.rootAgentId,
    resumeDepth: record.resumeDepth,
    isolation: record.isolation,
  };
  if (record.completedAt !== undefined) out.completedAt = record.completedAt;
  if (record.restartRecovery !== undefined) {
    out.restartRecovery = {
      outcome: record.restartRecovery.outcome,
      recoveredAt: record.restartRecovery.recoveredAt,
    };
  }
  if (record.resumedFrom !== undefined) out.resumedFrom = record.resumedFrom;
  if (record.machine !== undefined) out.machine = record.machine;
  if (record.worktree !== undefined) {
    out.worktree = { branch: record.worktree.branch, baseCommit: record.worktree.baseCommit };
  }
  const remote = record.remote;
  if (remote !== undefined) {
    out.remote = {
      baseCommit: remote.baseCommit,
      ...(remote.worker === undefined ? {} : { worker: remote.worker }),
      ...(remote.branch === undefined ? {} : { branch: remote.branch }),
      ...(remote.commits === undefined ? {} : { commits: remote.commits }),
    };
  }
  return out;
}
