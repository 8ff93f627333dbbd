// Owns session leases (docs/guides/subagents.md, "Leases"): one exclusive lease file per running
// session, `projects/<escaped project>/.locks/<sha256(session id)>.lock` (0600), holding the PID and
// process identity of whoever runs the session — a top-level `blade -p`, or the process running a
// child. A lease of a dead or reused PID is taken over; a live holder means hands off. Every
// check-and-write runs under a flock of the lease's own guard file (`<sha256>.guard`, removed when
// released, like the store's record locks), so two processes never both win and different sessions never wait on each other.
// Does not decide what to do with a busy session (callers do) and does not touch sidecars.
// `HeldLease` is the port a lease is used through; the NATS store's leases (lib/remote/nats_lease.ts)
// expire unless renewed, so a holder cut off from the servers loses its lease by itself.

import type { Fs } from "../sys/fs.ts";
import type { Process, ProcessIdentity } from "../sys/process.ts";
import type { Clock } from "../sys/clock.ts";
import type { StorageLayout } from "../config/storage.ts";
import { BladeError } from "../errors.ts";
import { fsErrorCode } from "../sys/errors.ts";

/** How the holder's process looks: "unknown" = its PID answers but there is no fingerprint to check. */
export type HolderLiveness = "alive" | "dead" | "unknown";

/** What a lease file holds. */
export interface LeaseHolder {
  sessionId: string;
  pid: number;
  identity?: ProcessIdentity;
  acquiredAt: number;
}

export type LeaseFile =
  | { kind: "absent" }
  | { kind: "corrupt"; reason: string }
  | { kind: "held"; holder: LeaseHolder };

export type LeaseVerdict =
  | { take: true; takeover: "none" | "stale" | "corrupt" }
  | { take: false; holder: LeaseHolder };

/**
 * Pure: may `self` take the lease given what the file says and how the holder's process looks?
 * A holder that is alive — or whose PID answers without a fingerprint to check it ("unknown") — keeps
 * it, even when it is this very process (one session is never run twice, not even by one process).
 */
export function leaseVerdict(file: LeaseFile, holderLiveness: HolderLiveness): LeaseVerdict {
  switch (file.kind) {
    case "absent":
      return { take: true, takeover: "none" };
    case "corrupt":
      return { take: true, takeover: "corrupt" };
    case "held":
      return holderLiveness === "dead"
        ? { take: true, takeover: "stale" }
        : { take: false, holder: file.holder };
    default: {
      const never: never = file;
      return never;
    }
  }
}

/** Pure: the lease file's text → what it says. Never throws. */
export function parseLeaseFile(text: string | null): LeaseFile {
  if (text === null) return { kind: "absent" };
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { kind: "corrupt", reason: "not JSON" };
  }
  const o = v as Partial<LeaseHolder> | null;
  if (
    typeof o !== "object" || o === null || typeof o.sessionId !== "string" ||
    typeof o.pid !== "number" || !Number.isInteger(o.pid) || o.pid <= 0 || typeof o.acquiredAt !== "number"
  ) {
    return { kind: "corrupt", reason: "missing or wrong fields" };
  }
  const id = o.identity;
  const identity = typeof id === "object" && id !== null && typeof id.fingerprint === "string" &&
      typeof id.platform === "string"
    ? { identity: { platform: id.platform, fingerprint: id.fingerprint } }
    : {};
  return {
    kind: "held",
    holder: { sessionId: o.sessionId, pid: o.pid, acquiredAt: o.acquiredAt, ...identity },
  };
}

export interface LeaseDeps {
  fs: Fs;
  process: Process;
  clock: Clock;
  layout: StorageLayout;
}

