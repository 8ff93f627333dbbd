// Owns one job on a worker (docs/guides/remote.md), from taking it to acknowledging it: the run's lease
// in the shared store (a job whose lease is held elsewhere waits for it to expire), the record read
// again (an ended run only gets its notice made sure of), a run another worker started — and died
// on — reconciled by the same pure recovery plan as a local orphan, or started again once when it had
// not started any tool call; the worker's maximum; then the checkout of the parent's snapshot, the
// child's run in this process's runner with its transcript copied to the shared store, the result
// branch uploaded, the terminal record committed (fenced by the lease), the notice delivered, and
// only then the acknowledgement. A worker that lost its lease stops the child, commits nothing and
// leaves the job unacknowledged, so it is delivered again.

import { describeError } from "../errors.ts";
import type { Ports } from "../sys/mod.ts";
import type { StorageLayout } from "../config/storage.ts";
import type { SidecarRecord } from "../store/schema.ts";
import type { LoadResult } from "../store/codec.ts";
import type { SidecarStore } from "../store/store.ts";
import type { TranscriptRead } from "../session/transcript.ts";
import { minimalCommandEnv } from "../permissions/child_env.ts";
import { HEARTBEAT_INTERVAL_MS } from "../store/heartbeat.ts";
import { planOrphan } from "../recovery/recovery_plan.ts";
import type { SubagentEnv } from "../run/subagent_env.ts";
import { finishChild, lifecycleOf } from "../run/child_run.ts";
import { deliverNotice } from "../run/sidecar_lifecycle.ts";
import { runTakenChild } from "../run/taken_child.ts";
import type { ChildOutcome } from "../executor/child.ts";
import type { LazyNatsStore } from "../remote/lazy_nats_store.ts";
import type { MessageStream } from "../remote/nats_link.ts";
import type { QueuedJob } from "../remote/nats_queue.ts";
import type { NatsLease, NatsLeases } from "../remote/nats_lease.ts";
import { NatsTranscript } from "../remote/nats_transcript.ts";
import { isTransient } from "../remote/nats_retry.ts";
import { processGit } from "../worktree/git.ts";
import { fencedStore } from "./fenced_store.ts";
import { grantRefusal, parseJob, type RemoteJob, specOfJob, type WorkerMax } from "./job.ts";
import { resultObject, snapshotObject } from "./placement.ts";
import { bundleResult, checkoutSnapshot, resultBranch } from "./snapshot.ts";
import { TranscriptMirror } from "./transcript_mirror.ts";

/** What every job of one worker shares. */
export interface WorkerContext {
  ports: Ports;
  layout: StorageLayout;
  shared: LazyNatsStore;
  /** The worker runtime's environment (its store is the shared one; its inboxes the shared store's). */
  env: SubagentEnv;
  leases: NatsLeases;
  /** The transcript stream (lib/remote/nats_transcript.ts). */
  transcripts: MessageStream;
  redact: (text: string) => string;
  /** `<hostname>/<pid>`. */
  name: string;
  max: WorkerMax;
  leaseTtlMs: number;
  log: (line: string) => void;
}

/** How a job ended here: what the worker reports, per job. */
export type JobEnd =
  | "ran"
  | "reconciled"
  | "refused"
  | "already_ended"
  | "lease_busy"
  | "lease_lost"
  | "dropped"
  | "commit_failed";

/** How often a running child's record is read for a cancel (TaskStop, `blade tasks cancel`). */
const CANCEL_POLL_MS = 250;

/** How long a job whose record reads as missing or unusable is read again before it is dropped. */
export const MISSING_RECORD_MS = 10_000;
/** The pause between those reads. */
const MISSING_READ_PAUSE_MS = 1_000;

/** Takes one job to its end on this worker; never throws (a failure is logged, the job left for another). */
export async function runJob(ctx: WorkerContext, job: QueuedJob): Promise<JobEnd> {
  const parsed = parseJob(job.text);
  if ("invalid" in parsed) {
    ctx.log(`dropped a job that is no Blade job (${parsed.invalid})`);
    await job.ack();
    return "dropped";
  }
  const id = parsed.job.agentId;
  ctx.log(`job ${id}: taken (delivery ${job.deliveries})`);
  const alive = ctx.ports.clock.timer(ctx.leaseTtlMs / 3, () => job.working(), { repeat: true });
  try {
    const identity = await ctx.env.ownProcess();
    const got = await ctx.leases.tryAcquire(id, {
      pid: identity.pid,
      ...(identity.identity === null ? {} : { identity: identity.identity }),
    });
    if ("busy" in got) {
      // Someone holds it (a live worker, or a dead one until its lease expires): try again after that.
      job.nak(Math.max(1000, got.busy.expiresAt - ctx.ports.clock.now() + 250));
      return "lease_busy";
    }
    ctx.log(`job ${id}: lease held`);
    return await underLease(ctx, { job, run: parsed.job, lease: got });
  } catch (e) {
    ctx.log(`job ${id}: ${describeError(e)} (left for redelivery)`);
    return "commit_failed";
  } finally {
    alive();
  }
}

