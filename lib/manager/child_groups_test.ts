// The main thread kills only process groups a Worker child reported and that are really ours
// (childGroups in child_host.ts): a hostile child cannot make it signal anything else.

import assert from "node:assert/strict";
import { FakeProcess } from "../testing/fakes.ts";
import { childGroups } from "./child_host.ts";

Deno.test("childGroups kills a group the child reported and that leads its own group", async () => {
  const process = new FakeProcess();
  process.spawnFake(5001, null);
  const groups = childGroups(process, new AbortController().signal);
  assert.equal(await groups.started(5001), true);
  assert.equal(await groups.kill(5001), true);
  assert.deepEqual(process.killedGroups, [5001]);
});

Deno.test("childGroups refuses a pgid the child never reported", async () => {
  const process = new FakeProcess();
  process.spawnFake(5001, null);
  const groups = childGroups(process, new AbortController().signal);
  await assert.rejects(groups.kill(5001), /refused to kill process group 5001: this child did not start it/);
  assert.deepEqual(process.killedGroups, []);
});

Deno.test("childGroups refuses a reported pgid that is not a group this process started", async () => {
  const process = new FakeProcess(); // 6000 is no child of ours
  const groups = childGroups(process, new AbortController().signal);
  assert.equal(await groups.started(6000), false);
  await assert.rejects(groups.kill(6000), /refused to kill process group 6000/);
  assert.deepEqual(process.killedGroups, []);
});

Deno.test("childGroups kills every reported group of its own when the run is cancelled", async () => {
  const process = new FakeProcess();
  process.spawnFake(5001, null);
  process.spawnFake(5002, null);
  const run = new AbortController();
  const groups = childGroups(process, run.signal);
  await groups.started(5001);
  await groups.started(5002);
  await groups.started(6000); // not ours: never killed
  run.abort();
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(process.killedGroups.toSorted(), [5001, 5002]);
});
