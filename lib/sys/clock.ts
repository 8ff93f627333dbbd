// Owns time: the Clock port and its real adapter. Recovery, heartbeats and retries take a Clock
// instead of calling Date.now() or setTimeout, so tests drive them with a fake clock.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when aborted first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Calls `fn` after `ms` (and every `ms` after that with `repeat`) until the returned function
   * cancels it. A pending timer never keeps the process alive on its own.
   */
  timer(ms: number, fn: () => void, options?: { repeat?: boolean }): () => void;
}

export function realClock(): Clock {
  return {
    now: () => Date.now(),
    sleep(ms, signal) {
      return new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const onAbort = () => {
          clearTimeout(timer);
          reject(signal?.reason);
        };
        const timer = setTimeout(() => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        }, Math.max(0, ms));
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    },
    timer(ms, fn, options) {
      if (options?.repeat === true) {
        const id = setInterval(fn, Math.max(0, ms));
        Deno.unrefTimer(id);
        return () => clearInterval(id);
      }
      const id = setTimeout(fn, Math.max(0, ms));
      Deno.unrefTimer(id);
      return () => clearTimeout(id);
    },
  };
}
