// Owns time: the Clock port and its real adapter. Recovery, heartbeats and retries take a Clock
// instead of calling Date.now() or setTimeout, so tests drive them with a fake clock.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when aborted first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
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
  };
}
