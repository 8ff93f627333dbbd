// Owns fencing a worker's writes to the record of the run it holds (docs/guides/remote.md): every
// write to that record goes through only while the run's lease is still held — checked before the
// write, and for a read-modify-write again inside it, just before the compare-and-set is sent. A
// worker that lost its lease (taken over, or expired while it was stopped or cut off) can therefore
// change nothing of that run any more; its writes fail with LeaseLost. Other records pass through.

import type { LoadResult } from "../store/codec.ts";
import type { SidecarRecord } from "../store/schema.ts";
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
} from "../store/store.ts";

/** A write refused because the run's lease is no longer this worker's. */
export class LeaseLost extends Error {
  constructor(id: string) {
    super(`the lease of ${id} is no longer this worker's: its record is not written`);
    this.name = "LeaseLost";
  }
}

export function fencedStore(store: SidecarStore, o: { id: string; held: () => boolean }): SidecarStore {
  const { id, held } = o;
  const fence = (target: string) => {
    if (target === id && !held()) throw new LeaseLost(id);
  };
  const guarded = (change: SidecarChange): SidecarChange =>
    typeof change === "function"
      ? (r) => {
        fence(r.id);
        return change(r);
      }
      : change;
  return {
    create: async (record: SidecarRecord) => {
      fence(record.id);
      return await store.create(record);
    },
    save: async (record: SidecarRecord) => {
      fence(record.id);
      return await store.save(record);
    },
    load: (target: string): Promise<LoadResult | null> => store.load(target),
    update: async (target: string, change: SidecarChange) => {
      fence(target);
      return await store.update(target, guarded(change));
    },
    updateMany: async (changes: readonly GroupChange[]): Promise<GroupOutcome[]> => {
      for (const c of changes) fence(c.id);
      return await store.updateMany(changes.map((c) => ({
        id: c.id,
        change: (r: SidecarRecord) => {
          fence(c.id);
          return c.change(r);
        },
      })));
    },
    markCompleted: async (target: string, completion: SidecarCompletion) => {
      fence(target);
      return await store.markCompleted(target, completion);
    },
    list: (owner: SidecarOwner) => store.list(owner),
    listAll: (): Promise<SidecarListing> => store.listAll(),
    listRunning: (): Promise<SidecarListing> => store.listRunning(),
    remove: async (target: string) => {
      fence(target);
      return await store.remove(target);
    },
    listSummaries: (): Promise<RunListing> => store.listSummaries(),
    cleanExpired: (
      select: (run: RunSummary) => boolean,
      olderThanMs: number,
      options?: { now?: number },
    ): Promise<RunSummary[]> => store.cleanExpired(select, olderThanMs, options),
  };
}
