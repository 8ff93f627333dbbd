// ChangeLatch: a change is never lost, and a burst of them wakes a waiter once.

import assert from "node:assert/strict";
import { ChangeLatch } from "./change_latch.ts";

/** Whether `p` has settled by the next macrotask. */
const settled = async (p: Promise<void>) =>
  await Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 0))]);

Deno.test("ChangeLatch: a change notified before the wait wakes the next wait at once, once", async () => {
  const latch = new ChangeLatch();
  latch.notify();
  latch.notify();
  assert.equal(await settled(latch.next()), true);
  assert.equal(await settled(latch.next()), false, "a burst counts once");
});

Deno.test("ChangeLatch: a waiter is woken by the next change, and only its own wait ends", async () => {
  const latch = new ChangeLatch();
  const waiting = latch.next();
  assert.equal(await settled(waiting), false);
  latch.notify();
  assert.equal(await settled(waiting), true);
  assert.equal(await settled(latch.next()), false, "the change was used by the waiter it woke");
});

Deno.test("ChangeLatch: a wait given up does not take the next change; the next wait gets it", async () => {
  const latch = new ChangeLatch();
  const givenUp = new AbortController();
  const stale = latch.next(givenUp.signal);
  givenUp.abort();
  latch.notify();
  assert.equal(await settled(stale), false, "nobody awaits it any more");
  assert.equal(await settled(latch.next()), true, "the change was kept");
});
