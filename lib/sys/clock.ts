// Owns time: the Clock port and its real adapter. Recovery, heartbeats and retries take a Clock
// instead of calling Date.now() or setTimeout, so tests drive them with a fake clock.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when aborted first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Calls `fn` after `ms` (and every `ms` after that with `repeat`) until the returned function
   * cancels it. A pending timer never keeps the process alive on its own: a watchdog over work that
   * does (a request, a child), never a wait of its own (that is `sleep`).
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
      if (options?.repeat !== true) return watchdog(ms, fn);
      let stopped = false;
      let cancel = () => {};
      const tick = () => {
        fn();
        if (!stopped) cancel = watchdog(ms, tick);
      };
      cancel = watchdog(ms, tick);
      return () => {
        stopped = true;
        cancel();
      };
    },
  };
}

/**
 * Calls `fn` after `ms` unless the returned function cancels it first; never keeps the process alive
 * (what `timer` promises). Not the global setTimeout: in Deno 2.9 the global timers are Node's, whose
 * first use costs each thread ~7 ms of evaluation and ~4 MiB (docs/reference/performance.md). A wait
 * on a cell of its own (`Atomics.waitAsync` with a timeout: V8's own timer, woken early to cancel)
 * costs neither.
 */
export function watchdog(ms: number, fn: () => void): () => void {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  let live = true;
  const done = (result: string) => {
    if (!live || result !== "timed-out") return;
    live = false;
    fn();
  };
  const wait = Atomics.waitAsync(cell, 0, 0, Math.max(0, ms));
  // A zero timeout answers at once (not a promise): fired from a microtask, like any timer later.
  if (wait.async) wait.value.then(done);
  else queueMicrotask(() => done(wait.value));
  return () => {
    if (!live) return;
    live = false;
    Atomics.notify(cell, 0);
  };
}
