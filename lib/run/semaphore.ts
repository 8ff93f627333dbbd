// Owns a counting semaphore with a FIFO queue: the per-root-session limit on children running at
// once (docs/reference/task-tool.md: at most 20 by default; beyond that they queue). A held slot is Disposable, so
// `using slot = await slots.acquire(signal)` frees it on every path out of the block.

/** A held slot; disposing it (once or more) frees it for the next waiter. */
export type Slot = Disposable;

export class Semaphore {
  #free: number;
  #queue: { resolve: (slot: Slot) => void; reject: (e: unknown) => void }[] = [];

  constructor(size: number) {
    this.#free = size;
  }

  /** Slots free right now (0 means an acquire would queue). */
  get free(): number {
    return this.#free;
  }

  /** Resolves with a slot once one is free; rejects if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<Slot> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve(this.#slot());
    }
    return new Promise((resolve, reject) => {
      const entry = { resolve, reject };
      this.#queue.push(entry);
      signal?.addEventListener("abort", () => {
        const i = this.#queue.indexOf(entry);
        if (i >= 0) {
          this.#queue.splice(i, 1);
          reject(signal.reason);
        }
      }, { once: true });
    });
  }

  #slot(): Slot {
    let released = false;
    return {
      [Symbol.dispose]: () => {
        if (released) return;
        released = true;
        const next = this.#queue.shift();
        if (next !== undefined) next.resolve(this.#slot());
        else this.#free++;
      },
    };
  }
}
