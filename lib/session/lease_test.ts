import assert from "node:assert/strict";
import {
  acquireLease,
  leasePath,
  leaseVerdict,
  parseLeaseFile,
  SessionLease,
  tryAcquireLease,
  underSessionGuard,
} from "./lease.ts";
import { FakeClock, FakeProcess } from "../testing/fakes.ts";
import { realFs } from "../sys/fs.ts";
import { storageLayout } from "../config/storage.ts";
import { BladeError } from "../errors.ts";

const HOLDER = { sessionId: "s", pid: 7, acquiredAt: 1 };

Deno.test("leaseVerdict: absent/corrupt/stale are taken, a live or unverifiable holder is not", () => {
  assert.deepEqual(leaseVerdict({ kind: "absent" }, "unknown"), { take: true, takeover: "none" });
  assert.deepEqual(leaseVerdict({ kind: "corrupt", reason: "x" }, "unknown"), {
    take: true,
    takeover: "corrupt",
  });
  assert.deepEqual(leaseVerdict({ kind: "held", holder: HOLDER }, "dead"), { take: true, takeover: "stale" });
  assert.deepEqual(leaseVerdict({ kind: "held", holder: HOLDER }, "alive"), { take: false, holder: HOLDER });
  assert.deepEqual(leaseVerdict({ kind: "held", holder: HOLDER }, "unknown"), {
    take: false,
    holder: HOLDER,
  });
});

Deno.test("parseLeaseFile never throws", () => {
  assert.deepEqual(parseLeaseFile(null), { kind: "absent" });
  assert.equal(parseLeaseFile("{").kind, "corrupt");
  assert.equal(parseLeaseFile("null").kind, "corrupt");
  assert.equal(parseLeaseFile(JSON.stringify({ ...HOLDER, pid: -1 })).kind, "corrupt");
  assert.deepEqual(parseLeaseFile(JSON.stringify(HOLDER)), { kind: "held", holder: HOLDER });
});

async function setup() {
  const root = await Deno.makeTempDir({ prefix: "blade-lease-" });
  const layout = storageLayout(root);
  return { root, layout, fs: realFs(), clock: new FakeClock() };
}

