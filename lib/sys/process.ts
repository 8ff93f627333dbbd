// Owns child processes and process identity (the Process port) and its real adapter; running one
// command to its end is run_command.ts.
// Process identity = PID + SHA-256 fingerprint of the process start time (docs/reference/sidecars.md), so a reused
// PID is never mistaken for the original owner.

import {
  groupLeaderState,
  parseProcStatParent,
  parseProcStatStartTime,
  parseProcStatState,
} from "./proc_stat.ts";

import { type GroupKiller, runCommand, type RunOptions, type RunResult } from "./run_command.ts";

export { groupLeaderState, parseProcStatParent, parseProcStatStartTime } from "./proc_stat.ts";
export { decodeChunks, type GroupKiller, type RunOptions, type RunResult } from "./run_command.ts";

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
   * The identity of `pid` when it is a direct child of this process and leads its own process group
   * (the only groups the main thread kills for a Worker child, child/child_protocol.ts), else null
   * — also when its identity cannot be read. One read answers both: the group and the start time.
   */
  ownGroupLeader(pid: number): Promise<ProcessIdentity | null>;
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

/**
 * The environment variable the release launcher (dist/blade, scripts/bundle.ts) sets to its own
 * /proc/<pid>/stat line, read with the shell's `read` (no process started), before it execs Deno.
 */
export const LAUNCHER_STAT_ENV = "BLADE_LAUNCHER_STAT";

/**
 * This process's /proc stat line as its launcher read it, when the line is this process's: exec
 * keeps the PID and the start time, and a line inherited from another process (a Blade started by a
 * command of this one, not through the launcher) names that process's PID. Else null: `cat` reads it.
 * It is trusted as the rest of the environment Blade is started with is.
 */
function launcherStat(pid: number): string | null {
  if (pid !== Deno.pid) return null;
  let line: string | undefined;
  try {
    line = Deno.env.get(LAUNCHER_STAT_ENV);
  } catch {
    return null; // no environment grant (a Worker)
  }
  const named = line === undefined ? null : /^(\d+) \(/.exec(line);
  return named !== null && Number(named[1]) === pid && parseProcStatStartTime(line!) !== null ? line! : null;
}

async function startValue(pid: number): Promise<string | null> {
  const platform = platformName();
  try {
    if (platform === "linux") {
      const stat = launcherStat(pid) ?? await procStat(pid);
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

/** How long `ownGroupLeader` waits for a just-spawned child's `setsid` to take effect. */
const GROUP_LEADER_WAIT_MS = 2_000;

/** The start-time value of the process leading group `pgid` (Linux /proc, macOS ps), or null. */
async function groupLeaderStart(platform: string, pgid: number): Promise<string | null> {
  if (platform === "linux") {
    const stat = await procStat(pgid);
    const leads = stat !== null && parseProcStatParent(stat)?.pgrp === pgid &&
      parseProcStatState(stat) !== "Z";
    return leads ? parseProcStatStartTime(stat!) : null;
  }
  if (platform !== "darwin") return null;
  const out = await new Deno.Command("ps", {
    args: ["-o", "pgid=", "-o", "lstart=", "-p", String(pgid)],
    stdout: "piped",
    stderr: "null",
  }).output().catch(() => null);
  const m = out?.success ? /^\s*(\d+)\s+(.+?)\s*$/.exec(new TextDecoder().decode(out.stdout)) : null;
  return m !== null && m !== undefined && Number(m[1]) === pgid ? m[2]! : null;
}

export function realProcess(groupKiller?: GroupKiller): Process {
  return {
    pid: () => Deno.pid,
    run: (command, args, options = {}) => runCommand(command, args, options, groupKiller),
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
      const platform = platformName();
      if (platform !== "linux") return Number.isInteger(pid) && pid > 1 ? await this.identity(pid) : null;
      // `setsid` makes its own group only after it has been exec'd: right after spawn the child may
      // still sit in this process's group, so "not yet" is asked again for a bounded time.
      const deadline = Date.now() + GROUP_LEADER_WAIT_MS;
      for (;;) {
        const stat = await procStat(pid);
        const state = groupLeaderState(stat, Deno.pid, pid);
        if (state === "leader") {
          const start = parseProcStatStartTime(stat!);
          return start === null ? null : { platform, fingerprint: await fingerprint(platform, start) };
        }
        if (state === "other" || Date.now() >= deadline) return null;
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    async groupLeaderIdentity(pgid) {
      if (!Number.isInteger(pgid) || pgid <= 1) return null;
      const platform = platformName();
      const value = await groupLeaderStart(platform, pgid);
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