interface Held {
  job: QueuedJob;
  run: RemoteJob;
  lease: NatsLease;
}

async function underLease(ctx: WorkerContext, h: Held): Promise<JobEnd> {
  const { lease } = h;
  const lost = new AbortController();
  const renewing = ctx.ports.clock.timer(ctx.leaseTtlMs / 3, () => {
    void lease.renew().then((ok) => ok || lost.abort(new Error("its lease was lost")), () => {});
  }, { repeat: true });
  try {
    return await decide(ctx, { ...h, lost: lost.signal });
  } finally {
    renewing();
    await lease.release();
  }
}

/** The run as this worker finds it: ended, never started, started elsewhere, or to be refused. */
async function decide(ctx: WorkerContext, h: Held & { lost: AbortSignal }): Promise<JobEnd> {
  const id = h.run.agentId;
  const store = fencedStore(ctx.shared, { id, held: () => h.lease.held() });
  const loaded = await recordOf(ctx, { store, id, lost: h.lost });
  if (loaded === null || !("record" in loaded)) {
    ctx.log(`job ${id}: its record is ${loaded === null ? "missing" : "unusable"}; dropped`);
    await h.job.ack();
    return "dropped";
  }
  const record = loaded.record;
  ctx.log(`job ${id}: record read (${record.status}, attempts ${record.remote?.attempts ?? 0})`);
  const jobCtx = { ...ctx, env: { ...ctx.env, store } };
  if (record.status !== "running") {
    await ensureNotice(jobCtx, record);
    await h.job.ack();
    return "already_ended";
  }
  const transcript = transcriptOf(ctx, record);
  const attempts = record.remote?.attempts ?? 0;
  if (attempts > 0) {
    const read = await transcript.read();
    if (attempts >= 2 || startedTool(read)) {
      return await reconcile(jobCtx, { ...h, record, read, transcript });
    }
    await transcript.discard(); // it had done nothing: it starts again from the beginning
  }
  return await start(jobCtx, { ...h, record, transcript });
}

/**
 * The job's record. A job is published only after its record was written, so a record that reads as
 * missing or unusable is read again for MISSING_RECORD_MS before the job is dropped: a stream leader
 * elected a moment ago can answer from before the write, and a job dropped on such an answer would
 * leave its record running for good, with no job left to end it.
 */
async function recordOf(
  ctx: WorkerContext,
  o: { store: SidecarStore; id: string; lost: AbortSignal },
): Promise<LoadResult | null> {
  const { clock } = ctx.ports;
  const deadline = clock.now() + MISSING_RECORD_MS;
  for (;;) {
    const loaded = await o.store.load(o.id);
    if ((loaded !== null && "record" in loaded) || clock.now() >= deadline || o.lost.aborted) return loaded;
    ctx.log(`job ${o.id}: its record reads as ${loaded === null ? "missing" : "unusable"}; reading it again`);
    await clock.sleep(MISSING_READ_PAUSE_MS);
  }
}

function transcriptOf(ctx: WorkerContext, record: SidecarRecord): NatsTranscript {
  const { clock, ids } = ctx.ports;
  return new NatsTranscript(ctx.transcripts, {
    clock,
    ids,
    sessionId: record.id,
    projectPath: record.parentProjectPath,
    redact: ctx.redact,
  });
}

/** Whether the transcript shows a tool call the model made (it may have run, so the run is not repeated). */
function startedTool(read: TranscriptRead | null): boolean {
  return read?.events.some((e) => e.type === "part_created" && e.data.part.type === "tool_call") ?? false;
}

/** A run whose worker died after it started a tool: closed by the recovery plan, its notice delivered. */
async function reconcile(
  ctx: WorkerContext,
  h: Held & { record: SidecarRecord; read: TranscriptRead | null; transcript: NatsTranscript },
): Promise<JobEnd> {
  const plan = planOrphan(h.record, h.read, ctx.ports.clock.now());
  if (plan.closeTurn !== undefined && h.read !== null && h.lease.held()) {
    await h.transcript.append([plan.closeTurn]);
  }
  const store = ctx.env.store;
  const done = await store.update(h.record.id, (r) => (r.status === "running" ? plan.next : r));
  ctx.log(`job ${h.record.id}: its worker died mid-run; recovered as ${plan.outcome}`);
  await ensureNotice(ctx, done);
  await h.job.ack();
  return "reconciled";
}

