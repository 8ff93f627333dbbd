// Owns which finished runs `blade tasks clean` must keep although they are old enough (docs/reference/
// background.md, "Cleaning"): a run whose completion notice still waits in its parent's inbox (its
// result has not reached the parent yet), and every run of a parent that is running now (it holds its
// lease: it may be about to take their notices). An inbox or lease that cannot be read keeps its runs:
// clean never guesses in favour of removing. Reads only; the store decides the removal itself. With a
// shared store (`--store nats://`) the parents' inboxes are the store's, and a parent run by a worker
// holds its lease there (sharedHolds); a local parent's file lease is read as well.

import type { Fs } from "../sys/fs.ts";
import type { Clock } from "../sys/clock.ts";
import type { Process } from "../sys/process.ts";
import type { StorageLayout } from "../config/storage.ts";
import { Inbox, type SessionInbox } from "../session/inbox.ts";
import type { LazyNatsStore } from "../remote/lazy_nats_store.ts";
import { leasePath, parseLeaseFile } from "../session/lease.ts";
import type { RunSummary } from "../store/run_summary.ts";

export interface HoldDeps {
  fs: Fs;
  clock: Clock;
  process: Pick<Process, "isAlive">;
  layout: StorageLayout;
  /** A shared store's inbox of a session (instead of its inbox file). */
  inboxOf?: ((sessionId: string) => Pick<SessionInbox, "pending">) | undefined;
  /** A shared store's lease entry of a session (its text; null: none). */
  leaseEntry?: ((sessionId: string) => Promise<string | null>) | undefined;
}

/** The hold ports of a shared store: its inboxes and its lease bucket. */
export function sharedHolds(shared: LazyNatsStore): Pick<HoldDeps, "inboxOf" | "leaseEntry"> {
  return {
    inboxOf: (sessionId) => shared.inboxOf(sessionId),
    // NATS modules load only here: `tasks clean` without `--store` never loads them.
    leaseEntry: async (sessionId) => {
      const [{ LEASE_BUCKET }, { keyOfId }] = await Promise.all([
        import("../remote/nats_lease.ts"),
        import("../remote/nats_keys.ts"),
      ]);
      return (await (await shared.bucket(LEASE_BUCKET)).get(keyOfId(sessionId)))?.text ?? null;
    },
  };
}

/** Why `run` must stay, or undefined when it may go. */
export type HeldBy = (run: RunSummary) => string | undefined;

/** What keeps runs: read once per parent of `runs` (its inbox and its lease). */
export async function heldRuns(deps: HoldDeps, runs: readonly RunSummary[]): Promise<HeldBy> {
  const owners = new Map<string, { project: string; session: string }>();
  for (const r of runs) {
    if (r.status === "running") continue;
    owners.set(ownerKey(r), { project: r.parentProjectPath, session: r.parentSessionId });
  }
  const pendingNotices = new Set<string>();
  const ownerHeld = new Map<string, string>();
  for (const [key, owner] of owners) {
    const lease = await parentRuns(deps, owner);
    if (lease !== undefined) {
      ownerHeld.set(key, lease);
      continue;
    }
    try {
      const inbox = deps.inboxOf?.(owner.session) ?? new Inbox({
        fs: deps.fs,
        clock: deps.clock,
        path: deps.layout.inboxPath(owner.project, owner.session),
      });
      for (const e of await inbox.pending()) if (e.agentId !== undefined) pendingNotices.add(e.agentId);
    } catch {
      ownerHeld.set(key, `the inbox of its parent ${owner.session} cannot be read`);
    }
  }
  return (run) => {
    const owner = ownerHeld.get(ownerKey(run));
    if (owner !== undefined) return owner;
    return pendingNotices.has(run.id)
      ? `its completion notice still waits in the inbox of its parent ${run.parentSessionId}`
      : undefined;
  };
}

/** Why the parent's runs are held because the parent runs now (its lease has a live holder), else undefined. */
async function parentRuns(
  deps: HoldDeps,
  owner: { project: string; session: string },
): Promise<string | undefined> {
  let text: string | null;
  try {
    const path = await leasePath(deps.layout, owner.project, owner.session);
    text = (await deps.fs.stat(path)) === null ? null : await deps.fs.readText(path);
  } catch {
    return `the lease of its parent ${owner.session} cannot be read`;
  }
  const file = parseLeaseFile(text);
  if (file.kind !== "held") return await sharedLease(deps, owner.session);
  const { pid, identity } = file.holder;
  const alive = identity === undefined
    ? await deps.process.isAlive(pid)
    : await deps.process.isAlive(pid, identity);
  return alive ? `its parent ${owner.session} is running (process ${pid})` : undefined;
}

/** Why the parent's runs are held because it holds its lease in the shared store (a worker runs it). */
async function sharedLease(deps: HoldDeps, session: string): Promise<string | undefined> {
  if (deps.leaseEntry === undefined) return undefined;
  let text: string | null;
  const { natsLeaseVerdict, parseLeaseEntry } = await import("../remote/nats_lease.ts");
  try {
    text = await deps.leaseEntry(session);
  } catch {
    return `the lease of its parent ${session} in the shared store cannot be read`;
  }
  const verdict = natsLeaseVerdict(parseLeaseEntry(text), deps.clock.now());
  return verdict.take
    ? undefined
    : `its parent ${session} is running (process ${verdict.holder.pid} on ${verdict.holder.machine})`;
}

function ownerKey(r: Pick<RunSummary, "parentProjectPath" | "parentSessionId">): string {
  return `${r.parentProjectPath}\u0000${r.parentSessionId}`;
}