Deno.test("a lease file is 0600 under .locks/<sha256(id)>.lock with PID and identity; release removes it", async () => {
  const { root, layout, fs, clock } = await setup();
  try {
    const process = new FakeProcess({ pid: 4242 });
    const path = await leasePath(layout, "/proj", "session-1");
    assert.match(path, /\/projects\/-proj-[0-9a-f]{16}\/\.locks\/[0-9a-f]{64}\.lock$/);
    {
      await using lease = await acquireLease({ fs, process, clock, layout }, {
        projectPath: "/proj",
        sessionId: "session-1",
      });
      assert.equal(lease.path, path);
      const held = JSON.parse(await Deno.readTextFile(path));
      assert.deepEqual(held, {
        sessionId: "session-1",
        pid: 4242,
        identity: { platform: "linux", fingerprint: "f".repeat(64) },
        acquiredAt: clock.now(),
      });
      assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    }
    assert.equal(await fs.stat(path), null);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a live holder means hands off with a clear error; a dead or reused PID is taken over", async () => {
  const { root, layout, fs, clock } = await setup();
  try {
    const other = new FakeProcess({ pid: 100 });
    other.spawnFake(200, { platform: "linux", fingerprint: "b".repeat(64) });
    const me = new FakeProcess({ pid: 200 });
    me.spawnFake(100, { platform: "linux", fingerprint: "f".repeat(64) });
    const held = await acquireLease({ fs, process: other, clock, layout }, {
      projectPath: "/p",
      sessionId: "s1",
    });
    await assert.rejects(
      acquireLease({ fs, process: me, clock, layout }, { projectPath: "/p", sessionId: "s1" }),
      (e: unknown) =>
        e instanceof BladeError && e.code === "session_in_use" &&
        e.message === "session s1 is in use by process 100",
    );
    // The same process does not run one session twice either.
    const again = await tryAcquireLease({ fs, process: other, clock, layout }, {
      projectPath: "/p",
      sessionId: "s1",
    });
    assert.ok(!(again instanceof SessionLease));
    // PID reuse: 100 now answers with another start time → the lease is stale.
    me.spawnFake(100, { platform: "linux", fingerprint: "c".repeat(64) });
    const taken = await acquireLease({ fs, process: me, clock, layout }, {
      projectPath: "/p",
      sessionId: "s1",
    });
    assert.equal(taken.takeover, "stale");
    // The old holder's release does not remove the new holder's lease.
    await held.release();
    assert.ok(await fs.stat(taken.path) !== null);
    await taken.release();
    // A dead PID: taken over too.
    const dead = await acquireLease({ fs, process: other, clock, layout }, {
      projectPath: "/p",
      sessionId: "s2",
    });
    me.exitFake(100);
    const t2 = await acquireLease({ fs, process: me, clock, layout }, { projectPath: "/p", sessionId: "s2" });
    assert.equal(t2.takeover, "stale");
    await t2.release();
    void dead;
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a corrupt lease file is taken over", async () => {
  const { root, layout, fs, clock } = await setup();
  try {
    const path = await leasePath(layout, "/p", "s");
    await fs.ensureDir(layout.locksDir("/p"));
    await Deno.writeTextFile(path, "{torn");
    const lease = await acquireLease({ fs, process: new FakeProcess(), clock, layout }, {
      projectPath: "/p",
      sessionId: "s",
    });
    assert.equal(lease.takeover, "corrupt");
    await lease.release();
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

/** Another process (PID 100, which this one sees alive with its fingerprint) and this one (PID 200). */
function twoProcesses() {
  const other = new FakeProcess({ pid: 100 });
  const me = new FakeProcess({ pid: 200 });
  me.spawnFake(100, { platform: "linux", fingerprint: "f".repeat(64) });
  return { other, me, o: { projectPath: "/p", sessionId: "s1" } };
}

Deno.test("underSessionGuard: runs the work with no lease file; a live holder is hands off; a stale lease goes", async () => {
  const { root, layout, fs, clock } = await setup();
  try {
    const { other, me, o } = twoProcesses();
    const path = await leasePath(layout, "/p", "s1");
    // No locks folder yet: it is made on first use.
    assert.deepEqual(
      await underSessionGuard({ fs, process: me, clock, layout }, o, () => Promise.resolve(1)),
      {
        done: 1,
      },
    );
    assert.equal(await fs.stat(path), null, "no lease file was written");
    const held = await acquireLease({ fs, process: other, clock, layout }, o);
    let ran = false;
    const busy = await underSessionGuard(
      { fs, process: me, clock, layout },
      o,
      () => Promise.resolve(ran = true),
    );
    assert.deepEqual([busy, ran], [{ busy: held.holder }, false]);
    me.exitFake(100); // the holder died: its lease is stale, removed before the work runs
    const done = await underSessionGuard(
      { fs, process: me, clock, layout },
      o,
      async () => await fs.stat(path),
    );
    assert.deepEqual(done, { done: null });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("identity later: the PID alone keeps the lease; identify() adds the identity, then a reused PID is taken over", async () => {
  const { root, layout, fs, clock } = await setup();
  try {
    const { other, me, o } = twoProcesses();
    const held = await acquireLease({ fs, process: other, clock, layout }, o, { identity: "later" });
    assert.deepEqual(JSON.parse(await Deno.readTextFile(held.path)), {
      sessionId: "s1",
      pid: 100,
      acquiredAt: clock.now(),
    });
    // A live PID without an identity to check is a live holder.
    assert.ok(!(await tryAcquireLease({ fs, process: me, clock, layout }, o) instanceof SessionLease));
    // So is a reused one (nothing to tell them apart): busy, never wrongly free.
    me.spawnFake(100, { platform: "linux", fingerprint: "c".repeat(64) });
    assert.ok(!(await tryAcquireLease({ fs, process: me, clock, layout }, o) instanceof SessionLease));

    await held.identify();
    const named = JSON.parse(await Deno.readTextFile(held.path));
    assert.deepEqual(named.identity, { platform: "linux", fingerprint: "f".repeat(64) });
    assert.equal((await Deno.stat(held.path)).mode! & 0o777, 0o600);
    const dir = held.path.slice(0, held.path.lastIndexOf("/"));
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), [held.path.slice(dir.length + 1)]);
    // With it, the reused PID (another start time) no longer holds the lease.
    const taken = await acquireLease({ fs, process: me, clock, layout }, o);
    assert.equal(taken.takeover, "stale");
    // The old holder's identify() and release() leave the new holder's lease alone.
    await held.identify();
    await held.release();
    assert.deepEqual(JSON.parse(await Deno.readTextFile(taken.path)).pid, 200);
    await taken.release();

    // identify() after release writes nothing.
    const gone = await acquireLease({ fs, process: other, clock, layout }, o, { identity: "later" });
    await gone.release();
    await gone.identify();
    assert.equal(await fs.stat(gone.path), null);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