/** The notice of an ended background run, put in its parent's inbox (a repeat is a no-op there). */
async function ensureNotice(ctx: WorkerContext, record: SidecarRecord): Promise<void> {
  if (!record.background || record.status === "running") return;
  const owner = { parentSessionId: record.parentSessionId, parentProjectPath: record.parentProjectPath };
  await deliverNotice(lifecycleOf(ctx.env), record, owner);
}

/** Ends a run this worker will not start: failed with `error`, its notice delivered, the job done. */
async function endUnstarted(
  ctx: WorkerContext,
  h: Held & { record: SidecarRecord; error: string },
): Promise<void> {
  const done = await ctx.env.store.markCompleted(h.record.id, {
    status: "failed",
    result: { success: false, message: "", error: h.error },
    completedAt: ctx.ports.clock.now(),
  });
  await ensureNotice(ctx, done);
  await h.job.ack();
}

/** Starts the run here: its place, its checks, its record marked as this worker's; then runs it. */
async function start(
  ctx: WorkerContext,
  h: Held & { lost: AbortSignal; record: SidecarRecord; transcript: NatsTranscript },
): Promise<JobEnd> {
  const { record } = h;
  const { ports } = ctx;
  const placed = record.remote;
  if (placed === undefined) {
    await endUnstarted(ctx, {
      ...h,
      error: "Its job was published without a snapshot of the parent's tree.",
    });
    return "refused";
  }
  const dir = `${ctx.layout.root}/worker/${record.id}`;
  const spec = specOfJob(h.run, {
    record,
    place: {
      workspaceRoot: `${dir}/repo${placed.subdir === "" ? "" : `/${placed.subdir.replace(/\/$/, "")}`}`,
      ...(ctx.env.commands === undefined ? {} : { commands: ctx.env.commands }),
      auditEnv: minimalCommandEnv(ports.env),
    },
  });
  const refused = grantRefusal(spec, ctx.max);
  if (refused !== undefined) {
    await endUnstarted(ctx, { ...h, error: `Refused by the worker ${ctx.name}: ${refused}.` });
    ctx.log(`job ${record.id}: refused (${refused})`);
    return "refused";
  }
  const me = await ctx.env.ownProcess();
  const mine = await ctx.env.store.update(record.id, (r) =>
    r.status !== "running" ? r : {
      ...r,
      processId: me.pid,
      ...(me.identity === null ? {} : { processIdentity: me.identity }),
      machine: me.machine || ctx.name,
      lastActiveAt: ports.clock.now(),
      remote: { ...placed, worker: ctx.name, attempts: (placed.attempts ?? 0) + 1 },
    });
  if (mine.status !== "running") {
    await ensureNotice(ctx, mine);
    await h.job.ack();
    return "already_ended";
  }
  ctx.log(`job ${record.id}: record marked as this worker's (attempt ${mine.remote?.attempts})`);
  try {
    await prepareCheckout(ctx, { dir, record: mine });
  } catch (e) {
    // The servers not answering (a node died, a leader being elected) is no reason to fail the run:
    // the job is left for redelivery. Anything else (no snapshot, git refusing it) fails it.
    if (isTransient(e)) throw e;
    const error = `The worker ${ctx.name} could not check out its snapshot: ${describeError(e)}`;
    ctx.log(`job ${record.id}: ${error}`);
    await endUnstarted(ctx, { ...h, error });
    return "refused";
  }
  try {
    return await runHere(ctx, { ...h, record: mine, spec, dir });
  } finally {
    await ports.fs.remove(dir, { recursive: true }).catch(() => {});
  }
}

async function prepareCheckout(ctx: WorkerContext, o: { dir: string; record: SidecarRecord }): Promise<void> {
  const { fs, process, env } = ctx.ports;
  const placed = o.record.remote!;
  await fs.remove(o.dir, { recursive: true }).catch(() => {});
  await fs.ensureDir(o.dir, 0o700);
  const bundle = await (await ctx.shared.bundles()).get(snapshotObject(o.record.id));
  if (bundle === null) throw new Error("its snapshot bundle is not in the store");
  ctx.log(`job ${o.record.id}: snapshot fetched (${bundle.length} bytes)`);
  const file = `${o.dir}/snapshot.bundle`;
  await fs.writeBytes(file, bundle, { mode: 0o600 });
  await checkoutSnapshot({ git: processGit(process, env), fs }, {
    dir: `${o.dir}/repo`,
    bundleFile: file,
    snapshotCommit: placed.snapshotCommit,
    branch: resultBranch(o.record.id),
  });
  // A transcript left by an earlier attempt on this machine is not this run's.
  await fs.remove(ctx.layout.transcriptPath(o.record.parentProjectPath, o.record.id)).catch(() => {});
  ctx.log(`job ${o.record.id}: checked out`);
}

