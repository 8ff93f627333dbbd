// Session leases in the NATS store on a real nats-server: the pure verdict table; one winner when two
// take at once; an unexpired holder keeps it; an expired one is taken over and its old holder's renewal
// fails (fenced by revision); a holder stopped past its expiry counts itself lost even if nobody took it;
// renewals that overlap are one renewal, never two CAS writes racing each other for the same lease.

import assert from "node:assert/strict";
import { FakeClock } from "../testing/fakes.ts";
import { findNatsServer, startNats } from "../testing/nats_server.ts";
import { connectNats } from "./nats_link.ts";
import { LEASE_TTL_MS, NatsLease, NatsLeases, natsLeaseVerdict, parseLeaseEntry } from "./nats_lease.ts";
import { parseStoreUrl } from "./store_url.ts";

Deno.test("natsLeaseVerdict: absent, corrupt and expired are taken; unexpired is busy", () => {
  const held = (expiresAt: number) =>
    parseLeaseEntry(JSON.stringify({ sessionId: "s", pid: 1, acquiredAt: 0, machine: "m", expiresAt }));
  assert.deepEqual(natsLeaseVerdict(parseLeaseEntry(null), 5), { take: true, takeover: "none" });
  assert.deepEqual(natsLeaseVerdict(parseLeaseEntry("{"), 5), { take: true, takeover: "corrupt" });
  assert.deepEqual(natsLeaseVerdict(parseLeaseEntry('{"pid":1}'), 5), { take: true, takeover: "corrupt" });
  assert.deepEqual(natsLeaseVerdict(held(5), 5), { take: true, takeover: "stale" });
  assert.equal(natsLeaseVerdict(held(6), 5).take, false);
  assert.equal(LEASE_TTL_MS, 30_000);
});

const binary = await findNatsServer();

if (binary === null) {
  Deno.test({
    name: "NATS leases: skipped — nats-server is not installed (apt-get install -y nats-server)",
    ignore: true,
    fn() {},
  });
} else {
  Deno.test("NATS leases: one winner, renewal by CAS, takeover after expiry fences the old holder", async () => {
    const dir = await Deno.makeTempDir({ prefix: "blade-nats-lease-" });
    await using nats = await startNats(binary, { size: 1, dir });
    await using link = await connectNats(parseStoreUrl(nats.url));
    const bucket = await link.bucket("leases_test", { replicas: 1 });
    const clock = new FakeClock(1_000);
    const a = new NatsLeases(bucket, { clock, machine: "worker-a", ttlMs: 10_000 });
    const b = new NatsLeases(bucket, { clock, machine: "worker-b", ttlMs: 10_000 });

    // Two take at once: exactly one wins, the other is told who holds it.
    const raced = await Promise.all([
      a.tryAcquire("agent-r", { pid: 11 }),
      b.tryAcquire("agent-r", { pid: 22 }),
    ]);
    const winners = raced.filter((r) => r instanceof NatsLease);
    assert.equal(winners.length, 1);
    const busy = raced.find((r) => !(r instanceof NatsLease)) as { busy: { machine: string } };
    assert.equal(busy.busy.machine, (winners[0] as NatsLease).holder.machine, "busy names the winner");

    const first = await a.tryAcquire("agent-x", { pid: 11 });
    assert.ok(first instanceof NatsLease && first.takeover === "none");
    clock.advance(5_000);
    assert.equal(await first.renew(), true, "renewed within its time");
    clock.advance(9_000);
    assert.ok(first.held(), "the renewal moved its expiry");
    assert.ok(!((await b.tryAcquire("agent-x", { pid: 22 })) instanceof NatsLease), "unexpired: busy");

    // The holder is cut off past its expiry; another takes it over. The old holder cannot renew.
    clock.advance(2_000);
    const second = await b.tryAcquire("agent-x", { pid: 22 });
    assert.ok(second instanceof NatsLease && second.takeover === "stale");
    assert.equal(first.held(), false);
    assert.equal(await first.renew(), false, "fenced: its revision is gone");
    await first.release();
    assert.equal(await second.renew(), true, "the old holder's release left the new lease alone");

    // Stopped past its expiry with nobody taking over: it still counts itself lost and stops.
    clock.advance(10_001);
    assert.equal(await second.renew(), false);
    const third = await a.tryAcquire("agent-x", { pid: 33 });
    assert.ok(third instanceof NatsLease);
    await third.release();
    assert.equal(await bucket.get("agent-x"), null, "released");
    await Deno.remove(dir, { recursive: true });
  });

  Deno.test("NATS leases: renewals that overlap (slow answers while a leader is elected) keep the lease", async () => {
    const dir = await Deno.makeTempDir({ prefix: "blade-nats-lease-" });
    await using nats = await startNats(binary, { size: 1, dir });
    await using link = await connectNats(parseStoreUrl(nats.url));
    const bucket = await link.bucket("leases_overlap", { replicas: 1 });
    const clock = new FakeClock(1_000);
    const leases = new NatsLeases(bucket, { clock, machine: "worker-a", ttlMs: 10_000 });
    const lease = await leases.tryAcquire("agent-o", { pid: 11 });
    assert.ok(lease instanceof NatsLease);
    // A worker's renewal timer fires again before the last renewal was answered: both ask at once.
    // Sent as two CAS writes on the same revision, the second would lose to the first and count the
    // lease as taken by someone else (the run stopped, its work thrown away).
    clock.advance(3_000);
    assert.deepEqual(await Promise.all([lease.renew(), lease.renew(), lease.renew()]), [true, true, true]);
    assert.ok(lease.held());
    clock.advance(3_000);
    assert.equal(await lease.renew(), true, "the next renewal still holds it");
    assert.equal(JSON.parse((await bucket.get("agent-o"))!.text).expiresAt, clock.now() + 10_000);
    await lease.release();
    await Deno.remove(dir, { recursive: true });
  });
}
