import assert from "node:assert/strict";
import { allInOrder, forEachBounded, whileAllHeld } from "./concurrency.ts";

Deno.test("forEachBounded: every index once, never more than the limit at once", async () => {
  const seen: number[] = [];
  let running = 0;
  let most = 0;
  await forEachBounded(50, 4, async (i) => {
    running++;
    most = Math.max(most, running);
    await Promise.resolve();
    seen.push(i);
    running--;
  });
  assert.deepEqual([...seen].sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i));
  assert.equal(most, 4);
  await forEachBounded(0, 4, () => Promise.reject(new Error("never called")));
});

Deno.test("forEachBounded: a failure rejects", async () => {
  await assert.rejects(
    forEachBounded(3, 2, (i) => i === 1 ? Promise.reject(new Error("boom")) : Promise.resolve()),
    /boom/,
  );
});

Deno.test("whileAllHeld: inner runs with every entered hold held; busy and failed holds are left out", async () => {
  const holding = new Set<string>();
  const log: string[] = [];
  const hold = async (key: string, fn: () => Promise<void>): Promise<string> => {
    if (key === "busy") return "busy";
    if (key === "broken") throw new Error("cannot lock broken");
    holding.add(key);
    try {
      await fn();
    } finally {
      holding.delete(key);
      log.push(`released ${key}`);
    }
    return "done";
  };
  const outcomes = await whileAllHeld(["a", "busy", "b", "broken", "c"], hold, async (entered) => {
    assert.deepEqual([...entered].sort(), ["a", "b", "c"]);
    assert.deepEqual([...holding].sort(), ["a", "b", "c"], "all held at once");
    await Promise.resolve();
    log.push("inner");
  });
  assert.equal(log[0], "inner", "nothing released before inner ended");
  assert.equal(holding.size, 0);
  assert.deepEqual(outcomes.map((o) => o.status === "fulfilled" ? o.value : "rejected"), [
    "done",
    "busy",
    "done",
    "rejected",
    "done",
  ]);
});

Deno.test("whileAllHeld: a failing inner still releases every hold; with no keys inner still runs", async () => {
  let held = 0;
  const hold = async (_k: number, fn: () => Promise<void>) => {
    held++;
    try {
      await fn();
    } finally {
      held--;
    }
  };
  await assert.rejects(
    whileAllHeld([1, 2], hold, () => Promise.reject(new Error("inner failed"))),
    /inner failed/,
  );
  assert.equal(held, 0);
  let ran = false;
  await whileAllHeld([], hold, (entered) => {
    ran = entered.length === 0;
    return Promise.resolve();
  });
  assert.ok(ran);
});

Deno.test("whileAllHeld: with a limit, at most that many holds are being taken at once; all end up held", async () => {
  let taking = 0;
  let most = 0;
  let held = 0;
  let atInner = 0;
  const hold = async (_k: number, fn: () => Promise<void>) => {
    taking++;
    most = Math.max(most, taking);
    await new Promise((r) => setTimeout(r, 1));
    taking--;
    held++;
    await fn();
    held--;
  };
  await whileAllHeld(Array.from({ length: 20 }, (_, i) => i), hold, () => {
    atInner = held;
    return Promise.resolve();
  }, { limit: 3 });
  assert.equal(most, 3);
  assert.equal(atInner, 20);
  assert.equal(held, 0);
});

Deno.test("allInOrder: values in order; the first failure in order, not in time", async () => {
  assert.deepEqual(await allInOrder([Promise.resolve(1), Promise.resolve("two")]), [1, "two"]);
  let lateFail = () => {};
  const late = new Promise<number>((_, reject) => (lateFail = () => reject(new Error("first in order"))));
  const early = Promise.reject(new Error("first in time"));
  const both = allInOrder([late, early]);
  lateFail();
  await assert.rejects(both, /first in order/);
});
