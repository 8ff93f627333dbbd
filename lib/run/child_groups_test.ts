// The main thread kills only process groups a Worker child reported and that are really ours
// (childGroups in child_host.ts): a hostile child cannot make it signal anything else.

import assert from "node:assert/strict";
import { FakeProcess } from "../testing/fakes.ts";
import { childGroups } from "./child_host.ts";
import type { RecordedGroup } from "../store/schema.ts";

const IDENTITY = { platform: "linux" as const, fingerprint: "c".repeat(64) };

/** The groups childGroups recorded, as a sidecar would hold them. */
function recorder() {
  const recorded: RecordedGroup[] = [];
  return { recorded, record: (g: RecordedGroup) => Promise.resolve(void recorded.push(g)) };
}

Deno.test("childGroups kills a group the child reported and that leads its own group", async () => {
  const process = new FakeProcess();
  process.spawnFake(5001, IDENTITY);
  const r = recorder();
  const groups = childGroups(process, new AbortController().signal, r.record);
  assert.equal(await groups.started(5001), true);
  assert.deepEqual(r.recorded, [{ pgid: 5001, identity: IDENTITY }]);
  // One read of the process answers both questions: ours, and its identity.
  assert.deepEqual([process.groupLeaderReads, process.identityReads], [[5001], []]);
  assert.equal(await groups.kill(5001), true);
  assert.deepEqual(process.killedGroups, [5001]);
});

Deno.test("childGroups refuses a pgid the child never reported", async () => {
  const process = new FakeProcess();
  process.spawnFake(5001, IDENTITY);
  const groups = childGroups(process, new AbortController().signal, recorder().record);
  await assert.rejects(groups.kill(5001), /refused to kill process group 5001: this child did not start it/);
  assert.deepEqual(process.killedGroups, []);
});

Deno.test("childGroups refuses a reported pgid that is not a group this process started", async () => {
  const process = new FakeProcess(); // 6000 is no child of ours
  const r = recorder();
  const groups = childGroups(process, new AbortController().signal, r.record);
  await assert.rejects(groups.started(6000), /process group 6000 is not a process this child started/);
  await assert.rejects(groups.kill(6000), /refused to kill process group 6000/);
  assert.deepEqual([process.killedGroups, r.recorded], [[], []]);
});

Deno.test("childGroups kills every reported group of its own when the run is cancelled", async () => {
  const process = new FakeProcess();
  process.spawnFake(5001, IDENTITY);
  process.spawnFake(5002, IDENTITY);
  const run = new AbortController();
  const groups = childGroups(process, run.signal, recorder().record);
  await groups.started(5001);
  await groups.started(5002);
  await assert.rejects(groups.started(6000)); // not ours: never killed
  run.abort();
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(process.killedGroups.toSorted(), [5001, 5002]);
});

Deno.test("childGroups: a group is reported started only once it is recorded; a failed record refuses it", async () => {
  const process = new FakeProcess();
  process.spawnFake(5001, IDENTITY);
  process.spawnFake(5002, null); // alive, identity unreadable: cannot be recorded safely
  process.spawnFake(5003, IDENTITY);
  const pending = Promise.withResolvers<void>();
  let calls = 0;
  const groups = childGroups(process, new AbortController().signal, (g) => {
    calls++;
    if (g.pgid === 5003) return Promise.reject(new Error("disk full"));
    return pending.promise;
  });
  let resolved = false;
  const started = groups.started(5001).then(() => (resolved = true));
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(resolved, false, "started waits for the durable record");
  pending.resolve();
  await started;
  await assert.rejects(
    groups.started(5002),
    /process group 5002 is not a process this child started \(or its identity cannot be read\)/,
  );
  await assert.rejects(groups.started(5003), /disk full/);
  assert.equal(calls, 2);
});
