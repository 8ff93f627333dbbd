// `blade tasks list`'s one listing (docs/reference/performance.md "Run listings"), on real files with a
// scripted Process port: with nothing to reconcile the records' folder is listed once (the running
// index's listing and then the run index's made it twice), and the listing is the store's; a reconciled
// orphan is shown as it is after the reconcile (the folder listed again).

import assert from "node:assert/strict";
import { reconcileListed } from "./listed_reconcile.ts";
import { reconcile } from "./recovery.ts";
import { FakeClock, fakeEnv, FakeProcess, sequentialIds } from "../testing/fakes.ts";
import { type Fs, realFs } from "../sys/fs.ts";
import { storageLayout } from "../config/storage.ts";
import { FileSidecarStore } from "../store/file_store.ts";
import { sidecarFixture } from "../testing/sidecar_fixtures.ts";
import type { Ports } from "../sys/mod.ts";

const DEAD = 301;
const LIVE = 302;
const IDENTITY = { platform: "linux" as const, fingerprint: "d".repeat(64) };

async function world() {
  const root = await Deno.makeTempDir({ prefix: "blade-listed-" });
  const layout = storageLayout(root);
  const listings = { count: 0 };
  const real = realFs();
  // Counts the listings of the records' folder.
  const fs = new Proxy(real, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key !== "readDir") return typeof value === "function" ? value.bind(target) : value;
      return (path: string) => {
        if (path === layout.sessionsDir) listings.count++;
        return target.readDir(path);
      };
    },
  }) as Fs;
  const clock = new FakeClock();
  const process = new FakeProcess({ pid: 4242 });
  process.spawnFake(LIVE, IDENTITY);
  const ports: Ports = { fs, clock, process, ids: sequentialIds(), env: fakeEnv({}, { cwd: "/" }) };
  const store = new FileSidecarStore({ fs, clock, storageRoot: root });
  return {
    root,
    clock,
    ports,
    layout,
    store,
    listings,
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

Deno.test("tasks list's reconcile: one listing of the folder when nothing is reconciled, and it is the store's", async () => {
  await using w = await world();
  for (const id of ["agent-done-1", "agent-done-2"]) {
    await w.store.create(
      sidecarFixture(id, { status: "completed", result: { success: true, message: "ok" } }),
    );
  }
  await w.store.create(sidecarFixture("agent-live", { processId: LIVE, processIdentity: IDENTITY }));
  // The indexes exist, as after any earlier listing.
  await w.store.listRunning();
  await w.store.listSummaries();
  w.clock.advance(30 * 60 * 1000 + 1);
  w.listings.count = 0;
  const { report, listing } = await reconcileListed(
    { ports: w.ports, store: w.store, layout: w.layout },
    () => true,
  );
  assert.equal(w.listings.count, 1, "the folder is listed once");
  assert.deepEqual([report.recovered, report.skipped.map((s) => s.id)], [[], []]);
  assert.deepEqual(listing, await w.store.listSummaries());
  assert.deepEqual(listing.runs.map((r) => [r.id, r.status]).sort(), [
    ["agent-done-1", "completed"],
    ["agent-done-2", "completed"],
    ["agent-live", "running"],
  ]);
  // The way it was: the running index's listing for the reconcile, then the run index's.
  w.listings.count = 0;
  await reconcile({ ports: w.ports, store: w.store, layout: w.layout }, () => true, {
    listing: await w.store.listRunning(),
  });
  await w.store.listSummaries();
  assert.equal(w.listings.count, 2);
});

Deno.test("tasks list's reconcile: an orphan it ends is listed as it is now (the folder listed again)", async () => {
  await using w = await world();
  await w.store.create(
    sidecarFixture("agent-done", { status: "completed", result: { success: true, message: "ok" } }),
  );
  await w.store.create(sidecarFixture("agent-orphan", { processId: DEAD, processIdentity: IDENTITY }));
  await w.store.listSummaries();
  w.clock.advance(30 * 60 * 1000 + 1);
  w.listings.count = 0;
  const { report, listing } = await reconcileListed(
    { ports: w.ports, store: w.store, layout: w.layout },
    () => true,
  );
  assert.deepEqual(report.recovered.map((r) => [r.id, r.reason]), [["agent-orphan", "owner_dead"]]);
  assert.ok(w.listings.count >= 2, `listed again after the reconcile (${w.listings.count})`);
  assert.deepEqual(listing.runs.map((r) => [r.id, r.status]).sort(), [
    ["agent-done", "completed"],
    ["agent-orphan", "failed"],
  ]);
});
