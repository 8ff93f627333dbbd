// Owns hand-written fakes of the sys ports for tests. Never imported by main.ts.

import type { Clock } from "../sys/clock.ts";
import type { Env, Platform } from "../sys/env.ts";
import type { Ids } from "../sys/ids.ts";
import type { Fs } from "../sys/fs.ts";
import { FaultFs } from "./fault_fs.ts";
import type { Process, ProcessIdentity, RunOptions, RunResult } from "../sys/process.ts";

/** A clock that only moves when told to. sleep() resolves when advance() passes its deadline. */
export class FakeClock implements Clock {
  #now: number;
  #sleepers: { at: number; resolve: () => void }[] = [];
  #timers: { at: number; every: number; fn: () => void }[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const entry = { at: this.#now + ms, resolve };
      this.#sleepers.push(entry);
      signal?.addEventListener("abort", () => {
        this.#sleepers = this.#sleepers.filter((s) => s !== entry);
        reject(signal.reason);
      }, { once: true });
    });
  }

  timer(ms: number, fn: () => void, options?: { repeat?: boolean }): () => void {
    const entry = {
      at: this.#now + Math.max(0, ms),
      every: options?.repeat === true ? Math.max(1, ms) : 0,
      fn,
    };
    this.#timers.push(entry);
    return () => void (this.#timers = this.#timers.filter((t) => t !== entry));
  }

  /** Move time forward, waking every sleeper whose deadline has passed and firing due timers. */
  advance(ms: number): void {
    this.#now += ms;
    const due = this.#sleepers.filter((s) => s.at <= this.#now);
    this.#sleepers = this.#sleepers.filter((s) => s.at > this.#now);
    for (const s of due) s.resolve();
    for (const t of [...this.#timers].sort((a, b) => a.at - b.at)) {
      while (t.at <= this.#now && this.#timers.includes(t)) {
        if (t.every === 0) this.#timers = this.#timers.filter((x) => x !== t);
        t.fn();
        if (t.every === 0) break;
        t.at += t.every;
      }
    }
  }

  /** Timers scheduled and not yet fired or cancelled. */
  get pendingTimers(): number {
    return this.#timers.length;
  }

  get pendingSleepers(): number {
    return this.#sleepers.length;
  }
}

/** Deterministic ids: `000000000000000000001`, `…2`, … (21 chars each). */
export function sequentialIds(prefix = ""): Ids {
  let n = 0;
  return {
    random21: () => (prefix + String(++n)).padStart(21, "0").slice(-21),
    uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`,
  };
}

export function fakeEnv(
  vars: Record<string, string>,
  options: { cwd: string; home?: string; tty?: boolean; platform?: Platform; hostname?: string },
): Env {
  return {
    get: (n) => vars[n],
    all: () => ({ ...vars }),
    home: () => options.home ?? vars["HOME"],
    cwd: () => options.cwd,
    stdoutIsTerminal: () => options.tty ?? false,
    stdinIsTerminal: () => options.tty ?? false,
    platform: () => options.platform ?? "linux",
    hostname: () => options.hostname ?? "test-host",
  };
}

/**
 * A Process port whose processes are a table: tests script which PIDs are alive and with which
 * identity (to exercise PID reuse), and `run` answers from a handler. Records every run.
 */
export class FakeProcess implements Process {
  readonly runs: { command: string; args: string[]; options: RunOptions }[] = [];
  #pid: number;
  #table = new Map<number, ProcessIdentity | null>();
  #handler: (command: string, args: string[]) => Partial<RunResult>;

  constructor(options: { pid?: number; run?: (command: string, args: string[]) => Partial<RunResult> } = {}) {
    this.#pid = options.pid ?? 4242;
    this.#handler = options.run ?? (() => ({}));
    this.#table.set(this.#pid, { platform: "linux", fingerprint: "f".repeat(64) });
  }

  /** Declares a live process (identity null = alive but unreadable). */
  spawnFake(pid: number, identity: ProcessIdentity | null): void {
    this.#table.set(pid, identity);
  }

  /** The process ended. */
  exitFake(pid: number): void {
    this.#table.delete(pid);
  }

  pid(): number {
    return this.#pid;
  }

  run(command: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
    this.runs.push({ command, args, options });
    const r = this.#handler(command, args);
    return Promise.resolve({
      code: r.code ?? 0,
      signal: r.signal ?? null,
      stdout: r.stdout ?? "",
      stderr: r.stderr ?? "",
      timedOut: r.timedOut ?? false,
      aborted: r.aborted ?? false,
      truncated: r.truncated ?? false,
    });
  }

  identity(pid: number): Promise<ProcessIdentity | null> {
    this.identityReads.push(pid);
    return Promise.resolve(this.#table.get(pid) ?? null);
  }
  /** Every identity question, in order. */
  readonly identityReads: number[] = [];

  isAlive(pid: number, identity?: ProcessIdentity): Promise<boolean> {
    if (!this.#table.has(pid)) return Promise.resolve(false);
    if (identity === undefined) return Promise.resolve(true);
    const now = this.#table.get(pid);
    return Promise.resolve(now != null && now.fingerprint === identity.fingerprint);
  }

  kill(pid: number): boolean {
    return this.#table.delete(pid);
  }

  /** Records killed groups; a group is "ours" when it is in the table. */
  readonly killedGroups: number[] = [];
  /** A table process is a child of ours leading its own group (identity null = unreadable → not ours). */
  ownGroupLeader(pid: number): Promise<ProcessIdentity | null> {
    this.groupLeaderReads.push(pid);
    return Promise.resolve(this.#table.get(pid) ?? null);
  }
  /** Every ownGroupLeader question, in order (one per group started). */
  readonly groupLeaderReads: number[] = [];
  /** A group's leader: a table process leads its own group (identity null = unreadable → no leader). */
  groupLeaderIdentity(pgid: number): Promise<ProcessIdentity | null> {
    return Promise.resolve(this.#table.get(pgid) ?? null);
  }
  killGroup(pgid: number): void {
    this.killedGroups.push(pgid);
    this.#table.delete(pgid);
  }

  /** Records the command like run() and pretends a process started. */
  spawnDetached(command: string, args: string[], options: { cwd?: string } = {}): number {
    this.runs.push({ command, args, options: options.cwd === undefined ? {} : { cwd: options.cwd } });
    const pid = 50_000 + this.runs.length;
    this.#table.set(pid, null);
    return pid;
  }
}

/**
 * An Fs that delegates to another and fails chosen atomic writes with EACCES (PermissionDenied), for
 * testing what survives an I/O error without touching the real machine; FaultFs (fault_fs.ts) does more.
 */
export function faultyFs(base: Fs, fail: { writeAtomic?: (path: string) => boolean }): Fs {
  const only = fail.writeAtomic;
  return only === undefined
    ? base
    : new FaultFs(base, [{ op: "writeAtomic", path: only, code: "EACCES" }]).fs;
}
