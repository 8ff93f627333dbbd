// Owns child processes and process identity (the Process port) and its real adapter.
// Process identity = PID + SHA-256 fingerprint of the process start time (docs/reference/sidecars.md), so a reused
// PID is never mistaken for the original owner.

import {
  groupLeaderState,
  parseProcStatParent,
  parseProcStatStartTime,
  parseProcStatState,
} from "./proc_stat.ts";

export { groupLeaderState, parseProcStatParent, parseProcStatStartTime } from "./proc_stat.ts";

export interface RunOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Replace the whole environment with `env` instead of adding to it. */
  clearEnv?: boolean;
  stdin?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Stop collecting output past this many bytes per stream (the process keeps running). */
  maxOutputBytes?: number;
  /** Start the process in its own process group so the whole group can be killed (POSIX). */
  newProcessGroup?: boolean;
  /** Called with the child's PID as soon as it is spawned. */
  onSpawn?: (pid: number) => void;
  /** Receives output as it arrives (decoded text), e.g. to keep the tail of a background command. */
  onOutput?: (text: string, stream: "stdout" | "stderr") => void;
}

export interface RunResult {
  code: number;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  /** True when output was cut at maxOutputBytes. */
  truncated: boolean;
  /** Why a timeout or abort could not kill the process group (only the leader was killed then). */
  killFailure?: string;
}

export interface ProcessIdentity {
  platform: "linux" | "darwin" | "win32";
  fingerprint: string;
}

export interface Process {
  pid(): number;
  run(command: string, args: string[], options?: RunOptions): Promise<RunResult>;
  /** The identity of a running process, or null when it does not exist or cannot be read. */
  identity(pid: number): Promise<ProcessIdentity | null>;
  /** Alive only if the PID answers and (when given) its fingerprint still matches. */
  isAlive(pid: number, identity?: ProcessIdentity): Promise<boolean>;
  kill(pid: number, signal?: Deno.Signal): boolean;
  /**
   * True when `pid` is a direct child of this process and leads its own process group: the only
   * groups the main thread kills for a Worker child (executor/child_protocol.ts).
   */
  ownGroupLeader(pid: number): Promise<boolean>;
  /**
   * The identity of `pgid` when it is alive and still leads its own process group (any parent), else
   * null: what recovery checks against a recorded group before it kills it.
   */
  groupLeaderIdentity(pgid: number): Promise<ProcessIdentity | null>;
  /** SIGKILLs process group `pgid`; throws what Deno refused (never swallowed). */
  killGroup(pgid: number): void;
  /**
   * Starts a process that outlives this one (its own session on POSIX, no stdio) and returns its
   * PID at once.
   */
  spawnDetached(command: string, args: string[], options?: { cwd?: string }): number;
}

export function platformName(): ProcessIdentity["platform"] {
  switch (Deno.build.os) {
    case "darwin":
      return "darwin";
    case "windows":
      return "win32";
    default:
      return "linux";
  }
}

export async function fingerprint(platform: string, startValue: string): Promise<string> {
  const bytes = new TextEncoder().encode(`${platform}\0${startValue}`);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * /proc/<pid>/stat through `cat`: Deno refuses to read /proc/<pid>/ without --allow-all, and Blade
 * never runs with -A. Running programs is granted to the process that manages children.
 */
async function procStat(pid: number): Promise<string | null> {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    const out = await new Deno.Command("cat", {
      args: [`/proc/${pid}/stat`],
      stdout: "piped",
      stderr: "null",
    })
      .output();
    return out.success ? new TextDecoder().decode(out.stdout) : null;
  } catch {
    return null;
  }
}

async function startValue(pid: number): Promise<string | null> {
  const platform = platformName();
  try {
    if (platform === "linux") {
      const stat = await procStat(pid);
      return stat === null ? null : parseProcStatStartTime(stat);
    }
    if (platform === "darwin") {
      const out = await new Deno.Command("ps", {
        args: ["-o", "lstart=", "-p", String(pid)],
        stdout: "piped",
      })
        .output();
      const text = new TextDecoder().decode(out.stdout).trim();
      return out.success && text !== "" ? text : null;
    }
    return null;
  } catch {
    return null;
  }
}

function signalAlive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT" as Deno.Signal); // harmless probe; signal 0 is not exposed by Deno.kill
    return true;
  } catch (e) {
    // EPERM means the process exists but belongs to someone else.
    return e instanceof Deno.errors.PermissionDenied;
  }
}

