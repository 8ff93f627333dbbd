// Owns `blade worker`'s loop (docs/guides/remote.md): takes remote children's jobs from the shared
// store's work queue, up to `concurrency` at a time, and hands each to run_job.ts; registers itself in
// the workers bucket (its name, machine, concurrency, the jobs it holds), refreshed while it lives, so
// `blade worker status` can show it; on its signal it takes no new job, lets the running ones end,
// and removes its entry. Leases, fencing and recovery are run_job.ts's.

import { describeError } from "../errors.ts";
import type { Ports } from "../sys/mod.ts";
import type { StorageLayout } from "../config/storage.ts";
import type { SubagentEnv } from "../run/subagent_env.ts";
import type { LazyNatsStore } from "../remote/lazy_nats_store.ts";
import { LEASE_BUCKET, NatsLeases } from "../remote/nats_lease.ts";
import { TRANSCRIPT_STREAM, TRANSCRIPT_SUBJECTS } from "../remote/nats_transcript.ts";
import type { WorkerMax } from "./job.ts";
import { type JobEnd, runJob, type WorkerContext } from "./run_job.ts";
import { WORKER_BUCKET, type WorkerEntry, workerKey } from "./worker_status.ts";

export interface WorkerOptions {
  /** `<hostname>/<pid>`. */
  name: string;
  concurrency: number;
  max: WorkerMax;
  /** A run's lease lasts this long without renewal; its job is redelivered after twice it. */
  leaseTtlMs: number;
  /** Aborted: take no new job, finish the running ones, then return. */
  signal: AbortSignal;
  log: (line: string) => void;
}

/** How often the worker's entry in the workers bucket is refreshed. */
export const WORKER_REFRESH_MS = 5_000;

export async function runWorker(
  deps: {
    ports: Ports;
    layout: StorageLayout;
    shared: LazyNatsStore;
    env: SubagentEnv;
    redact: (t: string) => string;
  },
  o: WorkerOptions,
): Promise<Map<JobEnd, number>> {
  const { ports, shared } = deps;
  const queue = await shared.jobs(2 * o.leaseTtlMs);
  const [leaseBucket, workers, transcripts] = await Promise.all([
    shared.bucket(LEASE_BUCKET),
    shared.bucket(WORKER_BUCKET),
    shared.stream(TRANSCRIPT_STREAM, { subjects: TRANSCRIPT_SUBJECTS }),
  ]);
  const me = await deps.env.ownProcess();
  const machine = me.machine ?? "";
  const ctx: WorkerContext = {
    ...deps,
    leases: new NatsLeases(leaseBucket, { clock: ports.clock, machine, ttlMs: o.leaseTtlMs }),
    transcripts,
    name: o.name,
    max: o.max,
    leaseTtlMs: o.leaseTtlMs,
    log: o.log,
  };
  const jobs = new Set<string>();
  const startedAt = ports.clock.now();
  const entry = (): WorkerEntry => ({
    name: o.name,
    machine,
    pid: me.pid,
    concurrency: o.concurrency,
    maxMode: o.max.mode,
    startedAt,
    seenAt: ports.clock.now(),
    jobs: [...jobs],
  });
  const key = workerKey(o.name);
  const publish = () => void workers.put(key, JSON.stringify(entry())).catch(() => {});
  publish();
  const refresh = ports.clock.timer(WORKER_REFRESH_MS, publish, { repeat: true });
  const ends = new Map<JobEnd, number>();
  const active = new Set<Promise<void>>();
  o.log(`worker ${o.name} takes jobs (concurrency ${o.concurrency}, at most ${o.max.mode})`);
  try {
    while (!o.signal.aborted) {
      if (active.size >= o.concurrency) {
        await Promise.race(active);
        continue;
      }
      const job = await queue.next(1000).catch(async (e) => {
        o.log(`the job queue did not answer: ${describeError(e)}`);
        await ports.clock.sleep(1000, o.signal).catch(() => {});
        return null;
      });
      if (job === null) continue;
      const id = /"agentId":"([^"]+)"/.exec(job.text)?.[1] ?? "?";
      jobs.add(id);
      publish();
      const running: Promise<void> = runJob(ctx, job).then((end) => {
        ends.set(end, (ends.get(end) ?? 0) + 1);
        if (end !== "lease_busy") o.log(`job ${id}: ${end}`);
      }).finally(() => {
        active.delete(running);
        jobs.delete(id);
        publish();
      });
      active.add(running);
    }
    await Promise.all(active);
  } finally {
    refresh();
    const gone = await workers.get(key).catch(() => null);
    if (gone !== null) await workers.remove(key, gone.revision).catch(() => {});
  }
  return ends;
}
