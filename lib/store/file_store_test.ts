import assert from "node:assert/strict";
import { realFs } from "../sys/fs.ts";
import { FakeClock } from "../testing/fakes.ts";
import { FIXTURE_TIME, sidecarFixture } from "../testing/sidecar_fixtures.ts";
import { storeConformance } from "../testing/store_conformance.ts";
import { FileSidecarStore } from "./file_store.ts";
import { FaultFs } from "../testing/fault_fs.ts";
import { lockTableReadable, lockWaiter } from "../testing/lock_waiters.ts";
import type { SidecarRecord } from "./schema.ts";
import { stagingDir } from "./group_commit.ts";

/** Names ending in one of `endings` beside the records or in the group commit's staging folder. */
function leftBehind(store: FileSidecarStore, endings: readonly string[]): string[] {
  return [...Deno.readDirSync(store.sessionsDir), ...Deno.readDirSync(stagingDir(store.sessionsDir))]
    .map((e) => e.name).filter((n) => endings.some((end) => n.endsWith(end)));
}

storeConformance("FileSidecarStore", async (clock) => {
  const storageRoot = `${await Deno.makeTempDir({ prefix: "blade-store-" })}/root`;
  const store = new FileSidecarStore({ fs: realFs(), clock, storageRoot });
  return {
    store,
    async writeRaw(id: string, text: string) {
      await Deno.mkdir(store.sessionsDir, { recursive: true });
      await Deno.writeTextFile(store.pathOf(id), text);
    },
    files: { storageRoot, sessionsDir: store.sessionsDir },
    cache: { size: () => store.cacheSize, has: (id: string) => store.isCached(id) },
    [Symbol.asyncDispose]: () => Deno.remove(storageRoot.slice(0, -"/root".length), { recursive: true }),
  };
});

