// The pure part of lib/remote/nats_retry.ts: which errors leave a write's outcome unknown, which ones a
// cluster that is forming answers, and how opening tries again until its time is up. (The NATS packages
// reach nats_link.ts through importNpm, lib/npm_module.ts, which finds a CommonJS package's exports on a
// bundle's `default` too: without that `--store` failed in the bundles with "connect is not a function".)

import assert from "node:assert/strict";
import { BladeError } from "../errors.ts";
import type { Clock } from "../sys/clock.ts";
import { exists, isTransient, opening, openOrCreate, pauseAfter, retried, within } from "./nats_retry.ts";
import { FakeClock } from "../testing/fakes.ts";

const named = (name: string, message: string) => Object.assign(new Error(message), { name });
const apiError = (code: number, message: string) =>
  Object.assign(new Error(message), { name: "JetStreamApiError", apiError: () => ({ err_code: code }) });

/** A clock whose sleeps pass at once (and count): retries are driven without waiting. */
function instantClock(): Clock & { slept: number[] } {
  let now = 1_000;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: (ms) => {
      slept.push(ms);
      now += ms;
      return Promise.resolve();
    },
    timer: () => () => {},
  };
}

Deno.test("isTransient: timeouts, no responders and a JetStream not ready yet leave the outcome unknown; a CAS loss does not", () => {
  assert.equal(isTransient(named("TimeoutError", "timeout")), true);
  assert.equal(isTransient(new Error("503 no responders available")), true);
  // What the client makes of a JetStream request nobody answered (servers just started).
  assert.equal(isTransient(named("JetStreamNotEnabled", "jetstream is not enabled")), true);
  assert.equal(isTransient(apiError(10008, "JetStream system temporarily unavailable")), true);
  assert.equal(isTransient(new Error("wrong last sequence: 4")), false);
  assert.equal(isTransient("timeout"), false);
});

Deno.test("retried: tries a transient failure again after a growing pause, 12 times at most; others at once", async () => {
  const clock = instantClock();
  let calls = 0;
  assert.equal(
    await retried(
      clock,
      () => ++calls < 3 ? Promise.reject(named("TimeoutError", "timeout")) : Promise.resolve("ok"),
    ),
    "ok",
  );
  assert.deepEqual(clock.slept, [100, 200]);
  calls = 0;
  await assert.rejects(
    retried(clock, () => (calls++, Promise.reject(named("TimeoutError", "timeout")))),
    /timeout/,
  );
  assert.equal(calls, 12);
  calls = 0;
  await assert.rejects(
    retried(clock, () => (calls++, Promise.reject(new Error("bad request")))),
    /bad request/,
  );
  assert.equal(calls, 1);
});

Deno.test("opening: tried again while the cluster settles, for at most its time, then store_unavailable naming what", async () => {
  const clock = instantClock();
  const answers = [
    named("JetStreamNotEnabled", "jetstream is not enabled"),
    apiError(10005, "no suitable peers for placement"),
    apiError(10023, "insufficient resources"),
    named("TimeoutError", "timeout"),
  ];
  let calls = 0;
  const open = () => calls < answers.length ? Promise.reject(answers[calls++]) : Promise.resolve("opened");
  assert.equal(await opening({ clock, openWithinMs: 30_000 }, { what: "the bucket b", open }), "opened");
  assert.equal(calls, 4);

  const never = () => Promise.reject(named("JetStreamNotEnabled", "jetstream is not enabled"));
  const failed = await opening({ clock, openWithinMs: 5_000 }, { what: "the bucket b", open: never })
    .then(() => null, (e: unknown) => e);
  assert.ok(failed instanceof BladeError);
  assert.equal(failed.code, "store_unavailable");
  assert.equal(
    failed.message,
    "Could not open the bucket b in the NATS store within 5 s: jetstream is not enabled",
  );
  // Anything else (a refused configuration, a permission) is the caller's at once.
  let tries = 0;
  const refused = () => (tries++, Promise.reject(apiError(10058, "stream name already in use")));
  await assert.rejects(
    opening({ clock, openWithinMs: 30_000 }, { what: "s", open: refused }),
    /already in use/,
  );
  assert.equal(tries, 1);
});

Deno.test("exists: only not found is no; any other failure is thrown, never taken for absence", async () => {
  assert.equal(await exists(() => Promise.resolve({})), true);
  assert.equal(await exists(() => Promise.reject(apiError(10059, "stream not found"))), false);
  assert.equal(await exists(() => Promise.reject(apiError(10014, "consumer not found"))), false);
  await assert.rejects(exists(() => Promise.reject(named("TimeoutError", "timeout"))), /timeout/);
});

Deno.test("openOrCreate: opens what exists; a create lost to another creator opens theirs; a real refusal is thrown", async () => {
  const made: string[] = [];
  const opened = await openOrCreate({
    exists: () => Promise.resolve(true),
    open: () => Promise.resolve("theirs"),
    create: () => (made.push("x"), Promise.resolve("mine")),
  });
  assert.deepEqual([opened, made], ["theirs", []]);
  let there = false;
  const raced = await openOrCreate({
    exists: () => Promise.resolve(there),
    open: () => Promise.resolve("theirs"),
    create: () => (there = true, Promise.reject(new Error("stream name already in use"))),
  });
  assert.equal(raced, "theirs");
  await assert.rejects(
    openOrCreate({
      exists: () => Promise.resolve(false),
      open: () => Promise.resolve("none"),
      create: () => Promise.reject(new Error("insufficient storage")),
    }),
    /insufficient storage/,
  );
});

Deno.test("within: a call the servers never settle fails as a transient timeout at its bound; a settled one passes", async () => {
  const clock = new FakeClock(0);
  // A pull from a consumer whose leader moved: nothing ever answers it.
  const never = within(() => new Promise<string>(() => {}), {
    clock,
    ms: 11_000,
    what: "a pull from the work queue",
  });
  const outcome = never.then(() => "settled", (e: Error) => e);
  clock.advance(10_999);
  await Promise.resolve();
  clock.advance(1);
  const error = await outcome;
  assert.ok(error instanceof Error);
  assert.match(error.message, /a pull from the work queue: no answer within 11 s/);
  assert.equal(isTransient(error), true, "tried again like any timeout");
  const o = { clock, ms: 5_000, what: "x" };
  assert.equal(await within(() => Promise.resolve("ok"), o), "ok");
  await assert.rejects(within(() => Promise.reject(new Error("bad")), o), /bad/);
});

Deno.test("pauseAfter: a write loop's tries after transient failures pause 100 ms doubling to 1 s", async () => {
  const clock = instantClock();
  for (let attempt = 1; attempt <= 6; attempt++) await pauseAfter(clock, attempt);
  assert.deepEqual(clock.slept, [100, 200, 400, 800, 1000, 1000]);
});
