// Owns a counting semaphore with a FIFO queue: the per-root-session limit on children running at
// once (docs/reference/task-tool.md: at most 20 by default; beyond that they queue). A held slot is Disposable, so
// `using slot = await slots.acquire(signal)` frees it on every path out of the block. A LentSlot is a
// child's slot it gives back while it waits on its own children (a foreground Task, a blocking
// TaskOutput) and takes back, ahead of the queue, when they are done, so nested fan-out cannot
// deadlock: whoever holds a slot is running, never waiting on a slot someone else needs.

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

  /**
   * Resolves with a slot once one is free; rejects if `signal` aborts first. `first` queues ahead of
   * every waiter (a run taking its own slot back after lending it).
   */
  acquire(signal?: AbortSignal, options: { first?: boolean } = {}): Promise<Slot> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve(this.#slot());
    }
    return new Promise((resolve, reject) => {
      const entry = { resolve, reject };
      if (options.first === true) this.#queue.unshift(entry);
      else this.#queue.push(entry);
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

/**
 * A run's slot that it lends back while it waits on work that needs slots itself (its own children):
 * `whileWaiting(wait)` frees the slot when the first such wait starts and takes it back, ahead of the
 * queue, when the last one ends. Disposing it frees whatever it holds or is still taking back.
 */
export class LentSlot implements Disposable {
  #slots: Semaphore;
  #held: Slot | undefined;
  #waits = 0;
  #taking: Promise<void> | undefined;
  #disposed = false;
  #signal: AbortSignal | undefined;

  constructor(slots: Semaphore, held: Slot, signal?: AbortSignal) {
    this.#slots = slots;
    this.#held = held;
    this.#signal = signal;
  }

  /** Whether the run holds its slot now (false while it is lent or being taken back). */
  get held(): boolean {
    return this.#held !== undefined;
  }

  async whileWaiting<T>(wait: () => Promise<T>): Promise<T> {
    this.#waits++;
    this.#held?.[Symbol.dispose]();
    this.#held = undefined;
    try {
      return await wait();
    } finally {
      this.#waits--;
      if (this.#waits === 0) await this.#takeBack();
    }
  }

  #takeBack(): Promise<void> {
    if (this.#held !== undefined || this.#disposed) return Promise.resolve();
    this.#taking ??= this.#slots.acquire(this.#signal, { first: true }).then(
      (slot) => {
        this.#taking = undefined;
        // Another wait started, or the run ended, meanwhile: give it straight back.
        if (this.#waits > 0 || this.#disposed) slot[Symbol.dispose]();
        else this.#held = slot;
      },
      () => {
        this.#taking = undefined; // aborted: the run is ending; it finishes without a slot
      },
    );
    return this.#taking;
  }

  [Symbol.dispose](): void {
    this.#disposed = true;
    this.#held?.[Symbol.dispose]();
    this.#held = undefined;
  }
}
