// The real clock's timer (a watchdog on Atomics.waitAsync, not the global setTimeout): it fires, it
// cancels, it repeats until stopped, and a pending one does not keep a process alive. Real time, kept
// to a few milliseconds; what waits on time elsewhere is tested with FakeClock.

import assert from "node:assert/strict";
import { realClock, watchdog } from "./clock.ts";

/**
 * Awaits `p` while a sleep keeps the event loop alive: a watchdog fires only while something else
 * does (what it watches: a request, a child), as an unref'd timer would.
 */
async function whileAlive<T>(p: Promise<T>): Promise<T> {
  const stop = new AbortController();
  const keep = realClock().sleep(5_000, stop.signal).catch(() => {});
  try {
    return await p;
  } finally {
    stop.abort();
    await keep;
  }
}

Deno.test("watchdog: fires once after its time, not before; a cancelled one never fires", async () => {
  const started = performance.now();
  const fired = Promise.withResolvers<number>();
  watchdog(20, () => fired.resolve(performance.now() - started));
  let cancelledFired = false;
  const cancel = watchdog(5, () => (cancelledFired = true));
  cancel();
  cancel(); // twice is harmless
  const after = await whileAlive(fired.promise);
  assert.ok(after >= 19, `fired after ${after} ms`);
  assert.equal(cancelledFired, false);
});

Deno.test("watchdog: zero (or negative) time fires from a microtask, not synchronously", async () => {
  const order: string[] = [];
  const done = Promise.withResolvers<void>();
  watchdog(0, () => order.push("zero"));
  watchdog(-5, () => {
    order.push("negative");
    done.resolve();
  });
  order.push("sync");
  await whileAlive(done.promise);
  assert.deepEqual(order, ["sync", "zero", "negative"]);
});

Deno.test("realClock().timer repeats until stopped, also when stopped from its own callback", async () => {
  const clock = realClock();
  let ticks = 0;
  const stopped = Promise.withResolvers<void>();
  const stop = clock.timer(2, () => {
    ticks++;
    if (ticks === 3) {
      stop();
      stopped.resolve();
    }
  }, { repeat: true });
  await whileAlive(stopped.promise);
  await realClock().sleep(10);
  assert.equal(ticks, 3);
});

Deno.test("a pending timer does not keep the process alive (the process ends at once)", async () => {
  const clock = new URL("./clock.ts", import.meta.url).href;
  const code = `import { realClock } from ${JSON.stringify(clock)};
realClock().timer(10_000, () => console.log("fired"));
realClock().timer(10_000, () => console.log("fired"), { repeat: true });`;
  const started = performance.now();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-config", code],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.equal(new TextDecoder().decode(out.stdout), "");
  assert.ok(performance.now() - started < 5_000, "the process waited for its timers");
});
