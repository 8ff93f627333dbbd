// Owns waiting for a task to end with a time limit: for a run of this process (a promise), and for a
// run of another process (its durable record, polled).

import type { Clock } from "../sys/clock.ts";

/**
 * True when `done` settles within `timeoutMs` (0 = no limit); false on timeout or when `signal`
 * aborts first. Leaves no timer behind.
 */
export async function endsWithin(
  done: Promise<unknown>,
  options: { clock: Clock; timeoutMs: number; signal?: AbortSignal },
): Promise<boolean> {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) stop.abort();
  try {
    const limit = options.timeoutMs > 0
      ? options.clock.sleep(options.timeoutMs, stop.signal).then(() => false, () => false)
      : new Promise<boolean>((resolve) => {
        if (stop.signal.aborted) resolve(false);
        stop.signal.addEventListener("abort", () => resolve(false));
      });
    return await Promise.race([done.then(() => true, () => true), limit]);
  } finally {
    stop.abort();
    options.signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * Re-reads a record while it is `running`, until it ends, `timeoutMs` passes (0 = no limit) or
 * `signal` aborts; returns the last record read. For runs owned by another process. `woken` (a
 * watch on the record): each time it resolves the record is read at once, not at the next interval;
 * its signal aborts when that wait is over (the interval passed first), so it can stop waiting.
 */
export async function pollWhileRunning<R extends { status: string }>(
  first: R,
  reload: () => Promise<R>,
  options: {
    clock: Clock;
    timeoutMs: number;
    signal?: AbortSignal;
    intervalMs?: number;
    woken?: ((signal: AbortSignal) => Promise<void>) | undefined;
  },
): Promise<R> {
  const { clock } = options;
  const deadline = options.timeoutMs > 0 ? clock.now() + options.timeoutMs : Infinity;
  let record = first;
  while (record.status === "running" && clock.now() < deadline && options.signal?.aborted !== true) {
    const interval = new AbortController();
    const stop = () => interval.abort();
    options.signal?.addEventListener("abort", stop, { once: true });
    const slept = clock.sleep(options.intervalMs ?? 250, interval.signal).then(() => true, () => false);
    const woke = options.woken?.(interval.signal).then(() => true);
    const ok = await (woke === undefined ? slept : Promise.race([slept, woke]));
    interval.abort();
    options.signal?.removeEventListener("abort", stop);
    if (!ok) break;
    record = await reload();
  }
  return record;
}
