// Owns running one command to its end for the Process port's real adapter (`Process.run`): spawning it
// (in its own session and process group when asked, held at a gate until a GroupKiller has recorded
// that group), feeding stdin, collecting stdout/stderr up to a limit, and the timeout and abort that
// kill it — its whole group when it has one. Does not own process identity or liveness (process.ts).

import { watchdog } from "./clock.ts";

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

/** Starts the command: in its own session/process group when asked, gated until a GroupKiller records it. */
function spawnCommand(
  command: string,
  args: string[],
  options: RunOptions,
  gated: boolean,
): Deno.ChildProcess {
  const group = Deno.build.os !== "windows" && options.newProcessGroup === true;
  // setsid puts the command in its own session/process group so the group can be killed. With
  // a GroupKiller the command is gated until its group is recorded.
  const argv = gated ? ["sh", "-c", GATE, command, ...args] : [command, ...args];
  return new Deno.Command(group ? "setsid" : command, {
    args: group ? argv : args,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.env === undefined ? {} : { env: options.env }),
    clearEnv: options.clearEnv ?? false,
    stdin: options.stdin === undefined && !gated ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Kills the command (its whole group when it has one); a group that could not be killed is remembered. */
function commandKiller(child: Deno.ChildProcess, group: boolean, groupKiller: GroupKiller | undefined) {
  let failure: string | undefined;
  const failed = (e: unknown) =>
    `could not kill process group ${child.pid}: ${e instanceof Error ? e.message : e}`;
  const killLeader = () => {
    try {
      child.kill("SIGKILL");
    } catch { /* already exited: nothing left to kill */ }
  };
  const killAll = () => {
    if (!group) return killLeader();
    if (groupKiller !== undefined) {
      groupKiller.kill(child.pid).catch((e) => {
        failure = failed(e);
        killLeader();
      });
      return;
    }
    try {
      Deno.kill(-child.pid, "SIGKILL");
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) failure = failed(e);
      killLeader();
    }
  };
  return { killAll, failure: () => failure };
}

/** Writes the gate's line (first: the command itself reads only what follows it) and `stdin`, then closes. */
async function writeInput(
  child: Deno.ChildProcess,
  stdin: string | undefined,
  gated: boolean,
): Promise<void> {
  const w = child.stdin.getWriter();
  const text = `${gated ? "\n" : ""}${stdin ?? ""}`;
  await w.write(new TextEncoder().encode(text)).catch(() => {});
  await w.close().catch(() => {});
}

/** Process.run: runs a command to its end, collecting its output, with timeout, abort and group kills. */
export async function runCommand(
  command: string,
  args: string[],
  options: RunOptions,
  groupKiller: GroupKiller | undefined,
): Promise<RunResult> {
  const group = Deno.build.os !== "windows" && options.newProcessGroup === true;
  const gated = group && groupKiller !== undefined;
  const child = spawnCommand(command, args, options, gated);
  if (gated) await releaseGate(child, groupKiller!, command);
  options.onSpawn?.(child.pid);
  let timedOut = false;
  let aborted = false;
  let truncated = false;
  const killer = commandKiller(child, group, groupKiller);
  // A watchdog over the child (which keeps the process alive), not the global setTimeout: its first
  // use in a thread costs ~7 ms and ~3 MiB (Deno 2.9's timers are Node's; clock.ts).
  const stopTimer = options.timeoutMs === undefined ? undefined : watchdog(options.timeoutMs, () => {
    timedOut = true;
    killer.killAll();
  });
  const onAbort = () => {
    aborted = true;
    killer.killAll();
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  if (options.stdin !== undefined || gated) await writeInput(child, options.stdin, gated);
  const max = options.maxOutputBytes ?? Number.MAX_SAFE_INTEGER;
  const onOutput = options.onOutput;
  const read = (stream: ReadableStream<Uint8Array>, name: "stdout" | "stderr") =>
    collect(
      stream,
      max,
      () => (truncated = true),
      onOutput === undefined ? undefined : (t) => onOutput(t, name),
    );
  const [stdout, stderr, status] = await Promise.all([
    read(child.stdout, "stdout"),
    read(child.stderr, "stderr"),
    child.status,
  ]);
  stopTimer?.();
  options.signal?.removeEventListener("abort", onAbort);
  const killFailure = killer.failure();
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
}
