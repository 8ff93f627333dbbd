// Owns the NATS JetStream sidecar store (docs/guides/remote.md): the store port of lib/store/store.ts
// over one KV bucket, each record its encoded text under its id's key. Every read-modify-write is a
// compare-and-set on the entry's revision, retried from the fresh value when another writer won, so
// two processes on two machines never lose each other's changes. Records are decoded and validated
// like the file store's (fail closed) and redacted like its records before they are written (secrets
// never reach the servers); record logic is lib/store/record_ops.ts, shared with every store.
//
// The running index: a marker key `running.<key>` (nats_keys.ts) is put before a record is first written
// running and deleted once it was written terminal, so listRunning reads only the records that may be
// running. Whoever moves a record to running marks it, and checks the marker is still there after the
// write (one who unmarks re-reads the record first and deletes only the marker revision it read), so a
// running record always has its marker; a stale marker is harmless (listRunning reads its record, finds
// it terminal or gone, and removes the marker).

import { BladeError } from "../errors.ts";
import { validateSessionId } from "../protocol/ids.ts";
import type { Clock } from "../sys/clock.ts";
import { decodeSidecar, encodeSidecar, type LoadResult, type SidecarDiagnostic } from "../store/codec.ts";
import { KeyedLock } from "../store/keyed_lock.ts";
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
} from "../store/record_ops.ts";
import type { SidecarRecord } from "../store/schema.ts";
import type {
  GroupChange,
  GroupOutcome,
  RunListing,
  SidecarChange,
  SidecarCompletion,
  SidecarListing,
  SidecarOwner,
  SidecarStore,
} from "../store/store.ts";
import { type RunSummary, summarize } from "../store/run_summary.ts";
import { CasConflict, type KvBucket } from "./nats_link.ts";
import { isTransient, pauseAfter } from "./nats_retry.ts";
import { checkRecordSize, type NatsSpill } from "./nats_spill.ts";
import { idOfKey, idOfRunningKey, keyOfId, RECORD_KEYS, RUNNING_KEYS, runningKeyOfId } from "./nats_keys.ts";

/** How many times one update re-reads and retries after losing a compare-and-set. */
export const CAS_ATTEMPTS = 64;

export interface NatsSidecarStoreOptions {
  clock: Clock;
  /**
   * Removes secrets from every record before it is written (messages, result, error, prompt…);
   * callers then see the redacted record, exactly as a later read would (the file store's option).
   */
  redact?: (text: string) => string;
  /** Where large results, errors and conversations go (nats_spill.ts); without it they stay inline. */
  spill?: NatsSpill;
}

export class NatsSidecarStore implements SidecarStore {
  #bucket: KvBucket;
  #clock: Clock;
  #redact: ((text: string) => string) | undefined;
  #spill: NatsSpill | undefined;
  /** Writers in this process take turns per record, so CAS retries are left to other processes. */
  #locks = new KeyedLock();

  constructor(bucket: KvBucket, options: NatsSidecarStoreOptions) {
    this.#bucket = bucket;
    this.#clock = options.clock;
    this.#redact = options.redact;
    this.#spill = options.spill;
  }

  /** The record with its spilled values read back (nats_spill.ts). */
  readSpilled(record: SidecarRecord): Promise<SidecarRecord> {
    return this.#spill === undefined ? Promise.resolve(record) : this.#spill.read(record);
  }

