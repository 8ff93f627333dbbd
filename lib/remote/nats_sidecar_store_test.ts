// The store conformance suite (lib/testing/store_conformance.ts, unchanged) against the NATS store on
// a real nats-server: one JetStream node, then a 3-node cluster with R3 buckets; and one node of the
// cluster SIGKILLed while records are being updated, which must lose and double nothing.

import assert from "node:assert/strict";
import { storeConformance } from "../testing/store_conformance.ts";
import { FakeClock } from "../testing/fakes.ts";
import { realClock } from "../sys/clock.ts";
import { findNatsServer, type NatsCluster, startNats } from "../testing/nats_server.ts";
import { sidecarFixture } from "../testing/sidecar_fixtures.ts";
import { connectNats } from "./nats_link.ts";
import { keyOfId, RUNNING_KEYS, runningKeyOfId } from "./nats_keys.ts";
import { NatsSidecarStore } from "./nats_sidecar_store.ts";
import { parseStoreUrl } from "./store_url.ts";
import type { SidecarRecord } from "../store/schema.ts";

const binary = await findNatsServer();

if (binary === null) {
  Deno.test({
    name: "NATS store: skipped — nats-server is not installed (apt-get install -y nats-server)",
    ignore: true,
    fn() {},
  });
} else {
  const dir = await Deno.makeTempDir({ prefix: "blade-nats-store-" });
  const single = await startNats(binary, { size: 1, dir: `${dir}/single` });
  const cluster = await startNats(binary, { size: 3, dir: `${dir}/cluster` });
  let buckets = 0;

  const suite = (name: string, nats: NatsCluster, replicas: number) =>
    storeConformance(name, async (clock) => {
      const link = await connectNats(parseStoreUrl(nats.url));
      const bucket = await link.bucket(`conformance_${++buckets}`, { replicas });
      return {
        store: new NatsSidecarStore(bucket, { clock }),
        writeRaw: async (id: string, text: string) => void await bucket.put(keyOfId(id), text),
        [Symbol.asyncDispose]: () => link.close(),
      };
    });
  suite("NatsSidecarStore (one node)", single, 1);
  suite("NatsSidecarStore (3-node cluster, R3)", cluster, 3);

  Deno.test("NatsSidecarStore: records are redacted before they reach the servers", async () => {
    await using link = await connectNats(parseStoreUrl(single.url));
    const bucket = await link.bucket("redacted", { replicas: 1 });
    const secret = "sk-ant-api03-very-secret";
    const redact = (text: string) => text.replaceAll(secret, "[REDACTED]");
    const store = new NatsSidecarStore(bucket, { clock: new FakeClock(1), redact });
    await store.create(sidecarFixture("agent-r1", { prompt: `use ${secret}` }));
    await store.save(sidecarFixture("agent-r2", { prompt: `key ${secret}` }));
    const updated = await store.update("agent-r1", { description: `failed with ${secret}` });
    assert.equal(updated.description, "failed with [REDACTED]", "callers see the record as stored");
    const done = await store.markCompleted("agent-r2", {
      status: "completed",
      result: { success: true, message: `done, ${secret}` },
      completedAt: 2,
    });
    assert.equal(done.result?.message, "done, [REDACTED]");
    for (const id of ["agent-r1", "agent-r2"]) {
      const stored = await bucket.get(keyOfId(id));
      assert.ok(stored !== null && !stored.text.includes(secret) && stored.text.includes("[REDACTED]"));
    }
  });

  Deno.test("NatsSidecarStore: listRunning reads the running index, which follows every write", async () => {
    await using link = await connectNats(parseStoreUrl(single.url));
    const bucket = await link.bucket("running_index", { replicas: 1 });
    const store = new NatsSidecarStore(bucket, { clock: new FakeClock(1) });
    const markers = async () => (await bucket.keys(RUNNING_KEYS)).sort();
    await store.create(sidecarFixture("agent-i1"));
    await store.save(sidecarFixture("agent-i2"));
    await store.save(sidecarFixture("agent-i3", { status: "completed" }));
    assert.deepEqual(await markers(), [runningKeyOfId("agent-i1"), runningKeyOfId("agent-i2")]);
    // A record written running behind the store's back has no marker, so listRunning never reads it.
    await bucket.put(keyOfId("agent-unindexed"), JSON.stringify(sidecarFixture("agent-unindexed")));
    assert.deepEqual((await store.listRunning()).records.map((r) => r.id).sort(), ["agent-i1", "agent-i2"]);
    // The markers are not records.
    assert.equal((await store.listAll()).diagnostics.length, 0);
    await store.update("agent-i2", { status: "failed" });
    assert.deepEqual(await markers(), [runningKeyOfId("agent-i1")]);
    // A stale marker (its writer died between the terminal write and the unmark) is removed by a listing.
    await bucket.put(runningKeyOfId("agent-i3"), "");
    assert.deepEqual((await store.listRunning()).records.map((r) => r.id), ["agent-i1"]);
    assert.deepEqual(await markers(), [runningKeyOfId("agent-i1")]);
    // Back to running from a terminal state: marked again.
    await store.update("agent-i2", { status: "running" });
    assert.deepEqual(await markers(), [runningKeyOfId("agent-i1"), runningKeyOfId("agent-i2")]);
    await store.remove("agent-i1");
    assert.deepEqual(await markers(), [runningKeyOfId("agent-i2")]);
  });

  Deno.test("NatsSidecarStore: a cluster node SIGKILLed mid-run loses and doubles no update", async () => {
    const seed = Number(Deno.env.get("SEED") ?? Date.now() % 1000);
    // deno-lint-ignore no-console
    console.log(`seed ${seed} (SEED=${seed} repeats this run)`);
    await using link = await connectNats(parseStoreUrl(cluster.url));
    // A real clock: updates answered with a timeout while a leader is elected pause before they are
    // tried again (nats_retry.ts pauseAfter), and a fake clock's pauses would never end.
    const store = new NatsSidecarStore(await link.bucket("kill_node", { replicas: 3 }), {
      clock: realClock(),
    });
    const ids = Array.from({ length: 10 }, (_, i) => `agent-k${i}`);
    for (const id of ids) await store.save(sidecarFixture(id));
    const bump = (r: SidecarRecord) => ({ ...r, stats: { ...r.stats, toolCalls: r.stats.toolCalls + 1 } });
    const rounds = 20;
    let succeeded = 0;
    const victim = cluster.nodes[seed % 3]!;
    const writers = ids.map(async (id) => {
      for (let round = 0; round < rounds; round++) {
        await store.update(id, bump);
        succeeded++;
      }
    });
    // The kill lands while updates are in flight: after a quarter of them succeeded.
    while (succeeded < (ids.length * rounds) / 4) await new Promise((r) => setTimeout(r, 5));
    const atKill = succeeded;
    await victim.kill();
    await Promise.all(writers);
    assert.ok(atKill < ids.length * rounds, "the kill hit a live run");
    const counts = await Promise.all(ids.map(async (id) => {
      const loaded = await store.load(id);
      assert.ok(loaded !== null && "record" in loaded);
      return loaded.record.stats.toolCalls;
    }));
    const lost = counts.reduce((n, c) => n + Math.max(0, rounds - c), 0);
    const duplicated = counts.reduce((n, c) => n + Math.max(0, c - rounds), 0);
    // deno-lint-ignore no-console
    console.log(`killed ${victim.name} after ${atKill} updates: lost ${lost}, duplicated ${duplicated}`);
    assert.deepEqual({ lost, duplicated }, { lost: 0, duplicated: 0 });
    await victim.restart();
  });

  Deno.test("NATS store: stop the test servers", async () => {
    await single[Symbol.asyncDispose]();
    await cluster[Symbol.asyncDispose]();
    await Deno.remove(dir, { recursive: true });
  });
}
