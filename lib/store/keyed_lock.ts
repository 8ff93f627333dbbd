// Owns per-key serialisation inside one process: tasks for the same key run one after another,
// tasks for different keys run freely. Does not lock across processes.

export class KeyedLock {
  #tails = new Map<string, Promise<unknown>>();

  /** Runs `task` after every earlier task of `key` has settled. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const current = previous.then(task, task);
    const tail = current.catch(() => {});
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return current;
  }

  /** Keys with a running or queued task. */
  get activeKeys(): number {
    return this.#tails.size;
  }
}
