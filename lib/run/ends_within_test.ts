// pollWhileRunning: a record of another process re-read at each interval, or at once when its watch
// says it changed (a remote child's parent, lib/run/remote_child.ts); no sleeper left behind.

import assert from "node:assert/strict";
import { FakeClock } from "../testing/fakes.ts";
import { ChangeLatch } from "./change_latch.ts";
import { pollWhileRunning } from "./ends_within.ts";

const tick = () => new Promise((r) => setTimeout(r, 0));

Deno.test("pollWhileRunning: reads again at each interval until the record ends", async () => {
  const clock = new FakeClock(0);
  const states = ["running", "completed"];
  let reads = 0;
  const done = pollWhileRunning({ status: "running" }, () => Promise.resolve({ status: states[reads++]! }), {
    clock,
    timeoutMs: 0,
    intervalMs: 2_000,
  });
  for (let i = 0; i < 2; i++) {
    await tick();
    clock.advance(1_999);
    await tick();
    assert.equal(reads, i, "not before the interval");
    clock.advance(1);
  }
  assert.deepEqual(await done, { status: "completed" });
  assert.equal(clock.pendingSleepers, 0);
});

Deno.test("pollWhileRunning: a change woken by the watch is read at once, without waiting for the interval", async () => {
  const clock = new FakeClock(0);
  const changes = new ChangeLatch();
  let status = "running";
  let reads = 0;
  const done = pollWhileRunning({ status }, () => (reads++, Promise.resolve({ status })), {
    clock,
    timeoutMs: 0,
    intervalMs: 2_000,
    woken: (given) => changes.next(given),
  });
  await tick();
  changes.notify(); // some write that did not end it
  await tick();
  assert.equal(reads, 1);
  status = "completed";
  changes.notify();
  assert.deepEqual(await done, { status: "completed" });
  assert.equal(reads, 2);
  assert.equal(clock.now(), 0, "no time passed");
  assert.equal(clock.pendingSleepers, 0, "the interval's sleep is not left behind");
});

Deno.test("pollWhileRunning: an aborted wait returns the last record read", async () => {
  const clock = new FakeClock(0);
  const stop = new AbortController();
  const done = pollWhileRunning({ status: "running" }, () => Promise.resolve({ status: "running" }), {
    clock,
    timeoutMs: 0,
    signal: stop.signal,
    woken: () => new ChangeLatch().next(),
  });
  await tick();
  stop.abort();
  assert.deepEqual(await done, { status: "running" });
  assert.equal(clock.pendingSleepers, 0);
});

Deno.test("pollWhileRunning: a change that lands while the record is being read after an interval is not lost", async () => {
  const clock = new FakeClock(0);
  const changes = new ChangeLatch();
  let reads = 0;
  const reload = () => {
    reads++;
    if (reads === 1) changes.notify(); // written just after this read was answered
    return Promise.resolve({ status: reads === 1 ? "running" : "completed" });
  };
  const done = pollWhileRunning({ status: "running" }, reload, {
    clock,
    timeoutMs: 0,
    intervalMs: 2_000,
    woken: (given) => changes.next(given),
  });
  await tick();
  clock.advance(2_000); // the fallback interval passes first: the wait for a change is given up
  assert.deepEqual(await done, { status: "completed" });
  assert.equal(reads, 2);
  assert.equal(clock.now(), 2_000, "read again at once, not after another interval");
});
