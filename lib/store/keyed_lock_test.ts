import assert from "node:assert/strict";
import { KeyedLock } from "./keyed_lock.ts";

Deno.test("tasks of one key run one at a time, in order, even after a failure", async () => {
  const lock = new KeyedLock();
  const log: string[] = [];
  const task = (name: string, fail = false) => async () => {
    log.push(`start ${name}`);
    await new Promise((r) => setTimeout(r, 1));
    log.push(`end ${name}`);
    if (fail) throw new Error(name);
    return name;
  };
  const results = await Promise.allSettled([
    lock.run("k", task("a")),
    lock.run("k", task("b", true)),
    lock.run("k", task("c")),
  ]);
  assert.deepEqual(log, ["start a", "end a", "start b", "end b", "start c", "end c"]);
  assert.deepEqual(results.map((r) => r.status), ["fulfilled", "rejected", "fulfilled"]);
  await Promise.resolve();
  assert.equal(lock.activeKeys, 0);
});

Deno.test("different keys do not wait for each other", async () => {
  const lock = new KeyedLock();
  let release!: () => void;
  const blocked = lock.run("a", () => new Promise<void>((r) => (release = r)));
  assert.equal(await lock.run("b", () => Promise.resolve("free")), "free");
  release();
  await blocked;
});
