import assert from "node:assert/strict";
import { FakeClock, FakeProcess, faultyFs, sequentialIds } from "./fakes.ts";
import { ownerLiveness } from "../store/liveness.ts";
import { realFs } from "../sys/fs.ts";

Deno.test("FakeClock wakes sleepers only when time passes their deadline", async () => {
  const clock = new FakeClock(1000);
  let woke = false;
  const sleeping = clock.sleep(500).then(() => (woke = true));
  clock.advance(499);
  await Promise.resolve();
  assert.equal(woke, false);
  clock.advance(1);
  await sleeping;
  assert.equal(woke, true);
  assert.equal(clock.now(), 1500);
});

Deno.test("sequentialIds gives 21-character ids in order", () => {
  const ids = sequentialIds();
  assert.equal(ids.random21(), "000000000000000000001");
  assert.equal(ids.random21().length, 21);
});

Deno.test("FakeProcess scripts liveness: a reused PID (other fingerprint) is dead, no PID is unknown", async () => {
  const p = new FakeProcess();
  const identity = { platform: "linux" as const, fingerprint: "a".repeat(64) };
  p.spawnFake(77, identity);
  assert.equal(await ownerLiveness(p, { processId: 77, processIdentity: identity }), "alive");
  p.spawnFake(77, { platform: "linux", fingerprint: "b".repeat(64) });
  assert.equal(await ownerLiveness(p, { processId: 77, processIdentity: identity }), "dead");
  p.exitFake(77);
  assert.equal(await ownerLiveness(p, { processId: 77, processIdentity: identity }), "dead");
  assert.equal(await ownerLiveness(p, {}), "unknown");
});

Deno.test("faultyFs fails the chosen atomic writes and leaves the old file intact", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const fs = faultyFs(realFs(), { writeAtomic: (path) => path.endsWith("b.json") });
    await fs.writeAtomic(`${dir}/a.json`, "one");
    await fs.writeAtomic(`${dir}/b.json`, "old").catch(() => {});
    await assert.rejects(fs.writeAtomic(`${dir}/b.json`, "new"), Deno.errors.PermissionDenied);
    assert.equal(await Deno.readTextFile(`${dir}/a.json`), "one");
    await assert.rejects(Deno.readTextFile(`${dir}/b.json`), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FakeClock timers fire when time passes them; repeating ones re-arm; cancel stops them", () => {
  const clock = new FakeClock(0);
  const fired: string[] = [];
  clock.timer(100, () => fired.push(`once@${clock.now()}`));
  const stop = clock.timer(40, () => fired.push(`tick@${clock.now()}`), { repeat: true });
  clock.advance(90);
  assert.deepEqual(fired, ["tick@90", "tick@90"]);
  clock.advance(10);
  assert.deepEqual(fired.slice(2), ["once@100"]);
  stop();
  clock.advance(1000);
  assert.equal(fired.length, 3);
  assert.equal(clock.pendingTimers, 0);
});
