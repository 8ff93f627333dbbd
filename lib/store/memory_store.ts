// Owns the in-memory sidecar store: the same port and guarantees as the file store, with each record
// kept as its encoded text (so loads are copies, unknown fields survive and bad data fails closed the
// same way). For tests and ephemeral runs; nothing survives the process.

import type { Clock } from "../sys/clock.ts";
import { decodeSidecar, encodeSidecar, type LoadResult, type SidecarDiagnostic } from "./codec.ts";
import { isValidSessionId, validateSessionId } from "../protocol/ids.ts";
import {
  alreadyExists,
  applyChange,
  applyGroupChange,
  byRecentActivity,
  checkGroupIds,
  completeRecord,
  isExpired,
  isOwnedBy,
  notFound,
  unusable,
} from "./record_ops.ts";
import type { SidecarRecord } from "./schema.ts";
import { summarize } from "./run_summary.ts";
import type {
  GroupChange,
  GroupOutcome,
  RunListing,
  RunSummary,
  SidecarChange,
  SidecarCompletion,
  SidecarListing,
  SidecarOwner,
  SidecarStore,
} from "./store.ts";

export interface MemorySidecarStoreOptions {
  clock: Clock;
  /** Backing texts by id; pass your own map to plant raw (e.g. corrupt or legacy) data in tests. */
  texts?: Map<string, string>;
}

export class MemorySidecarStore implements SidecarStore {
  #clock: Clock;
  #texts: Map<string, string>;

  constructor(options: MemorySidecarStoreOptions) {
    this.#clock = options.clock;
    this.#texts = options.texts ?? new Map();
  }

  create(record: SidecarRecord): Promise<void> {
    return Promise.try(() => {
      validateSessionId(record.id);
      if (this.#texts.has(record.id)) throw alreadyExists(record.id);
      this.#texts.set(record.id, encodeSidecar(record));
    });
  }

  save(record: SidecarRecord): Promise<void> {
    return Promise.try(() => {
      validateSessionId(record.id);
      this.#texts.set(record.id, encodeSidecar(record));
    });
  }

  load(id: string): Promise<LoadResult | null> {
    return Promise.try(() => this.#load(id));
  }

  update(id: string, change: SidecarChange): Promise<SidecarRecord> {
    return Promise.try(() =>
      this.#mutate(id, (record) => applyChange(record, change, { now: this.#clock.now() }))
    );
  }

  async updateMany(changes: readonly GroupChange[]): Promise<GroupOutcome[]> {
    checkGroupIds(changes);
    // Nothing here can be torn: the changes are applied one after another, each on its own.
    return await Promise.all(changes.map(({ id, change }) =>
      Promise.try(() => {
        let written = false;
        const record = this.#mutate(id, (current) => {
          const next = applyGroupChange(current, change, { now: this.#clock.now() });
          written = next !== null;
          return next;
        });
        return { record, written };
      }).catch((error: unknown) => ({ error }))
    ));
  }

  markCompleted(id: string, completion: SidecarCompletion): Promise<SidecarRecord> {
    return Promise.try(() =>
      this.#mutate(id, (record) => completeRecord(record, completion, { now: this.#clock.now() }))
    );
  }

  async list(owner: SidecarOwner): Promise<SidecarRecord[]> {
    const { records } = await this.listAll();
    return records.filter((r) => isOwnedBy(r, owner));
  }

  async listRunning(): Promise<SidecarListing> {
    const all = await this.listAll();
    return { records: all.records.filter((r) => r.status === "running"), diagnostics: all.diagnostics };
  }

  listAll(): Promise<SidecarListing> {
    return Promise.try(() => {
      const records: SidecarRecord[] = [];
      const diagnostics: SidecarDiagnostic[] = [];
      for (const id of [...this.#texts.keys()].sort()) {
        if (!isValidSessionId(id)) {
          const message = `Sidecar key ${JSON.stringify(id)} is not a valid session id`;
          diagnostics.push({ id, code: "invalid_file_name", message });
          continue;
        }
        const result = this.#load(id);
        if (result === null) continue;
        if ("record" in result) records.push(result.record);
        else diagnostics.push(result.diagnostic);
      }
      records.sort(byRecentActivity);
      return { records, diagnostics };
    });
  }

  remove(id: string): Promise<boolean> {
    return Promise.try(() => this.#texts.delete(validateSessionId(id)));
  }

  async listSummaries(): Promise<RunListing> {
    const { records, diagnostics } = await this.listAll();
    return { runs: records.map(summarize), diagnostics };
  }

  async cleanExpired(
    select: (run: RunSummary) => boolean,
    olderThanMs: number,
    options: { now?: number } = {},
  ): Promise<RunSummary[]> {
    const now = options.now ?? this.#clock.now();
    const { runs } = await this.listSummaries();
    const expired = runs.filter((r) => isExpired(r, olderThanMs, { now }) && select(r));
    for (const run of expired) this.#texts.delete(run.id);
    return expired;
  }

  #load(id: string): LoadResult | null {
    const text = this.#texts.get(validateSessionId(id));
    return text === undefined ? null : decodeSidecar(text, id);
  }

  #mutate(id: string, next: (record: SidecarRecord) => SidecarRecord | null): SidecarRecord {
    const current = this.#load(id);
    if (current === null) throw notFound(id);
    if ("diagnostic" in current) throw unusable(current.diagnostic);
    const record = next(current.record);
    if (record === null) return current.record;
    this.#texts.set(id, encodeSidecar(record));
    return structuredClone(record);
  }
}
