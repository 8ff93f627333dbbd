import assert from "node:assert/strict";
import { LentSlot, Semaphore } from "./semaphore.ts";

Deno.test("Semaphore: a disposed slot goes to the first waiter; disposing twice frees once", async () => {
  const slots = new Semaphore(1);
  const first = await slots.acquire();
  assert.equal(slots.free, 0);
  const order: string[] = [];
  const a = slots.acquire().then((s) => (order.push("a"), s));
  const b = slots.acquire().then((s) => (order.push("b"), s));
  first[Symbol.dispose]();
  first[Symbol.dispose]();
  (await a)[Symbol.dispose]();
  (await b)[Symbol.dispose]();
  assert.deepEqual(order, ["a", "b"]);
  assert.equal(slots.free, 1);
});

Deno.test("Semaphore: `using` frees the slot when the block ends, also by a throw", async () => {
  const slots = new Semaphore(1);
  try {
    using _slot = await slots.acquire();
    assert.equal(slots.free, 0);
    throw new Error("boom");
  } catch { /* expected */ }
  assert.equal(slots.free, 1);
});

Deno.test("Semaphore: an abort while queued rejects and leaves the queue", async () => {
  const slots = new Semaphore(1);
  const held = await slots.acquire();
  const controller = new AbortController();
  const waiting = slots.acquire(controller.signal);
  controller.abort(new Error("stop"));
  await assert.rejects(waiting, /stop/);
  held[Symbol.dispose]();
  assert.equal(slots.free, 1);
  await assert.rejects(slots.acquire(controller.signal), /stop/);
});

Deno.test("Semaphore: `first` queues ahead of every waiter", async () => {
  const slots = new Semaphore(1);
  const held = await slots.acquire();
  const order: string[] = [];
  const later = slots.acquire().then((s) => (order.push("later"), s));
  const first = slots.acquire(undefined, { first: true }).then((s) => (order.push("first"), s));
  held[Symbol.dispose]();
  (await first)[Symbol.dispose]();
  (await later)[Symbol.dispose]();
  assert.deepEqual(order, ["first", "later"]);
});

Deno.test("LentSlot: free for others while its holder waits (nested waits too), held again after", async () => {
  const slots = new Semaphore(1);
  const lent = new LentSlot(slots, await slots.acquire());
  assert.equal(slots.free, 0);
  const result = await lent.whileWaiting(async () => {
    assert.equal(lent.held, false);
    using child = await slots.acquire(); // the holder's own child gets the slot
    void child;
    return await lent.whileWaiting(() => Promise.resolve("child result"));
  });
  assert.equal(result, "child result");
  assert.equal(lent.held, true);
  assert.equal(slots.free, 0);
  lent[Symbol.dispose]();
  assert.equal(slots.free, 1);
});

Deno.test("LentSlot: disposed while lent, it takes nothing back", async () => {
  const slots = new Semaphore(1);
  const lent = new LentSlot(slots, await slots.acquire());
  const wait = lent.whileWaiting(() => {
    lent[Symbol.dispose]();
    return Promise.resolve();
  });
  await wait;
  assert.equal(lent.held, false);
  assert.equal(slots.free, 1);
});
