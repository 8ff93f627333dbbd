import assert from "node:assert/strict";
import { realFs } from "../sys/fs.ts";
import { FakeClock } from "../testing/fakes.ts";
import { FaultFs } from "../testing/fault_fs.ts";
import { FIXTURE_TIME, sidecarFixture } from "../testing/sidecar_fixtures.ts";
import { FileSidecarStore } from "./file_store.ts";
import { RUN_INDEX_FILE } from "./run_index.ts";
import { summarize } from "./run_summary.ts";

const DAY = 24 * 60 * 60 * 1000;

async function withStore(
  body: (store: FileSidecarStore, clock: FakeClock, root: string) => Promise<void>,
): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "blade-run-index-" });
  try {
    const clock = new FakeClock(FIXTURE_TIME + DAY);
    await body(new FileSidecarStore({ fs: realFs(), clock, storageRoot: root }), clock, root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/** What a full read of every record says, as summaries: what the index must always agree with. */
async function truth(root: string, clock: FakeClock) {
  const fresh = new FileSidecarStore({ fs: realFs(), clock, storageRoot: root });
  const all = await fresh.listAll();
  return { runs: all.records.map(summarize), diagnostics: all.diagnostics };
}

function names(store: FileSidecarStore): string[] {
  return [...Deno.readDirSync(store.sessionsDir)].map((e) => e.name).filter((n) => n.startsWith(".")).sort();
}

Deno.test("run index: a listing after the first reads no finished record again (one changed behind the store's back still shows as indexed)", async () => {
  await withStore(async (store, clock, root) => {
    for (let i = 0; i < 5; i++) {
      await store.save(sidecarFixture(`agent-${i}`, { status: "completed", lastActiveAt: FIXTURE_TIME + i }));
    }
    const first = await store.listSummaries();
    assert.deepEqual(first, await truth(root, clock));
    assert.deepEqual(names(store), [RUN_INDEX_FILE], "every marker folded, the index written");
    // A foreign writer (no marker) makes a record unreadable: the index does not read it, so it still
    // lists what it knew — proof that the listing came from the index, not the records.
    await Deno.writeTextFile(store.pathOf("agent-3"), "{ torn");
    const fresh = new FileSidecarStore({ fs: realFs(), clock, storageRoot: root });
    assert.deepEqual(await fresh.listSummaries(), first);
    // A change through the store marks the record; the next listing reads it again.
    await store.update("agent-2", { description: "Changed after it ended" });
    assert.ok(names(store).includes(".agent-2.changed"));
    const again = await fresh.listSummaries();
    assert.equal(again.runs.find((r) => r.id === "agent-2")?.description, "Changed after it ended");
    assert.deepEqual(names(store), [RUN_INDEX_FILE]);
  });
});

Deno.test("run index: running records are always read whole and never kept in the index", async () => {
  await withStore(async (store, clock, root) => {
    await store.create(sidecarFixture("agent-run", { status: "running" }));
    await store.save(sidecarFixture("agent-done", { status: "completed" }));
    assert.deepEqual(await store.listSummaries(), await truth(root, clock));
    const index = JSON.parse(await Deno.readTextFile(`${store.sessionsDir}/${RUN_INDEX_FILE}`));
    assert.deepEqual(index.runs.map((r: { id: string }) => r.id), ["agent-done"]);
    clock.advance(1000);
    await store.update("agent-run", { description: "Heartbeat with a new description" });
    assert.ok(
      !names(store).includes(".agent-run.changed"),
      "a running record's write leaves no index marker",
    );
    assert.deepEqual(await store.listSummaries(), await truth(root, clock));
    await store.markCompleted("agent-run", {
      status: "completed",
      result: { success: true, message: "done" },
      completedAt: clock.now(),
    });
    assert.deepEqual(await store.listSummaries(), await truth(root, clock));
    assert.deepEqual(names(store), [RUN_INDEX_FILE]);
  });
});

Deno.test("run index: missing, corrupt or from another version, it is rebuilt from the records", async () => {
  await withStore(async (store, clock, root) => {
    for (let i = 0; i < 3; i++) await store.save(sidecarFixture(`agent-${i}`, { status: "failed" }));
    const expected = await truth(root, clock);
    assert.deepEqual(await store.listSummaries(), expected);
    const path = `${store.sessionsDir}/${RUN_INDEX_FILE}`;
    const written = await Deno.readTextFile(path);
    for (
      const bad of ["", "{ torn", written.replace('"version":1', '"version":2'), '{"version":1,"runs":[{}]}']
    ) {
      await Deno.writeTextFile(path, bad);
      assert.deepEqual(await store.listSummaries(), expected, JSON.stringify(bad));
      assert.equal(await Deno.readTextFile(path), written, "rebuilt and written again");
    }
    await Deno.remove(path);
    assert.deepEqual(await store.listSummaries(), expected);
    assert.equal(await Deno.readTextFile(path), written);
  });
});

Deno.test("run index: a marker left by a commit that never happened (killed before the rename) changes nothing", async () => {
  await withStore(async (store, clock, root) => {
    await store.create(sidecarFixture("agent-1", { status: "running" }));
    await store.save(sidecarFixture("agent-2", { status: "completed" }));
    await store.listSummaries();
    // The process died after making the marker, before the terminal record's rename.
    await Deno.writeTextFile(`${store.sessionsDir}/.agent-1.changed`, "");
    await Deno.writeTextFile(`${store.sessionsDir}/.agent-9.changed`, "");
    assert.deepEqual(await store.listSummaries(), await truth(root, clock));
    assert.ok(!names(store).some((n) => n.endsWith(".changed")));
  });
});

Deno.test("run index: a storage root this process cannot write is listed from the records, the index left alone", async () => {
  const root = await Deno.makeTempDir({ prefix: "blade-run-index-" });
  try {
    const clock = new FakeClock(FIXTURE_TIME + DAY);
    const writer = new FileSidecarStore({ fs: realFs(), clock, storageRoot: root });
    await writer.save(sidecarFixture("agent-a", { status: "completed" }));
    await writer.listSummaries();
    await writer.save(sidecarFixture("agent-b", { status: "cancelled" }));
    const fs = new FaultFs(realFs());
    fs.arm({ op: "writeAtomic", path: (p) => p.endsWith(RUN_INDEX_FILE), code: "EROFS" });
    const reader = new FileSidecarStore({ fs: fs.fs, clock, storageRoot: root });
    assert.deepEqual(await reader.listSummaries(), await truth(root, clock));
    assert.equal(fs.hits.length, 1, "the fold tried to write the index and was refused");
    assert.ok(names(writer).includes(".agent-b.changed"), "its marker stays for a process that can fold it");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("run index: cleanExpired removes the picked records, their markers and entries, and nothing else", async () => {
  await withStore(async (store, clock, root) => {
    const old = clock.now() - 8 * DAY;
    await store.save(sidecarFixture("agent-old", { status: "completed", lastActiveAt: old }));
    await store.save(
      sidecarFixture("agent-old-other", {
        status: "completed",
        lastActiveAt: old,
        parentProjectPath: "/elsewhere",
      }),
    );
    await store.save(sidecarFixture("agent-new", { status: "completed" }));
    await store.create(sidecarFixture("agent-old-running", { status: "running", lastActiveAt: old }));
    const removed = await store.cleanExpired((r) => r.parentProjectPath !== "/elsewhere", 7 * DAY);
    assert.deepEqual(removed.map((r) => r.id), ["agent-old"]);
    assert.equal(await store.load("agent-old"), null);
    assert.deepEqual(await store.listSummaries(), await truth(root, clock));
    assert.deepEqual(
      (await store.listSummaries()).runs.map((r) => r.id).sort(),
      ["agent-new", "agent-old-other", "agent-old-running"],
    );
  });
});
