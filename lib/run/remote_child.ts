// Owns a remote child's run as its parent sees it (docs/guides/remote.md): the child's job is handed to
// the run's RemotePlacement (the shared store's job queue; lib/worker/placement.ts), then the parent
// waits — its record in the shared store polled — until a worker committed its end and delivered its
// notice. The worker does the rest (the run, the terminal record, the result branch, the notice). A
// placement that fails ends the run failed, with why. Stopping the wait (TaskStop, a cancelled parent
// turn) commits `cancelled`, which the worker sees and stops on. If the worker committed the end but
// died before the notice, the parent queues it itself (one inbox id per child: never twice).

import type { SidecarOwner } from "../store/store.ts";
import type { SidecarRecord } from "../store/schema.ts";
import type { ChildSpec } from "../executor/child.ts";
import { describeError } from "../errors.ts";
import { ChangeLatch } from "./change_latch.ts";
import { pollWhileRunning } from "./ends_within.ts";
import { completionInboxId } from "./notice.ts";
import { deliverNotice, type LifecycleDeps } from "./sidecar_lifecycle.ts";

/** Where the run's remote children go: absent unless the run has a shared store. */
export interface RemotePlacement {
  /**
   * Takes the snapshot of the child's workspace (its repository's HEAD and uncommitted changes),
   * records it in the child's record, and publishes the child's job; throws (saying why) when it cannot.
   * False when the run ended meanwhile (stopped before it was queued): no job was published.
   */
  submit(record: SidecarRecord, spec: ChildSpec): Promise<boolean>;
  /**
   * Calls `onChange` each time run `id`'s record is written from now on; resolves to the function that
   * stops it. Absent (or failing): the parent reads the record every REMOTE_POLL_MS instead.
   */
  watch?(id: string, onChange: () => void): Promise<() => void>;
}

/** How often the parent reads a remote child's record while it runs, when it cannot watch it. */
export const REMOTE_POLL_MS = 250;
/** How often it reads it anyway while it watches it (a watch that broke without a word). */
export const REMOTE_WATCHED_POLL_MS = 2_000;
/** How long after a remote child's end its notice may take to arrive before the parent queues it. */
export const NOTICE_GRACE_MS = 10_000;

export interface RemoteRunDeps extends LifecycleDeps {
  remote: RemotePlacement;
}

/** Runs `record`'s child remotely to its end; returns its terminal record (the caller reports it). */
export async function runRemoteChild(
  deps: RemoteRunDeps,
  o: { record: SidecarRecord; spec: ChildSpec; owner: SidecarOwner; signal: AbortSignal },
): Promise<SidecarRecord> {
  const { store, clock } = deps;
  const { record, owner, signal } = o;
  let queued: boolean;
  try {
    queued = await deps.remote.submit(record, o.spec);
  } catch (e) {
    const failed = await store.markCompleted(record.id, {
      status: "failed",
      result: {
        success: false,
        message: "",
        error: `It could not be placed on a worker: ${describeError(e)}`,
      },
      completedAt: clock.now(),
    });
    await deliverNotice(deps, failed, owner);
    return failed;
  }
  return await followRemoteChild(deps, { record, owner, signal, queued });
}

/**
 * Waits for a placed remote child's end and its notice (see runRemoteChild); also what a continued
 * session does for a remote child it started before it was stopped (`queued`: its job was published).
 */
export async function followRemoteChild(
  deps: RemoteRunDeps,
  o: { record: SidecarRecord; owner: SidecarOwner; signal: AbortSignal; queued: boolean },
): Promise<SidecarRecord> {
  const { store, clock } = deps;
  const { record, owner, signal, queued } = o;
  const reload = async () => {
    const loaded = await store.load(record.id).catch(() => null);
    return loaded !== null && "record" in loaded ? loaded.record : record;
  };
  // The record is read when its watch says it changed (and once the watch is up: a change before it
  // was missed) and every REMOTE_WATCHED_POLL_MS; without a watch, every REMOTE_POLL_MS.
  const changes = new ChangeLatch();
  const stopWatch = await deps.remote.watch?.(record.id, () => changes.notify()).catch(() => undefined);
  if (stopWatch !== undefined) changes.notify();
  let now: SidecarRecord;
  try {
    now = await pollWhileRunning(record, reload, {
      clock,
      timeoutMs: 0,
      signal,
      intervalMs: stopWatch === undefined ? REMOTE_POLL_MS : REMOTE_WATCHED_POLL_MS,
      woken: stopWatch === undefined ? undefined : (given) => changes.next(given),
    });
  } finally {
    stopWatch?.();
  }
  if (now.status === "running") {
    // The wait was stopped: the run is cancelled (the first terminal state wins); the worker stops it.
    now = await store.markCompleted(record.id, {
      status: "cancelled",
      result: { success: false, message: "", error: `Cancelled: ${describeError(signal.reason)}` },
      completedAt: clock.now(),
    });
  }
  // No worker started it (stopped before it was queued or taken): none will deliver its notice now.
  if (!queued || now.remote?.worker === undefined) await deliverNotice(deps, now, owner);
  else await awaitNotice(deps, now, owner);
  return now;
}

/**
 * Waits for the worker's notice of `ended` (pending in the owner's inbox, or already delivered here);
 * after NOTICE_GRACE_MS without it the worker is taken to have died first, and the notice is queued here.
 */
async function awaitNotice(deps: RemoteRunDeps, ended: SidecarRecord, owner: SidecarOwner): Promise<void> {
  const id = completionInboxId(ended.id);
  const inbox = deps.background.inboxFor(owner);
  const deadline = deps.clock.now() + NOTICE_GRACE_MS;
  // The worker delivers the notice just after it commits the end: look again soon, then less often.
  for (let pause = 10; deps.clock.now() < deadline; pause = Math.min(2 * pause, REMOTE_POLL_MS)) {
    if (deps.background.delivered(id)) return;
    const pending = await inbox.pending().catch(() => []);
    if (pending.some((e) => e.inboxId === id)) return;
    await deps.clock.sleep(pause);
  }
  await deliverNotice(deps, ended, owner);
}
