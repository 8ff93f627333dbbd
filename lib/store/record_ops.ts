// Owns the record transformations every store shares: applying a change, completing a run, owner
// filtering, ordering and expiry, and a record's lineage. Pure functions, no storage.

import { BladeError } from "../errors.ts";
import { validateSessionId } from "../protocol/ids.ts";
import type { SidecarDiagnostic } from "./codec.ts";
import type { SidecarRecord } from "./schema.ts";
import type { Lineage } from "../protocol/events.ts";
import type { GroupChange, SidecarChange, SidecarCompletion, SidecarOwner } from "./store.ts";

/** The next record after `change`, with `lastActiveAt` bumped to `now`. */
export function applyChange(
  record: SidecarRecord,
  change: SidecarChange,
  at: { now: number },
): SidecarRecord {
  const next = typeof change === "function" ? change(structuredClone(record)) : { ...record, ...change };
  return checkedNext(record, next, at);
}

/** A group commit's change of `record` (null: left as it is), with `lastActiveAt` bumped to `now`. */
export function applyGroupChange(
  record: SidecarRecord,
  change: GroupChange["change"],
  at: { now: number },
): SidecarRecord | null {
  const next = change(structuredClone(record));
  return next === null ? null : checkedNext(record, next, at);
}

/**
 * Every id of a group commit valid (BladeError `invalid_session_id` before any storage is touched),
 * and each once (a second entry would wait on the first's lock forever).
 */
export function checkGroupIds(changes: readonly GroupChange[]): void {
  const seen = new Set<string>();
  for (const { id } of changes) {
    validateSessionId(id);
    if (seen.has(id)) {
      throw new BladeError("invalid_sidecar", `Sidecar "${id}" appears twice in one group commit`);
    }
    seen.add(id);
  }
}

function checkedNext(record: SidecarRecord, next: SidecarRecord, at: { now: number }): SidecarRecord {
  if (next.id !== record.id || next.schemaVersion !== record.schemaVersion) {
    throw new BladeError(
      "invalid_sidecar",
      `Cannot change the id or schema version of sidecar "${record.id}"`,
    );
  }
  return { ...next, lastActiveAt: at.now };
}

/** The completed record, or null when `record` is already terminal (the first terminal state wins). */
export function completeRecord(
  record: SidecarRecord,
  completion: SidecarCompletion,
  at: { now: number },
): SidecarRecord | null {
  if (record.status !== "running") return null;
  return {
    ...record,
    status: completion.status,
    result: completion.result,
    completedAt: completion.completedAt,
    lastActiveAt: at.now,
  };
}

/** Owner equality on both fields; a record (or anything naming an owner) against an owner. */
export function isOwnedBy(record: SidecarOwner, owner: SidecarOwner): boolean {
  return record.parentSessionId === owner.parentSessionId &&
    record.parentProjectPath === owner.parentProjectPath;
}

/** Most recently active first; ties by id so listings are stable. */
export function byRecentActivity(a: SidecarRecord, b: SidecarRecord): number {
  return b.lastActiveAt - a.lastActiveAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** A terminal record inactive for more than `olderThanMs` at `now`. */
export function isExpired(
  record: Pick<SidecarRecord, "status" | "lastActiveAt">,
  olderThanMs: number,
  at: { now: number },
): boolean {
  return record.status !== "running" && at.now - record.lastActiveAt > olderThanMs;
}

export function notFound(id: string): BladeError {
  return new BladeError("session_not_found", `Subagent session not found: ${id}`);
}

export function alreadyExists(id: string): BladeError {
  return new BladeError("session_exists", `Subagent session already exists: ${id}`, {
    hint: "Use a new id, or resume from the existing session.",
  });
}

/** The stored data of a record a caller wants to change cannot be used. */
export function unusable(diagnostic: SidecarDiagnostic): BladeError {
  return new BladeError("invalid_sidecar", diagnostic.message, {
    hint: diagnostic.file === undefined
      ? "Remove the record and start a new run."
      : `Inspect or remove ${diagnostic.file}, then start a new run.`,
  });
}

/** The lineage a record carries (decided at launch, read by every projection): its root, the run it resumed, its resume depth. */
export function lineageOf(record: SidecarRecord): Lineage {
  return record.resumedFrom === undefined
    ? { rootAgentId: record.rootAgentId, resumeDepth: record.resumeDepth }
    : { rootAgentId: record.rootAgentId, resumedFrom: record.resumedFrom, resumeDepth: record.resumeDepth };
}
