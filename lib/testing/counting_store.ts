// Owns CountingStore, a SidecarStore that forwards to another and records every write, so tests can
// prove how often (and in which order) a run writes its sidecar.

import type {
  GroupChange,
  GroupOutcome,
  LoadResult,
  RunListing,
  RunSummary,
  SidecarChange,
  SidecarCompletion,
  SidecarListing,
  SidecarOwner,
  SidecarStore,
} from "../store/store.ts";
import type { SidecarRecord } from "../store/schema.ts";

/** A SidecarStore that forwards to another and records every write. */
export class CountingStore implements SidecarStore {
  #inner: SidecarStore;
  /** Every write: method and id; `heartbeat` is an `update(id, {})` (the Heartbeat's bump). */
  readonly writes: {
    method: "create" | "save" | "update" | "updateMany" | "markCompleted" | "heartbeat";
    id: string;
  }[] = [];

  /** Set: every heartbeat write fails with it (a disk that fills up while a run goes on). */
  failHeartbeats: Error | undefined;

  constructor(inner: SidecarStore) {
    this.#inner = inner;
  }

  heartbeats(id: string): number {
    return this.writes.filter((w) => w.method === "heartbeat" && w.id === id).length;
  }

  create(record: SidecarRecord): Promise<void> {
    this.writes.push({ method: "create", id: record.id });
    return this.#inner.create(record);
  }
  save(record: SidecarRecord): Promise<void> {
    this.writes.push({ method: "save", id: record.id });
    return this.#inner.save(record);
  }
  load(id: string): Promise<LoadResult | null> {
    return this.#inner.load(id);
  }
  update(id: string, change: SidecarChange): Promise<SidecarRecord> {
    const bump = typeof change === "object" && Object.keys(change).length === 0;
    this.writes.push({ method: bump ? "heartbeat" : "update", id });
    if (bump && this.failHeartbeats !== undefined) return Promise.reject(this.failHeartbeats);
    return this.#inner.update(id, change);
  }
  updateMany(changes: readonly GroupChange[]): Promise<GroupOutcome[]> {
    for (const { id } of changes) this.writes.push({ method: "updateMany", id });
    return this.#inner.updateMany(changes);
  }
  markCompleted(id: string, completion: SidecarCompletion): Promise<SidecarRecord> {
    this.writes.push({ method: "markCompleted", id });
    return this.#inner.markCompleted(id, completion);
  }
  list(owner: SidecarOwner): Promise<SidecarRecord[]> {
    return this.#inner.list(owner);
  }
  listAll(): Promise<SidecarListing> {
    return this.#inner.listAll();
  }
  listRunning(): Promise<SidecarListing> {
    return this.#inner.listRunning();
  }
  remove(id: string): Promise<boolean> {
    return this.#inner.remove(id);
  }
  listSummaries(): Promise<RunListing> {
    return this.#inner.listSummaries();
  }
  cleanExpired(
    select: (run: RunSummary) => boolean,
    olderThanMs: number,
    options?: { now?: number },
  ): Promise<RunSummary[]> {
    return this.#inner.cleanExpired(select, olderThanMs, options);
  }
}