Deno.test("FileSidecarStore: a cached record rewritten by another process is re-read", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-store-" });
  try {
    const clock = new FakeClock(FIXTURE_TIME);
    const mine = new FileSidecarStore({ fs: realFs(), clock, storageRoot: dir });
    const theirs = new FileSidecarStore({ fs: realFs(), clock, storageRoot: dir });
    await mine.save(sidecarFixture("agent-shared"));
    assert.equal(mine.isCached("agent-shared"), true);
    clock.advance(1000);
    const cancelled = await theirs.markCompleted("agent-shared", {
      status: "cancelled",
      result: { success: false, message: "Stopped from another terminal" },
      completedAt: clock.now(),
    });
    assert.deepEqual(await mine.load("agent-shared"), { record: cancelled, legacy: false });
    await theirs.remove("agent-shared");
    assert.equal(await mine.load("agent-shared"), null);
    assert.equal(mine.isCached("agent-shared"), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// The two store instances below stand for two processes: each takes the cross-process (flock) locks.
// A held write waits until the other party is blocked on the lock (the kernel's lock table says so,
// lib/testing/lock_waiters.ts), or has finished: then nothing made it wait, and the held write, made from
// what was read before, overwrites it. Never a sleep that hopes the other got there.
Deno.test({
  name: "FileSidecarStore: a heartbeat from one process never overwrites another's cancel",
  ignore: !lockTableReadable(),
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-store-" });
  try {
    const clock = new FakeClock(FIXTURE_TIME);
    const base = realFs();
    // The owner's write is held back after it has read the record: the window in which another
    // process's cancel would be lost without a cross-process lock.
    const aboutToWrite = Promise.withResolvers<void>();
    const release = Promise.withResolvers<void>();
    let hold = false;
    const heldFs = {
      ...base,
      async writeAtomic(path: string, text: string, options?: Parameters<typeof base.writeAtomic>[2]) {
        if (hold) {
          hold = false;
          aboutToWrite.resolve();
          await release.promise;
        }
        return await base.writeAtomic(path, text, options);
      },
    };
    const owner = new FileSidecarStore({ fs: heldFs, clock, storageRoot: dir });
    const canceller = new FileSidecarStore({ fs: base, clock, storageRoot: dir });
    await owner.save(sidecarFixture("agent-raced"));
    hold = true;
    const beat = owner.update("agent-raced", {});
    await aboutToWrite.promise;
    const cancel = canceller.markCompleted("agent-raced", {
      status: "cancelled",
      result: { success: false, message: "", error: "Cancelled with blade tasks cancel." },
      completedAt: clock.now(),
    });
    assert.equal(await lockWaiter(`${owner.sessionsDir}/.agent-raced.lock`, { until: cancel }), "waiting");
    release.resolve();
    await Promise.all([beat, cancel]);
    const after = await new FileSidecarStore({ fs: base, clock, storageRoot: dir }).load("agent-raced");
    assert.ok(after !== null && "record" in after);
    assert.equal(after.record.status, "cancelled");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FileSidecarStore.updateMany: what a killed group commit left staged is removed by the next one, under its lock", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-store-" });
  try {
    const clock = new FakeClock(FIXTURE_TIME);
    const store = new FileSidecarStore({ fs: realFs(), clock, storageRoot: dir });
    await store.save(sidecarFixture("agent-s1"));
    const staging = stagingDir(store.sessionsDir);
    await Deno.mkdir(staging, { recursive: true });
    // A temp file as a group commit killed between its fsyncs and its renames leaves it.
    const leftover = `${staging}/.agent-s0.json.1234-5678.tmp`;
    await Deno.writeTextFile(leftover, JSON.stringify(sidecarFixture("agent-s0")));
    const done = (r: SidecarRecord) => ({ ...r, status: "failed" as const });
    const [out] = await store.updateMany([{ id: "agent-s1", change: done }]);
    assert.ok(out !== undefined && "record" in out && out.record.status === "failed");
    assert.deepEqual([...Deno.readDirSync(staging)].map((e) => e.name), []);
    assert.equal(await store.load("agent-s0"), null, "a leftover never becomes a record");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FileSidecarStore.updateMany: a failed rename keeps that record whole and old; a failed folder fsync fails them all", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-store-" });
  try {
    const clock = new FakeClock(FIXTURE_TIME);
    const faults = new FaultFs(realFs());
    const store = new FileSidecarStore({ fs: faults.fs, clock, storageRoot: dir });
    const ids = ["agent-r1", "agent-r2", "agent-r3"];
    for (const id of ids) await store.save(sidecarFixture(id));
    const before = await Deno.readTextFile(store.pathOf("agent-r2"));
    faults.arm({ op: "rename", path: (p) => p.endsWith("/agent-r2.json"), code: "EROFS" });
    const done = (r: SidecarRecord) => ({ ...r, status: "failed" as const });
    const outcomes = await store.updateMany(ids.map((id) => ({ id, change: done })));
    assert.deepEqual(outcomes.map((o) => "error" in o ? "error" : o.record.status), [
      "failed",
      "error",
      "failed",
    ]);
    assert.equal(
      await Deno.readTextFile(store.pathOf("agent-r2")),
      before,
      "the record whose rename failed is old",
    );
    const fresh = new FileSidecarStore({ fs: realFs(), clock, storageRoot: dir });
    const statuses = async () =>
      await Promise.all(ids.map(async (id) => {
        const loaded = await fresh.load(id);
        return loaded !== null && "record" in loaded ? loaded.record.status : "unusable";
      }));
    assert.deepEqual(await statuses(), ["failed", "running", "failed"]);
    faults.disarm();
    faults.arm({ op: "syncDir", path: () => true, code: "EROFS" });
    const synced = await store.updateMany([{ id: "agent-r2", change: done }, {
      id: "agent-r1",
      change: (r) => r,
    }]);
    assert.ok(synced.every((o) => "error" in o), "renamed but not durable: reported as failed");
    assert.deepEqual(
      leftBehind(store, [".tmp", ".lock"]),
      [],
      "no temp or lock file is left (beside the records or staged)",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FileSidecarStore.updateMany: every temp file is written, then all are fsynced, and only then renamed; a failed fsync keeps that record old", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-store-" });
  try {
    const clock = new FakeClock(FIXTURE_TIME);
    const faults = new FaultFs(realFs());
    const steps: string[] = [];
    const name = (p: string) =>
      p.slice(p.lastIndexOf("/") + 1).replace(/^\.(agent-r\d)\.json\..*\.tmp$/, "$1");
    const fs = {
      ...faults.fs,
      stageAtomic: async (p: string, t: string, o?: Parameters<typeof faults.fs.stageAtomic>[2]) => {
        const temp = await faults.fs.stageAtomic(p, t, o);
        steps.push(`write ${name(temp)}`);
        return temp;
      },
      syncFile: async (p: string) => {
        await faults.fs.syncFile(p);
        steps.push(`fsync ${name(p)}`);
      },
      rename: async (a: string, b: string) => {
        await faults.fs.rename(a, b);
        steps.push(`rename ${name(a)}`);
      },
    };
    const store = new FileSidecarStore({ fs, clock, storageRoot: dir });
    const ids = ["agent-r1", "agent-r2", "agent-r3"];
    for (const id of ids) await store.save(sidecarFixture(id));
    const before = await Deno.readTextFile(store.pathOf("agent-r2"));
    faults.arm({ op: "syncFile", path: (p) => p.includes("/.agent-r2.json."), code: "EROFS" });
    const done = (r: SidecarRecord) => ({ ...r, status: "failed" as const });
    const outcomes = await store.updateMany(ids.map((id) => ({ id, change: done })));
    assert.deepEqual(outcomes.map((o) => "error" in o ? "error" : o.record.status), [
      "failed",
      "error",
      "failed",
    ]);
    const phase = (s: string) => s.split(" ")[0]!;
    assert.deepEqual(
      steps.map(phase),
      ["write", "write", "write", "fsync", "fsync", "rename", "rename"],
      `all written, then fsynced, then renamed: ${steps.join(", ")}`,
    );
    for (const id of ["agent-r1", "agent-r3"]) {
      assert.ok(steps.indexOf(`fsync ${id}`) < steps.indexOf(`rename ${id}`), `${id} fsynced before renamed`);
    }
    assert.ok(!steps.includes("rename agent-r2"), "an unsynced file is never renamed");
    assert.equal(
      await Deno.readTextFile(store.pathOf("agent-r2")),
      before,
      "the record whose fsync failed is old",
    );
    assert.deepEqual(leftBehind(store, [".tmp"]), [], "its temp file is removed");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "FileSidecarStore.updateMany: a cancel from another process waits for the group and is not lost",
  ignore: !lockTableReadable(),
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-store-" });
  try {
    const clock = new FakeClock(FIXTURE_TIME);
    const base = realFs();
    // The group's staging is held back after it has read the records: the window in which a cancel
    // would be overwritten if the group did not hold the record locks until its renames.
    const staging = Promise.withResolvers<void>();
    const release = Promise.withResolvers<void>();
    const heldFs = {
      ...base,
      async stageAtomic(path: string, text: string, options?: Parameters<typeof base.stageAtomic>[2]) {
        staging.resolve();
        await release.promise;
        return await base.stageAtomic(path, text, options);
      },
    };
    const recovering = new FileSidecarStore({ fs: heldFs, clock, storageRoot: dir });
    const canceller = new FileSidecarStore({ fs: base, clock, storageRoot: dir });
    for (const id of ["agent-c1", "agent-c2"]) await recovering.save(sidecarFixture(id));
    const group = recovering.updateMany(["agent-c1", "agent-c2"].map((id) => ({
      id,
      change: (r: SidecarRecord) => r.status === "running" ? { ...r, status: "failed" as const } : null,
    })));
    await staging.promise;
    const cancel = canceller.markCompleted("agent-c2", {
      status: "cancelled",
      result: { success: false, message: "", error: "Cancelled with blade tasks cancel." },
      completedAt: clock.now(),
    });
    // The group holds the sessions folder exclusively; the cancel must be blocked on it.
    assert.equal(await lockWaiter(recovering.sessionsDir, { until: cancel }), "waiting");
    release.resolve();
    const [outcomes, cancelled] = await Promise.all([group, cancel]);
    assert.ok(outcomes.every((o) => "record" in o && o.written));
    // The group held the lock first, so the cancel found a terminal record and left it (first wins).
    assert.equal(cancelled.status, "failed");
    const after = await new FileSidecarStore({ fs: base, clock, storageRoot: dir }).load("agent-c2");
    assert.ok(after !== null && "record" in after);
    assert.equal(after.record.status, "failed");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FileSidecarStore.listRunning: a folder of an older version is indexed once; a stale marker is dropped", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-store-" });
  try {
    const clock = new FakeClock(FIXTURE_TIME);
    const store = new FileSidecarStore({ fs: realFs(), clock, storageRoot: dir });
    // Written as an older version would have: records only, no markers, no index flag.
    await Deno.mkdir(store.sessionsDir, { recursive: true });
    for (const [id, status] of [["agent-old-run", "running"], ["agent-old-done", "completed"]] as const) {
      await Deno.writeTextFile(store.pathOf(id), JSON.stringify(sidecarFixture(id, { status })));
    }
    const first = await store.listRunning();
    assert.deepEqual(first.records.map((r) => r.id), ["agent-old-run"]);
    const names = () =>
      [...Deno.readDirSync(store.sessionsDir)].map((e) => e.name).filter((n) => n.startsWith(".")).sort();
    assert.deepEqual(names(), [".agent-old-run.running", ".~running-index"]);
    // A crash after the record ended but before its marker went: the next listing drops the marker.
    await Deno.writeTextFile(
      store.pathOf("agent-old-run"),
      JSON.stringify(sidecarFixture("agent-old-run", { status: "failed" })),
    );
    const fresh = new FileSidecarStore({ fs: realFs(), clock, storageRoot: dir });
    assert.deepEqual((await fresh.listRunning()).records, []);
    assert.deepEqual(names(), [".~running-index"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
