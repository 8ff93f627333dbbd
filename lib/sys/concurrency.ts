// Owns three concurrency patterns over promises, with no I/O of their own: independent reads awaited
// together but failing as if one after the other (allInOrder), running `fn(i)` for many i
// at most `limit` at once (the store lists records and recovery prepares orphans that way, so their
// syscalls overlap without opening thousands of files together), and holding many callback-shaped
// locks at once while one piece of work runs (a group commit holds every record's lock).

/**
 * All of `promises` at once (their I/O overlaps), resolved with their values in order; when some
 * fail, rejects with the failure of the first in order — the one awaiting them one after the other
 * would have reported — not with the first in time.
 */
export async function allInOrder<T extends readonly unknown[]>(
  promises: { [K in keyof T]: Promise<T[K]> },
): Promise<T> {
  const settled = await Promise.allSettled(promises);
  const failed = settled.find((s) => s.status === "rejected");
  if (failed !== undefined) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/** `fn(0)` … `fn(count - 1)`, at most `limit` running at once; rejects with the first failure. */
export async function forEachBounded(
  count: number,
  limit: number,
  fn: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.max(0, Math.min(limit, count)) }, lane));
}

/**
 * Takes the holds of all `keys` at once (`hold(key, fn)` runs `fn` while it holds `key`, like
 * Fs.withLockedFile) and runs `inner` with the keys whose `fn` was entered, while every one of them
 * is held; a hold that never runs its `fn` (busy, or failed first) is left out. The holds are released
 * when `inner` settles. With `limit`, at most that many holds are being taken at any moment. Resolves with each hold's own outcome, in the order of `keys`.
 *
 * The holds are taken in no particular order, so two callers holding overlapping keys at once could
 * wait on each other forever: callers serialise themselves (e.g. under one lock of their own) unless
 * every other holder of these keys holds only one at a time.
 */
export async function whileAllHeld<K, R>(
  keys: readonly K[],
  hold: (key: K, fn: () => Promise<void>) => Promise<R>,
  inner: (entered: K[]) => Promise<void>,
  options: { limit?: number } = {},
): Promise<PromiseSettledResult<R>[]> {
  const entered: K[] = [];
  const release = Promise.withResolvers<void>();
  const allIn = Promise.withResolvers<void>();
  let waiting = keys.length;
  // At most `limit` holds are being taken at once (held ones do not count): a burst of hundreds of
  // lock files created in one folder at once only makes them wait on each other in the kernel.
  const slots: (() => void)[] = [];
  let free = options.limit ?? Infinity;
  const slot = () =>
    free > 0 ? (free--, Promise.resolve()) : new Promise<void>((resolve) => slots.push(resolve));
  const freeSlot = () => {
    const next = slots.shift();
    if (next !== undefined) next();
    else free++;
  };
  const arrived = () => {
    freeSlot();
    if (--waiting === 0) allIn.resolve();
  };
  if (waiting === 0) allIn.resolve();
  const outcomes = Promise.allSettled(keys.map(async (key) => {
    await slot();
    let counted = false;
    try {
      return await hold(key, async () => {
        entered.push(key);
        counted = true;
        arrived();
        await release.promise;
      });
    } finally {
      if (!counted) arrived();
    }
  }));
  try {
    await allIn.promise;
    await inner(entered);
  } finally {
    release.resolve();
  }
  return await outcomes;
}
