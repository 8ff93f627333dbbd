// Owns what `blade worker status` shows (docs/guides/remote.md): each worker's entry in the workers
// bucket (name, machine, concurrency, maximum mode, the jobs it holds, when it was last seen), the
// lease of each of those jobs (who holds it, until when), and how many jobs wait in the queue. An
// entry not refreshed for three refresh periods is a worker that stopped without removing it (killed).

import type { LazyNatsStore } from "../remote/lazy_nats_store.ts";
import { LEASE_BUCKET, type NatsLeaseHolder, parseLeaseEntry } from "../remote/nats_lease.ts";
import { keyOfId } from "../remote/nats_keys.ts";

/** The KV bucket workers register in. */
export const WORKER_BUCKET = "blade_workers";

export interface WorkerEntry {
  name: string;
  machine: string;
  pid: number;
  concurrency: number;
  maxMode: string;
  startedAt: number;
  seenAt: number;
  jobs: string[];
}

/** The key of a worker's entry (its name may hold any hostname's characters). */
export function workerKey(name: string): string {
  return `w_${name.replace(/[^A-Za-z0-9_-]/g, (c) => `-${c.charCodeAt(0).toString(16)}`)}`;
}

/** Pure: an entry's text → the entry, or null when it is not one. */
export function parseWorkerEntry(text: string): WorkerEntry | null {
  try {
    const o = JSON.parse(text) as Partial<WorkerEntry> | null;
    if (
      typeof o === "object" && o !== null && typeof o.name === "string" && typeof o.machine === "string" &&
      typeof o.pid === "number" && typeof o.concurrency === "number" && typeof o.maxMode === "string" &&
      typeof o.startedAt === "number" && typeof o.seenAt === "number" && Array.isArray(o.jobs) &&
      o.jobs.every((j) => typeof j === "string")
    ) return o as WorkerEntry;
  } catch { /* not an entry */ }
  return null;
}

export interface WorkerView extends WorkerEntry {
  /** Not refreshed for three refresh periods: the worker stopped without saying so. */
  stale: boolean;
  leases: { agentId: string; holder: NatsLeaseHolder | null }[];
}

export interface WorkerStatus {
  workers: WorkerView[];
  /** Jobs waiting or taken and not acknowledged yet. */
  queued: number;
}

export async function workerStatus(
  shared: LazyNatsStore,
  o: { now: number; refreshMs: number },
): Promise<WorkerStatus> {
  const [workers, leases, queue] = await Promise.all([
    shared.bucket(WORKER_BUCKET),
    shared.bucket(LEASE_BUCKET),
    shared.jobs(),
  ]);
  const views: WorkerView[] = [];
  for (const key of (await workers.keys()).sort()) {
    const stored = await workers.get(key);
    const entry = stored === null ? null : parseWorkerEntry(stored.text);
    if (entry === null) continue;
    const held = await Promise.all(entry.jobs.map(async (agentId) => {
      const lease = parseLeaseEntry((await leases.get(keyOfId(agentId)))?.text ?? null);
      return { agentId, holder: lease.kind === "held" ? lease.holder : null };
    }));
    views.push({ ...entry, stale: o.now - entry.seenAt > 3 * o.refreshMs, leases: held });
  }
  return { workers: views, queued: await queue.pending() };
}