  /** The record as stored: its large values spilled first (nats_spill.ts). */
  async #spilled(record: SidecarRecord): Promise<SidecarRecord> {
    return this.#spill === undefined ? record : await this.#spill.stored(record);
  }

  async create(given: SidecarRecord): Promise<void> {
    const key = keyOfId(validateSessionId(given.id));
    const { record, text } = this.#redacted(await this.#spilled(given));
    if (record.status === "running") await this.#mark(record.id);
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      try {
        await this.#bucket.create(key, text);
        return;
      } catch (error) {
        if (error instanceof CasConflict) throw alreadyExists(record.id);
        if (!isTransient(error)) throw error;
        await pauseAfter(this.#clock, attempt + 1);
        // The create may have landed before the answer was lost: ours if the stored text is ours.
        const stored = await this.#bucket.get(key);
        if (stored !== null) {
          if (stored.text === text) return;
          throw alreadyExists(record.id);
        }
      }
    }
    throw conflict(record.id);
  }

  async save(given: SidecarRecord): Promise<void> {
    const key = keyOfId(validateSessionId(given.id));
    const { record, text } = this.#redacted(await this.#spilled(given));
    await this.#locks.run(key, async () => {
      // What was stored before is not known here: a running record is marked, a terminal one unmarked.
      if (record.status === "running") await this.#mark(record.id);
      await this.#bucket.put(key, text);
      if (record.status === "running") await this.#checkMarked(record.id);
      else await this.#unmark(record.id);
    });
  }

  async load(id: string): Promise<LoadResult | null> {
    const entry = await this.#bucket.get(keyOfId(validateSessionId(id)));
    return entry === null ? null : decodeSidecar(entry.text, id);
  }

  async update(id: string, change: SidecarChange): Promise<SidecarRecord> {
    return await this.#mutate(id, (record) => applyChange(record, change, { now: this.#clock.now() }));
  }

  async updateMany(changes: readonly GroupChange[]): Promise<GroupOutcome[]> {
    checkGroupIds(changes);
    // Each record is its own compare-and-set: it ends as it was or as changed, never torn.
    return await Promise.all(changes.map(async ({ id, change }) => {
      try {
        let written = false;
        const record = await this.#mutate(id, (current) => {
          const next = applyGroupChange(current, change, { now: this.#clock.now() });
          written = next !== null;
          return next;
        });
        return { record, written };
      } catch (error) {
        return { error };
      }
    }));
  }

  async markCompleted(id: string, completion: SidecarCompletion): Promise<SidecarRecord> {
    return await this.#mutate(id, (record) => completeRecord(record, completion, { now: this.#clock.now() }));
  }

  async list(owner: SidecarOwner): Promise<SidecarRecord[]> {
    return (await this.listAll()).records.filter((r) => isOwnedBy(r, owner));
  }

  async listRunning(): Promise<SidecarListing> {
    const ids = (await this.#bucket.keys(RUNNING_KEYS)).flatMap((key) => idOfRunningKey(key) ?? []).sort();
    const records: SidecarRecord[] = [];
    const diagnostics: SidecarDiagnostic[] = [];
    await Promise.all(ids.map(async (id) => {
      const result = await this.load(id);
      if (result !== null && "diagnostic" in result) diagnostics.push(result.diagnostic);
      else if (result?.record.status === "running") records.push(result.record);
      else await this.#unmark(id);
    }));
    records.sort(byRecentActivity);
    diagnostics.sort((a, b) => a.id.localeCompare(b.id));
    return { records, diagnostics };
  }

  async listAll(): Promise<SidecarListing> {
    const keys = (await this.#bucket.keys(RECORD_KEYS)).sort();
    const records: SidecarRecord[] = [];
    const diagnostics: SidecarDiagnostic[] = [];
    const loaded = await Promise.all(keys.map(async (key) => {
      const id = idOfKey(key);
      if (id === null) return { key, result: null };
      const entry = await this.#bucket.get(key);
      return { key, result: entry === null ? null : decodeSidecar(entry.text, id) };
    }));
    for (const { key, result } of loaded) {
      if (idOfKey(key) === null) {
        const message = `Sidecar key ${JSON.stringify(key)} is not a valid session id`;
        diagnostics.push({ id: key, code: "invalid_file_name", message });
      } else if (result !== null) {
        if ("record" in result) records.push(result.record);
        else diagnostics.push(result.diagnostic);
      }
    }
    records.sort(byRecentActivity);
    return { records, diagnostics };
  }

  async remove(id: string): Promise<boolean> {
    const key = keyOfId(validateSessionId(id));
    return await this.#locks.run(key, async () => {
      for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
        const entry = await this.#bucket.get(key);
        if (entry === null) return false;
        try {
          await this.#bucket.remove(key, entry.revision);
          await this.#unmark(id);
          const gone = decodeSidecar(entry.text, id);
          if ("record" in gone) await this.#spill?.forget(gone.record);
          return true;
        } catch (error) {
          if (!(error instanceof CasConflict) && !isTransient(error)) throw error;
          // A lost answer to a delete that landed: the next read finds nothing (and says false).
        }
      }
      throw conflict(id);
    });
  }

  /** The run summaries: this store reads every record (a KV read is cheap; no separate index yet). */
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
    const removed: RunSummary[] = [];
    for (const run of (await this.listSummaries()).runs) {
      if (!isExpired(run, olderThanMs, { now }) || !select(run)) continue;
      const key = keyOfId(run.id);
      // Removed only as it was read: a record another process touched since is left alone.
      const gone = await this.#locks.run(key, async () => {
        const entry = await this.#bucket.get(key);
        if (entry === null) return false;
        const current = decodeSidecar(entry.text, run.id);
        if (!("record" in current) || !isExpired(summarize(current.record), olderThanMs, { now })) {
          return false;
        }
        try {
          await this.#bucket.remove(key, entry.revision);
        } catch (error) {
          if (error instanceof CasConflict) return false;
          throw error;
        }
        await this.#spill?.forget(current.record);
        return true;
      });
      if (gone) removed.push(run);
    }
    return removed;
  }

  /** Reads, changes and writes back with a CAS on the revision read, until no one else wrote between. */
  #mutate(id: string, next: (record: SidecarRecord) => SidecarRecord | null): Promise<SidecarRecord> {
    const key = keyOfId(validateSessionId(id));
    return this.#locks.run(key, async () => {
      for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
        const entry = await this.#bucket.get(key);
        if (entry === null) throw notFound(id);
        const current = decodeSidecar(entry.text, id);
        if ("diagnostic" in current) throw unusable(current.diagnostic);
        const changed = next(current.record);
        if (changed === null) return current.record;
        const { record, text } = this.#redacted(await this.#spilled(changed));
        const starts = record.status === "running" && current.record.status !== "running";
        if (starts) await this.#mark(id);
        const written = async () => {
          if (starts) await this.#checkMarked(id);
          else if (record.status !== "running" && current.record.status === "running") await this.#unmark(id);
          return structuredClone(record);
        };
        try {
          await this.#bucket.update(key, text, entry.revision);
          return await written();
        } catch (error) {
          if (error instanceof CasConflict) continue;
          if (!isTransient(error)) throw error;
          await pauseAfter(this.#clock, attempt + 1);
          // The answer was lost (a node died, a leader is being elected), the write may have landed:
          // it did when the stored text is ours at a later revision. Applying it again would double it.
          const stored = await this.#bucket.get(key);
          if (stored !== null && stored.revision > entry.revision && stored.text === text) {
            return await written();
          }
        }
      }
      throw conflict(id);
    });
  }

  /** The record as it will be stored: its text redacted, and the record decoded back when that changed it. */
  #redacted(given: SidecarRecord): { record: SidecarRecord; text: string } {
    const encoded = encodeSidecar(given);
    const text = this.#redact === undefined ? encoded : this.#redact(encoded);
    checkRecordSize(given.id, text);
    return { record: text === encoded ? given : JSON.parse(text) as SidecarRecord, text };
  }

  /** Before `id` is written running: its marker exists. */
  async #mark(id: string): Promise<void> {
    await this.#bucket.put(runningKeyOfId(id), "");
  }

  /** After `id` was written running: its marker is still there (an unmarker may have read it terminal). */
  async #checkMarked(id: string): Promise<void> {
    if (await this.#bucket.get(runningKeyOfId(id)) === null) await this.#mark(id);
  }

  /**
   * After `id` was written terminal or removed: its marker goes, unless the record runs again (read
   * after the marker, so a marker put since is a newer revision and the delete loses its CAS).
   * Best effort: a marker left behind is removed by the next listRunning.
   */
  async #unmark(id: string): Promise<void> {
    const key = runningKeyOfId(id);
    try {
      const marker = await this.#bucket.get(key);
      if (marker === null) return;
      const entry = await this.#bucket.get(keyOfId(id));
      if (entry !== null) {
        const current = decodeSidecar(entry.text, id);
        if (!("record" in current) || current.record.status === "running") return;
      }
      await this.#bucket.remove(key, marker.revision);
    } catch {
      // Lost to a writer that marked it again, or the servers did not answer: the marker stays.
    }
  }
}

function conflict(id: string): BladeError {
  return new BladeError(
    "store_conflict",
    `Sidecar "${id}" kept changing under the update (${CAS_ATTEMPTS} attempts lost to other writers)`,
    { hint: "Run again; if it repeats, two processes are writing the same run (see `blade tasks list`)." },
  );
}
