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
