import assert from "node:assert/strict";
import { realFs } from "../sys/fs.ts";
import { FakeClock } from "../testing/fakes.ts";
import { FIXTURE_TIME, sidecarFixture } from "../testing/sidecar_fixtures.ts";
import { storeConformance } from "../testing/store_conformance.ts";
import { FileSidecarStore } from "./file_store.ts";

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

Deno.test("FileSidecarStore: a heartbeat from one process never overwrites another's cancel", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blade-store-" });
  try {
    const clock = new FakeClock(FIXTURE_TIME);
    const base = realFs();
    // The owner's write is held back after it has read the record: the window in which another
    // process's cancel would be lost without a cross-process lock.
    const aboutToWrite = Promise.withResolvers<void>();
    let hold = false;
    const slowFs = {
      ...base,
      async writeAtomic(path: string, text: string, options?: Parameters<typeof base.writeAtomic>[2]) {
        if (hold) {
          hold = false;
          aboutToWrite.resolve();
          await new Promise((r) => setTimeout(r, 300));
        }
        return await base.writeAtomic(path, text, options);
      },
    };
    const owner = new FileSidecarStore({ fs: slowFs, clock, storageRoot: dir });
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
    await Promise.all([beat, cancel]);
    const after = await new FileSidecarStore({ fs: base, clock, storageRoot: dir }).load("agent-raced");
    assert.ok(after !== null && "record" in after);
    assert.equal(after.record.status, "cancelled");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
