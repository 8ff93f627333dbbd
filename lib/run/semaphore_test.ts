import assert from "node:assert/strict";
import { Semaphore } from "./semaphore.ts";

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