export async function leasePath(
  layout: StorageLayout,
  projectPath: string,
  sessionId: string,
): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(sessionId)));
  const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${layout.locksDir(projectPath)}/${hex}.lock`;
}

/** A lease held, wherever leases are kept: `await using` releases it (only while it is still this holder's). */
export interface HeldLease extends AsyncDisposable {
  readonly holder: LeaseHolder;
  /** "stale" / "corrupt" when a leftover lease was taken over. */
  readonly takeover: "none" | "stale" | "corrupt";
  release(): Promise<void>;
}

/** A held lease file; `await using` releases it (only if the file still names this holder). */
export class SessionLease implements HeldLease {
  readonly path: string;
  readonly holder: LeaseHolder;
  /** "stale" / "corrupt" when a leftover lease was taken over. */
  readonly takeover: "none" | "stale" | "corrupt";
  #deps: LeaseDeps;
  #released = false;

  constructor(deps: LeaseDeps, path: string, holder: LeaseHolder, takeover: SessionLease["takeover"]) {
    this.#deps = deps;
    this.path = path;
    this.holder = holder;
    this.takeover = takeover;
  }

  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    const { fs } = this.#deps;
    await underGuard(fs, this.path, async () => {
      const now = parseLeaseFile(await readOrNull(fs, this.path));
      if (
        now.kind === "held" && now.holder.pid === this.holder.pid &&
        now.holder.acquiredAt === this.holder.acquiredAt
      ) {
        await fs.remove(this.path).catch(() => {});
      }
    });
  }

  /**
   * Adds this process's identity to a lease taken without it (`identity: "later"`), while the file
   * still names this holder. Swapped in whole (a temp file renamed over it), so a reader under the
   * guard sees either version and a failed write leaves the lease as it was.
   */
  async identify(): Promise<void> {
    if (this.#released || this.holder.identity !== undefined) return;
    const identity = await ownIdentity(this.#deps.process);
    if (identity === null) return;
    const { fs } = this.#deps;
    await underGuard(fs, this.path, async () => {
      if (this.#released) return;
      const now = parseLeaseFile(await readOrNull(fs, this.path));
      if (
        now.kind !== "held" || now.holder.pid !== this.holder.pid ||
        now.holder.acquiredAt !== this.holder.acquiredAt
      ) return;
      // Not fsynced, as the lease itself (see tryAcquireLease).
      const text = JSON.stringify({ ...this.holder, identity }) + "\n";
      await fs.writeAtomic(this.path, text, { mode: 0o600, dirReady: true, sync: false });
    });
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }
}

export interface LeaseOptions {
  /**
   * "later": the lease names this process by its PID only, and `identify()` adds the identity (whose
   * first read spawns a process). Until then a live PID keeps the lease ("unknown" is a live holder),
   * so nobody else can take it; only a PID reused after a crash in between would keep it busy (until
   * that process ends) instead of letting it be taken over.
   */
  identity?: "now" | "later";
}

/** The lease of `sessionId`, or `{busy}` naming the live process that holds it (it is left alone). */
export async function tryAcquireLease(
  deps: LeaseDeps,
  o: { projectPath: string; sessionId: string },
  options: LeaseOptions = {},
): Promise<SessionLease | { busy: LeaseHolder }> {
  const { fs, process, clock } = deps;
  // Asked first: its first read spawns a process, and that (with the modules Deno loads for it) is
  // better done now, in the caller's turn, than whenever the digest below resolves.
  const asking = options.identity === "later" ? Promise.resolve(null) : ownIdentity(process);
  const path = await leasePath(deps.layout, o.projectPath, o.sessionId);
  const pid = process.pid();
  const identity = await asking;
  return await underGuard(fs, path, async () => {
    const file = parseLeaseFile(await readOrNull(fs, path));
    const liveness = file.kind === "held" ? await holderLiveness(process, file.holder) : "unknown";
    const verdict = leaseVerdict(file, liveness);
    if (!verdict.take) return { busy: verdict.holder };
    const holder: LeaseHolder = {
      sessionId: o.sessionId,
      pid,
      ...(identity === null ? {} : { identity }),
      acquiredAt: clock.now(),
    };
    // Not fsynced on purpose: a lease only excludes live processes, and every read and write of it
    // happens under the guard lock, so no reader sees half a file; after a crash its holder is dead.
    try {
      await fs.writeText(path, JSON.stringify(holder) + "\n", { mode: 0o600 });
    } catch (e) {
      // A full disk may have left part of the file: leave none (nobody holds this lease).
      await fs.remove(path).catch(() => {});
      throw e;
    }
    return new SessionLease(deps, path, holder, verdict.takeover);
  });
}

/**
 * Runs `fn` holding `sessionId`'s lease guard instead of its lease, for short work on a session
 * nobody runs (recovery of many orphans: no lease file is written and removed per orphan). Every
 * acquirer takes the guard first, so nobody can take the lease while `fn` runs; a live holder's lease
 * means `{busy}` and `fn` does not run. A stale or corrupt lease file is removed first.
 */
export async function underSessionGuard<T>(
  deps: LeaseDeps,
  o: { projectPath: string; sessionId: string },
  fn: () => Promise<T>,
): Promise<{ done: T } | { busy: LeaseHolder }> {
  const { fs, process } = deps;
  const path = await leasePath(deps.layout, o.projectPath, o.sessionId);
  return await underGuard(fs, path, async () => {
    const file = parseLeaseFile(await readOrNull(fs, path));
    const liveness = file.kind === "held" ? await holderLiveness(process, file.holder) : "unknown";
    const verdict = leaseVerdict(file, liveness);
    if (!verdict.take) return { busy: verdict.holder };
    if (file.kind !== "absent") await fs.remove(path);
    return { done: await fn() };
  });
}

/** The lease of `sessionId`; BladeError `session_in_use` when a live process holds it. */
export async function acquireLease(
  deps: LeaseDeps,
  o: { projectPath: string; sessionId: string },
  options: LeaseOptions = {},
): Promise<SessionLease> {
  const got = await tryAcquireLease(deps, o, options);
  if (got instanceof SessionLease) return got;
  throw sessionInUse(o.sessionId, got.busy);
}

export function sessionInUse(sessionId: string, holder: LeaseHolder): BladeError {
  return new BladeError("session_in_use", `session ${sessionId} is in use by process ${holder.pid}`, {
    hint:
      `Wait for that process to finish (or stop it), then try again; a dead process's lease is taken over.`,
  });
}

