// Owns which finished runs `blade tasks clean` must keep although they are old enough (docs/reference/
// background.md, "Cleaning"): a run whose completion notice still waits in its parent's inbox (its
// result has not reached the parent yet), and every run of a parent that is running now (it holds its
// lease: it may be about to take their notices). An inbox or lease that cannot be read keeps its runs:
// clean never guesses in favour of removing. Reads only; the store decides the removal itself.

import type { Fs } from "../sys/fs.ts";
import type { Clock } from "../sys/clock.ts";
import type { Process } from "../sys/process.ts";
import type { StorageLayout } from "../config/storage.ts";
import { Inbox } from "../session/inbox.ts";
import { leasePath, parseLeaseFile } from "../session/lease.ts";
import type { RunSummary } from "../store/run_summary.ts";

export interface HoldDeps {
  fs: Fs;
  clock: Clock;
  process: Pick<Process, "isAlive">;
  layout: StorageLayout;
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
      const inbox = new Inbox({
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
  if (file.kind !== "held") return undefined;
  const { pid, identity } = file.holder;
  const alive = identity === undefined
    ? await deps.process.isAlive(pid)
    : await deps.process.isAlive(pid, identity);
  return alive ? `its parent ${owner.session} is running (process ${pid})` : undefined;
}

function ownerKey(r: Pick<RunSummary, "parentProjectPath" | "parentSessionId">): string {
  return `${r.parentProjectPath}\u0000${r.parentSessionId}`;
}