type Running = Held & {
  lost: AbortSignal;
  record: SidecarRecord;
  transcript: NatsTranscript;
  spec: ReturnType<typeof specOfJob>;
  dir: string;
};

/**
 * The run's activity time, written at most once a second while it runs (through the fenced store), and
 * never once it ended: a beat still in flight then changes nothing (it writes only a running record,
 * and only before `end`), so nothing of this worker's lands on the record after its end is committed.
 */
function activityBeat(ctx: WorkerContext, id: string): { soon(): void; end(): void } {
  const { clock } = ctx.ports;
  let last = clock.now();
  let ended = false;
  return {
    soon() {
      if (ended || clock.now() - last < HEARTBEAT_INTERVAL_MS) return;
      last = clock.now();
      void ctx.env.store.update(id, (r) => {
        if (ended || r.status !== "running") throw new Error("the run ended");
        return r;
      }).catch(() => {});
    },
    end() {
      ended = true;
    },
  };
}

/** The child's run, then its end made durable in order: branch, record, notice, acknowledgement. */
async function runHere(ctx: WorkerContext, h: Running): Promise<JobEnd> {
  const { ports, env } = ctx;
  const id = h.record.id;
  const mirror = new TranscriptMirror({
    fs: ports.fs,
    clock: ports.clock,
    path: ctx.layout.transcriptPath(h.record.parentProjectPath, id),
    target: h.transcript,
    held: () => h.lease.held(),
  });
  const stop = new AbortController();
  h.lost.addEventListener("abort", () => stop.abort(h.lost.reason), { once: true });
  const watch = ports.clock.timer(CANCEL_POLL_MS, () => {
    void env.store.load(id).then((l) => {
      if (l !== null && "record" in l && l.record.status !== "running") stop.abort(new Error("cancelled"));
    }, () => {});
  }, { repeat: true });
  const beat = activityBeat(ctx, id);
  let outcome: ChildOutcome;
  ctx.log(`job ${id}: child started`);
  try {
    outcome = await runTakenChild(env, {
      spec: h.spec,
      // Its own children are its project's runs, whichever machine looks (this worker's have no key).
      projectKey: h.record.projectKey,
      signal: stop.signal,
      onActivity: () => {
        beat.soon();
        mirror.soon();
      },
    });
    ctx.log(
      `job ${id}: child ended (${outcome.success ? "success" : outcome.cancelled ? "cancelled" : "failed"})`,
    );
    await mirror.sync();
    ctx.log(`job ${id}: transcript copied`);
  } finally {
    watch();
    beat.end();
  }
  if (!h.lease.held()) {
    ctx.log(`job ${id}: its lease was lost mid-run; nothing committed (the job goes to another worker)`);
    return "lease_lost";
  }
  return await commitEnd(ctx, { ...h, outcome, aborted: stop.signal.aborted });
}

async function commitEnd(
  ctx: WorkerContext,
  h: Running & { outcome: ChildOutcome; aborted: boolean },
): Promise<JobEnd> {
  const { ports, env } = ctx;
  const id = h.record.id;
  const placed = h.record.remote!;
  const branch = resultBranch(id);
  const file = `${h.dir}/result.bundle`;
  const { head, commits, bundled } = await bundleResult(processGit(ports.process, ports.env), {
    dir: `${h.dir}/repo`,
    branch,
    baseCommit: placed.baseCommit,
    snapshotCommit: placed.snapshotCommit,
    bundleFile: file,
  });
  if (bundled) await (await ctx.shared.bundles()).put(resultObject(id), await ports.fs.readBytes(file));
  ctx.log(`job ${id}: result ${bundled ? "uploaded" : "has no commit"}`);
  const running = await env.store.update(
    id,
    (r) => ({ ...r, remote: { ...r.remote!, branch, head, commits } }),
  );
  const done = await finishChild(env, h.spec.parentSessionId, running, {
    outcome: h.outcome,
    aborted: h.aborted,
  });
  const stored = await env.store.load(id);
  if (stored === null || !("record" in stored) || stored.record.status === "running") {
    ctx.log(`job ${id}: its end could not be committed; left for redelivery`);
    return "commit_failed";
  }
  ctx.log(`job ${id}: end committed (${stored.record.status})`);
  await ensureNotice(ctx, done);
  ctx.log(`job ${id}: notice delivered`);
  await h.job.ack();
  return "ran";
}
