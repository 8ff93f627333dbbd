import assert from "node:assert/strict";
import { FakeClock } from "../testing/fakes.ts";
import { FIXTURE_TIME, sidecarFixture } from "../testing/sidecar_fixtures.ts";
import { Heartbeat } from "./heartbeat.ts";
import { MemorySidecarStore } from "./memory_store.ts";
import type { SidecarChange } from "./store.ts";
import type { SidecarRecord } from "./schema.ts";

/** A memory store that counts update() calls. */
class CountingStore extends MemorySidecarStore {
  updates: string[] = [];

  override update(id: string, change: SidecarChange): Promise<SidecarRecord> {
    this.updates.push(id);
    return super.update(id, change);
  }
}

async function setup() {
  const clock = new FakeClock(FIXTURE_TIME);
  const store = new CountingStore({ clock });
  await store.save(sidecarFixture("agent-a"));
  await store.save(sidecarFixture("agent-b"));
  return { clock, store, heartbeat: new Heartbeat(store, { clock }) };
}

async function lastActive(store: MemorySidecarStore, id: string): Promise<number> {
  const loaded = await store.load(id);
  assert.ok(loaded !== null && "record" in loaded);
  return loaded.record.lastActiveAt;
}

Deno.test("heartbeat writes at most once per second per record", async () => {
  const { clock, store, heartbeat } = await setup();
  const beats: boolean[] = [];
  for (let i = 0; i < 25; i++) {
    beats.push(await heartbeat.beat("agent-a"));
    clock.advance(100);
  }
  // Writes at 0, 1000 and 2000 ms of the 2500 ms window.
  assert.deepEqual(beats.map((b, i) => b ? i : -1).filter((i) => i >= 0), [0, 10, 20]);
  assert.deepEqual(store.updates, ["agent-a", "agent-a", "agent-a"]);
  assert.equal(await lastActive(store, "agent-a"), FIXTURE_TIME + 2000);
});

Deno.test("heartbeat throttles each record on its own", async () => {
  const { clock, store, heartbeat } = await setup();
  assert.equal(await heartbeat.beat("agent-a"), true);
  clock.advance(500);
  assert.equal(await heartbeat.beat("agent-b"), true);
  assert.equal(await heartbeat.beat("agent-a"), false);
  clock.advance(500);
  assert.equal(await heartbeat.beat("agent-a"), true);
  assert.equal(await heartbeat.beat("agent-b"), false);
  assert.deepEqual(store.updates, ["agent-a", "agent-b", "agent-a"]);
  assert.equal(await lastActive(store, "agent-b"), FIXTURE_TIME + 500);
});

Deno.test("concurrent beats write once; forget() lets the next beat write at once", async () => {
  const { store, heartbeat } = await setup();
  const results = await Promise.all([
    heartbeat.beat("agent-a"),
    heartbeat.beat("agent-a"),
    heartbeat.beat("agent-a"),
  ]);
  assert.deepEqual(results, [true, false, false]);
  heartbeat.forget("agent-a");
  assert.equal(await heartbeat.beat("agent-a"), true);
  assert.equal(store.updates.length, 2);
});

Deno.test("a write made elsewhere (the creation) counts as a beat; an older one changes nothing", async () => {
  const { clock, store, heartbeat } = await setup();
  heartbeat.wrote("agent-a", clock.now());
  clock.advance(999);
  assert.equal(await heartbeat.beat("agent-a"), false, "within a second of the creation");
  clock.advance(1);
  assert.equal(await heartbeat.beat("agent-a"), true);
  heartbeat.wrote("agent-a", clock.now() - 5_000);
  clock.advance(500);
  assert.equal(await heartbeat.beat("agent-a"), false, "the older write did not reset the throttle");
  assert.deepEqual(store.updates, ["agent-a"]);
});

Deno.test("a beat for a missing record rejects", async () => {
  const { heartbeat } = await setup();
  await assert.rejects(heartbeat.beat("agent-missing"), { code: "session_not_found" });
});
