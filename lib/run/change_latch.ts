// Owns a wake-up that is never lost: `notify()` from a watch's callback, `next()` from a wait loop. A
// change notified while nobody waits is kept (once) for the next `next()`, so a change that lands
// between a loop's read and its next wait still wakes it. lib/run/remote_child.ts waits on it.

export class ChangeLatch {
  #pending = false;
  #wake: (() => void) | undefined;

  /** Something changed: wakes the waiter, or the next one. */
  notify(): void {
    const wake = this.#wake;
    if (wake === undefined) {
      this.#pending = true;
      return;
    }
    this.#wake = undefined;
    wake();
  }

  /**
   * Resolves at the next change, or at once when one came since the last `next()`. A wait given up
   * (`signal` aborted: the loop woke for another reason) stops waiting, so the next change is kept for
   * the next `next()` instead of waking a promise nobody awaits any more.
   */
  next(signal?: AbortSignal): Promise<void> {
    if (this.#pending) {
      this.#pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const wake = () => resolve();
      this.#wake = wake;
      signal?.addEventListener("abort", () => {
        if (this.#wake === wake) this.#wake = undefined;
      }, { once: true });
    });
  }
}
