// Owns waiting for a task to end with a time limit: the one wait that TaskOutput's subagent runs and
// background shells share.

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
