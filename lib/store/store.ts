// Owns the sidecar store port (docs/reference/sidecars.md): what every store implementation offers and guarantees.
// Does not implement storage (file_store.ts, memory_store.ts) and holds no executor or run
// logic: it stores, loads, lists and removes records for its callers.

import type { LoadResult, SidecarDiagnostic } from "./codec.ts";
import type { SidecarRecord, SidecarResult, TerminalStatus } from "./schema.ts";
import type { RunSummary } from "./run_summary.ts";

export type { LoadResult, SidecarDiagnostic, SidecarDiagnosticCode } from "./codec.ts";
export { publicProjection } from "./projection.ts";
export type { PublicSidecar } from "./projection.ts";

/** Who a child belongs to. Every lookup by a parent filters on both fields. */
export interface SidecarOwner {
  parentSessionId: string;
  /** Canonical absolute project path. */
  parentProjectPath: string;
}

/** Fields to replace. `id` and `schemaVersion` never change; `lastActiveAt` is always bumped. */
export type SidecarPatch = Partial<Omit<SidecarRecord, "id" | "schemaVersion">>;

/** A patch, or a function from the current record to the next one (to remove optional fields). */
export type SidecarChange = SidecarPatch | ((record: SidecarRecord) => SidecarRecord);

/** One record's change in a group commit: the next record, or null to leave it as it is (not written). */
export interface GroupChange {
  id: string;
  change: (record: SidecarRecord) => SidecarRecord | null;
}

/** How one record of a group commit ended: written (or left as it was), or its own error. */
export type GroupOutcome = { record: SidecarRecord; written: boolean } | { error: unknown };

export interface SidecarCompletion {
  status: TerminalStatus;
  result: SidecarResult;
  completedAt: number;
}

export interface SidecarListing {
  records: SidecarRecord[];
  diagnostics: SidecarDiagnostic[];
}

export type { RunSummary } from "./run_summary.ts";

/** Every usable record's summary and a diagnostic for each unusable record. */
export interface RunListing {
  /** Most recently active first. */
  runs: RunSummary[];
  diagnostics: SidecarDiagnostic[];
}

/**
 * Durable sidecar records, one per child run. Every method validates the id first and throws
 * BladeError `invalid_session_id` before touching storage. Records handed out are copies.
 */
export interface SidecarStore {
  /** Stores a new record; BladeError `session_exists` when the id is taken (even by a corrupt file). */
  create(record: SidecarRecord): Promise<void>;
  /** Stores `record` as given (create or replace). BladeError `invalid_sidecar` when it is not valid. */
  save(record: SidecarRecord): Promise<void>;
  /** The record, a diagnostic when the stored data is unusable (fail closed, never throws), or null. */
  load(id: string): Promise<LoadResult | null>;
  /**
   * Applies `change` to the stored record and bumps `lastActiveAt` to the store clock's now. Throws
   * BladeError `session_not_found` when absent, `invalid_sidecar` when the stored data is unusable.
   */
  update(id: string, change: SidecarChange): Promise<SidecarRecord>;
  /**
   * `update` of several records as one group commit, each from its stored record as it is now (a
   * change returning null leaves that record unwritten). The file store writes and fsyncs every
   * record's temp file, renames them all, then fsyncs the folder once, holding every record's lock
   * until then: each record ends either as it was or as changed, never torn, whenever the process
   * dies. One entry per id (BladeError `invalid_sidecar` otherwise). Outcomes in the order given; one
   * record's failure (not found, unusable, a failed write) is its own and the others go on.
   */
  updateMany(changes: readonly GroupChange[]): Promise<GroupOutcome[]>;
  /**
   * Moves a running record to a terminal state. A record already terminal is returned unchanged:
   * the first terminal state wins (a cancelled run is never rewritten to failed).
   */
  markCompleted(id: string, completion: SidecarCompletion): Promise<SidecarRecord>;
  /** The owner's valid records, most recently active first. */
  list(owner: SidecarOwner): Promise<SidecarRecord[]>;
  /** Every valid record (most recently active first) and a diagnostic for each unusable one. */
  listAll(): Promise<SidecarListing>;
  /**
   * Every valid record that is running (most recently active first), and a diagnostic for each
   * unusable one among those that may be: what finding orphans needs, without reading every record
   * the store keeps (the file store keeps an index of running records).
   */
  listRunning(): Promise<SidecarListing>;
  /** Removes the stored data of `id` (valid or not); false when there was none. */
  remove(id: string): Promise<boolean>;
  /**
   * Every usable record's summary (most recently active first) and a diagnostic for each unusable
   * one: what listings need, without reading every record the store keeps (the file store keeps a run
   * index, run_index.ts; the records it reads are the running ones and those changed since).
   */
  listSummaries(): Promise<RunListing>;
  /**
   * Removes the terminal records inactive for more than `olderThanMs` (now defaults to the store
   * clock) that `select` picks, each decided on its current state. Returns their summaries.
   */
  cleanExpired(
    select: (run: RunSummary) => boolean,
    olderThanMs: number,
    options?: { now?: number },
  ): Promise<RunSummary[]>;
  /**
   * The record with what it spilled read back (spill.ts): the whole result, error and conversation.
   * A store that never spills (its records have no `spill`) need not offer it.
   */
  readSpilled?(record: SidecarRecord): Promise<SidecarRecord>;
}

/** `record` whole: its spilled values read back by the store that holds it, when it spilled any. */
export async function wholeRecord(store: SidecarStore, record: SidecarRecord): Promise<SidecarRecord> {
  return store.readSpilled === undefined ? record : await store.readSpilled(record);
}