const own = new WeakMap<Process, Promise<ProcessIdentity | null>>();

/**
 * This process's identity, read once per Process port (a start time never changes; on Linux it costs a
 * subprocess): the leases and the runtime's launch records share it.
 */
export function ownIdentity(process: Process): Promise<ProcessIdentity | null> {
  let got = own.get(process);
  if (got === undefined) own.set(process, got = process.identity(process.pid()));
  return got;
}

async function underGuard<T>(fs: Fs, leaseFile: string, fn: () => Promise<T>): Promise<T> {
  // One guard per lease: leases of different sessions (recovery takes many at once) never wait on
  // each other. The guard is transient (removed when released; a waiter re-locks a fresh one), so
  // guards never pile up.
  const guard = `${leaseFile.slice(0, -".lock".length)}.guard`;
  const dir = leaseFile.slice(0, leaseFile.lastIndexOf("/"));
  let ran = false;
  try {
    return await fs.withLockedFile(guard, () => {
      ran = true;
      return fn();
    }, { transient: true });
  } catch (e) {
    // The locks folder is made when the guard cannot be opened for want of it, not asserted before
    // every lease (recovery takes a thousand at once).
    if (ran || fsErrorCode(e) !== "ENOENT") throw e;
  }
  await fs.ensureDir(dir);
  return await fs.withLockedFile(guard, fn, { transient: true });
}

/** Alive only if the PID answers with the recorded fingerprint; a reused PID is dead. */
async function holderLiveness(process: Process, holder: LeaseHolder): Promise<HolderLiveness> {
  if (holder.identity === undefined) return await process.isAlive(holder.pid) ? "unknown" : "dead";
  return await process.isAlive(holder.pid, holder.identity) ? "alive" : "dead";
}

/** The file's text, or null when there is none (callers hold the guard lock, so no race). */
async function readOrNull(fs: Fs, path: string): Promise<string | null> {
  if ((await fs.stat(path)) === null) return null;
  return await fs.readText(path);
}
