// Owns the phase marks of `blade -p` for the profile bench (scripts/bench_profile.ts,
// docs/reference/performance.md). A mark is a name and a wall-clock instant (epoch milliseconds, sub-ms
// precision, comparable across threads and with the bench's own clock). Marks are kept in memory (a
// few dozen per run) and written to stderr, one line each with the process's resident memory then (MiB;
// empty for marks made before profiling was turned on), only when profiling is on: BLADE_PROFILE set
// on the main thread, or enableProfile() in a child Worker (which has no environment grant; its parent
// turns it on through the run request). Off, a mark costs an array push.

const PREFIX = "blade-profile";
const marks: [string, number][] = [];
let thread = "main";
let enabled = readEnabled();

function readEnabled(): boolean {
  try {
    return (Deno.env.get("BLADE_PROFILE") ?? "") !== "";
  } catch {
    return false; // no environment grant (a Worker): its parent decides
  }
}

function now(): number {
  return performance.timeOrigin + performance.now();
}

/** The process's resident memory now, MiB (empty when it cannot be read). */
function rss(): string {
  try {
    return (Deno.memoryUsage().rss / 1048576).toFixed(1);
  } catch {
    return "";
  }
}

function write(name: string, at: number, memory = ""): void {
  try {
    Deno.stderr.writeSync(
      new TextEncoder().encode(`${PREFIX}\t${thread}\t${name}\t${at.toFixed(3)}\t${memory}\n`),
    );
  } catch { /* profiling never fails a run */ }
}

/** Records that `name` happened now. */
export function profileMark(name: string): void {
  const at = now();
  if (marks.length < 1000) marks.push([name, at]);
  if (enabled) write(name, at, rss());
}

/** Whether marks are written (so a parent can turn profiling on in its Workers). */
export function profileEnabled(): boolean {
  return enabled;
}

/**
 * Turns profiling on in this thread (a child Worker, told by its parent), naming the thread in the
 * lines; the marks made so far (module evaluation) are written first, plus the thread's start.
 */
export function enableProfile(threadName: string): void {
  if (enabled) return;
  enabled = true;
  thread = threadName;
  write("thread start", performance.timeOrigin);
  for (const [name, at] of marks) write(name, at);
}