async function linuxAlive(pid: number): Promise<boolean> {
  const stat = await procStat(pid);
  if (stat === null) return false;
  const state = parseProcStatState(stat);
  return state !== "Z" && state !== "X";
}

/** The text of byte chunks read from a stream. */
export function decodeChunks(chunks: Uint8Array[]): string {
  let total = 0;
  for (const c of chunks) total += c.length;
  const all = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    all.set(c, off);
    off += c.length;
  }
  return new TextDecoder().decode(all);
}

async function collect(
  stream: ReadableStream<Uint8Array>,
  max: number,
  onCut: () => void,
  onText?: (text: string) => void,
): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const live = onText === undefined ? undefined : new TextDecoder();
  for await (const chunk of stream) {
    if (live !== undefined) onText!(live.decode(chunk, { stream: true }));
    if (size >= max) continue;
    const room = max - size;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, room));
      size = max;
      onCut();
    } else {
      chunks.push(chunk);
      size += chunk.length;
    }
  }
  return decodeChunks(chunks);
}

/**
 * Who kills a process group for `run`: inside a Worker, Deno refuses `kill(-pgid)` without an
 * unscoped run grant, so the Worker reports each group it starts and asks the main thread to kill it.
 * `started` resolves once the group is recorded durably (so a crash cannot leave it unknown to
 * recovery) and rejects when it was refused; the command does not run before it resolves.
 */
export interface GroupKiller {
  started(pgid: number): Promise<void>;
  kill(pgid: number): Promise<void>;
}

/**
 * Holds a command at the start until one line arrives on stdin, then execs it (same PID, so the same
 * process group and start time). EOF — the process that spawned it died before releasing it — exits.
 */
const GATE = 'IFS= read -r _ || exit 125; exec "$0" "$@"';

/**
 * Waits until the GroupKiller recorded the gated child's group. When it refuses, the gated leader
 * (which has not run the command) is killed and the run fails with the reason.
 */
async function releaseGate(
  child: Deno.ChildProcess,
  groupKiller: GroupKiller,
  command: string,
): Promise<void> {
  try {
    await groupKiller.started(child.pid);
  } catch (e) {
    try {
      child.kill("SIGKILL");
    } catch { /* already exited */ }
    await Promise.all([child.status, child.stdout.cancel(), child.stderr.cancel()]).catch(() => {});
    const why = e instanceof Error ? e.message : String(e);
    throw new Error(`${command} was not started: its process group could not be recorded (${why})`);
  }
}

/** How long `ownGroupLeader` waits for a just-spawned child's `setsid` to take effect. */
const GROUP_LEADER_WAIT_MS = 2_000;

export function realProcess(groupKiller?: GroupKiller): Process {
  return {
    pid: () => Deno.pid,
    async run(command, args, options = {}) {
      const posix = Deno.build.os !== "windows";
      const group = posix && options.newProcessGroup === true;
      // setsid puts the command in its own session/process group so the group can be killed. With
      // a GroupKiller the command is gated until its group is recorded.
      const gated = group && groupKiller !== undefined;
      const argv = gated ? ["sh", "-c", GATE, command, ...args] : [command, ...args];
      const child = new Deno.Command(group ? "setsid" : command, {
        args: group ? argv : args,
        ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
        ...(options.env === undefined ? {} : { env: options.env }),
        clearEnv: options.clearEnv ?? false,
        stdin: options.stdin === undefined && !gated ? "null" : "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      if (gated) await releaseGate(child, groupKiller!, command);
      options.onSpawn?.(child.pid);
      let timedOut = false;
      let aborted = false;
      let truncated = false;
      let killFailure: string | undefined;
      const killLeader = () => {
        try {
          child.kill("SIGKILL");
        } catch { /* already exited: nothing left to kill */ }
      };
      const killAll = () => {
        if (!group) return killLeader();
        if (groupKiller !== undefined) {
          groupKiller.kill(child.pid).catch((e) => {
            killFailure = `could not kill process group ${child.pid}: ${e instanceof Error ? e.message : e}`;
            killLeader();
          });
          return;
        }
        try {
          Deno.kill(-child.pid, "SIGKILL");
        } catch (e) {
          if (!(e instanceof Deno.errors.NotFound)) {
            killFailure = `could not kill process group ${child.pid}: ${e instanceof Error ? e.message : e}`;
          }
          killLeader();
        }
      };
      const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => {
        timedOut = true;
        killAll();
      }, options.timeoutMs);
      const onAbort = () => {
        aborted = true;
        killAll();
      };
      options.signal?.addEventListener("abort", onAbort, { once: true });
      if (options.signal?.aborted) onAbort();
      if (options.stdin !== undefined || gated) {
        const w = child.stdin.getWriter();
        // The gate's line goes first: the command itself reads only what follows it.
        const text = `${gated ? "\n" : ""}${options.stdin ?? ""}`;
        await w.write(new TextEncoder().encode(text)).catch(() => {});
        await w.close().catch(() => {});
      }
      const max = options.maxOutputBytes ?? Number.MAX_SAFE_INTEGER;
      const [stdout, stderr, status] = await Promise.all([
        collect(
          child.stdout,
          max,
          () => (truncated = true),
          options.onOutput === undefined ? undefined : (t) => options.onOutput!(t, "stdout"),
        ),
        collect(
          child.stderr,
          max,
          () => (truncated = true),
          options.onOutput === undefined ? undefined : (t) => options.onOutput!(t, "stderr"),
        ),
        child.status,
      ]);
      if (timer !== undefined) clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      return {
        code: status.code,
        signal: status.signal,
        stdout,
        stderr,
        timedOut,
        aborted,
        truncated,
        ...(killFailure === undefined ? {} : { killFailure }),
      };
    },
    async identity(pid) {
      const value = await startValue(pid);
      if (value === null) return null;
      const platform = platformName();
      return { platform, fingerprint: await fingerprint(platform, value) };
    },
    async isAlive(pid, identity) {
      const alive = platformName() === "linux" ? await linuxAlive(pid) : signalAlive(pid);
      if (!alive) return false;
      if (identity === undefined) return true;
      const now = await this.identity(pid);
      return now !== null && now.platform === identity.platform && now.fingerprint === identity.fingerprint;
    },
    spawnDetached(command, args, options = {}) {
      const posix = Deno.build.os !== "windows";
      const child = new Deno.Command(posix ? "setsid" : command, {
        args: posix ? [command, ...args] : args,
        ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).spawn();
      child.unref();
      return child.pid;
    },
    async ownGroupLeader(pid) {
      if (platformName() !== "linux") return Number.isInteger(pid) && pid > 1;
      // `setsid` makes its own group only after it has been exec'd: right after spawn the child may
      // still sit in this process's group, so "not yet" is asked again for a bounded time.
      const deadline = Date.now() + GROUP_LEADER_WAIT_MS;
      for (;;) {
        const state = groupLeaderState(await procStat(pid), Deno.pid, pid);
        if (state !== "not-yet") return state === "leader";
        if (Date.now() >= deadline) return false;
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    async groupLeaderIdentity(pgid) {
      if (!Number.isInteger(pgid) || pgid <= 1) return null;
      const platform = platformName();
      let value: string | null = null;
      if (platform === "linux") {
        const stat = await procStat(pgid);
        const leads = stat !== null && parseProcStatParent(stat)?.pgrp === pgid &&
          parseProcStatState(stat) !== "Z";
        value = leads ? parseProcStatStartTime(stat!) : null;
      } else if (platform === "darwin") {
        const out = await new Deno.Command("ps", {
          args: ["-o", "pgid=", "-o", "lstart=", "-p", String(pgid)],
          stdout: "piped",
          stderr: "null",
        }).output().catch(() => null);
        const m = out?.success ? /^\s*(\d+)\s+(.+?)\s*$/.exec(new TextDecoder().decode(out.stdout)) : null;
        value = m !== null && m !== undefined && Number(m[1]) === pgid ? m[2]! : null;
      }
      return value === null ? null : { platform, fingerprint: await fingerprint(platform, value) };
    },
    killGroup(pgid) {
      if (!Number.isInteger(pgid) || pgid <= 1) throw new Error(`not a process group: ${pgid}`);
      try {
        Deno.kill(-pgid, "SIGKILL");
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound)) throw e; // ESRCH: the group has already exited
      }
    },
    kill(pid, signal = "SIGTERM") {
      try {
        Deno.kill(pid, signal);
        return true;
      } catch {
        return false;
      }
    },
  };
}
