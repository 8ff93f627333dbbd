// Owns the one conformance suite every SidecarStore implementation must pass (docs/reference/sidecars.md). Each store's
// test file calls storeConformance() with a factory; cases that need files or a cache run only when
// the harness offers them. Long by nature: one case per guarantee of the port.
// Never imported by main.ts.

import assert from "node:assert/strict";
import { BladeError } from "../errors.ts";
import type { SidecarRecord } from "../store/schema.ts";
import { publicProjection, type SidecarOwner, type SidecarStore } from "../store/store.ts";
import { isOwnedBy } from "../store/record_ops.ts";
import { summarize } from "../store/run_summary.ts";
import { FakeClock } from "./fakes.ts";
import { FIXTURE_OWNER, FIXTURE_TIME, fullSidecarFixture, sidecarFixture } from "./sidecar_fixtures.ts";

export interface StoreHarness extends AsyncDisposable {
  store: SidecarStore;
  /** Stores raw text where the store keeps `id`'s record, as a foreign or broken writer would. */
  writeRaw(id: string, text: string): Promise<void>;
  /** Set by stores that keep files. The storage root must lie in a folder of its own. */
  files?: { storageRoot: string; sessionsDir: string };
  /** Set by stores that cache decoded records. */
  cache?: { size(): number; has(id: string): boolean };
}

/** Builds a fresh, empty store whose update() reads time from `clock`. */
export type StoreFactory = (clock: FakeClock) => Promise<StoreHarness>;

const DAY = 24 * 60 * 60 * 1000;
const BAD_IDS = ["../x", ".", "..", "a/b", "a".repeat(201), "", "a\\b", "a b", "/abs"];

export function storeConformance(name: string, factory: StoreFactory): void {
  const test = (title: string, body: (h: StoreHarness, clock: FakeClock) => Promise<void>) =>
    Deno.test(`${name}: ${title}`, async () => {
      const clock = new FakeClock(FIXTURE_TIME + DAY);
      await using harness = await factory(clock);
      await body(harness, clock);
    });

  test("save/load round trip is deep-equal and keeps unknown fields across a re-save", async ({ store }) => {
    const record = { ...fullSidecarFixture("agent-full"), futureField: { nested: [1, "two"] } };
    const result = { ...record.result, futureResultField: true };
    const stored = { ...record, result } as SidecarRecord;
    await store.save(stored);
    assert.deepEqual(await store.load("agent-full"), { record: stored, legacy: false });
    const updated = await store.update("agent-full", { description: "Renamed" });
    assert.deepEqual((updated as Record<string, unknown>)["futureField"], { nested: [1, "two"] });
    const loaded = await store.load("agent-full");
    assert.ok(loaded !== null && "record" in loaded);
    assert.deepEqual((loaded.record as Record<string, unknown>)["futureField"], { nested: [1, "two"] });
    assert.deepEqual((loaded.record.result as Record<string, unknown>)["futureResultField"], true);
    assert.equal(loaded.record.description, "Renamed");
  });

  test("records handed out are copies", async ({ store }) => {
    const record = sidecarFixture("agent-copy");
    await store.save(record);
    record.description = "changed by the caller after save";
    const first = await store.load("agent-copy");
    assert.ok(first !== null && "record" in first);
    assert.equal(first.record.description, "Survey the code");
    first.record.stats.tokens = 999;
    const second = await store.load("agent-copy");
    assert.ok(second !== null && "record" in second);
    assert.equal(second.record.stats.tokens, 0);
  });

  test("files are 0600 and the folder 0700, also after the folder was deleted", async (h) => {
    if (h.files === undefined || Deno.build.os === "windows") return;
    const { store } = h;
    const { sessionsDir } = h.files;
    const modes = async (id: string) => ({
      file: (await Deno.stat(`${sessionsDir}/${id}.json`)).mode! & 0o777,
      dir: (await Deno.stat(sessionsDir)).mode! & 0o777,
    });
    await store.save(sidecarFixture("agent-modes"));
    assert.deepEqual(await modes("agent-modes"), { file: 0o600, dir: 0o700 });
    await Deno.chmod(sessionsDir, 0o755);
    await store.save(sidecarFixture("agent-modes", { description: "again" }));
    assert.deepEqual(await modes("agent-modes"), { file: 0o600, dir: 0o700 });
    await Deno.remove(sessionsDir, { recursive: true });
    assert.equal(await store.load("agent-modes"), null, "a deleted file is not served from the cache");
    await store.save(sidecarFixture("agent-modes2"));
    assert.deepEqual(await modes("agent-modes2"), { file: 0o600, dir: 0o700 });
    assert.equal((await Deno.stat(`${h.files.storageRoot}/agents`)).mode! & 0o777, 0o700);
  });

  test("path-traversal and malformed ids are rejected before any path is built", async (h) => {
    const { store } = h;
    for (const id of BAD_IDS) {
      const expected = (e: unknown) => {
        assert.ok(e instanceof BladeError, `not a BladeError for ${JSON.stringify(id)}`);
        assert.equal(e.code, "invalid_session_id");
        assert.equal(e.message, `Invalid session ID: ${JSON.stringify(id).slice(0, 80)}`);
        return true;
      };
      const record = sidecarFixture(id);
      await assert.rejects(store.load(id), expected);
      await assert.rejects(store.save(record), expected);
      await assert.rejects(store.create(record), expected);
      await assert.rejects(store.update(id, { description: "x" }), expected);
      const completion = {
        status: "failed" as const,
        result: { success: false, message: "" },
        completedAt: 1,
      };
      await assert.rejects(store.markCompleted(id, completion), expected);
      await assert.rejects(store.remove(id), expected);
    }
    if (h.files !== undefined) {
      const found: string[] = [];
      const walk = async (dir: string) => {
        for await (const e of Deno.readDir(dir)) {
          if (e.isDirectory) await walk(`${dir}/${e.name}`);
          else found.push(`${dir}/${e.name}`);
        }
      };
      await walk(h.files.storageRoot.replace(/[\\/][^\\/]+$/, ""));
      assert.deepEqual(found, []);
    }
  });

  test("corrupt or malformed records fail closed with a diagnostic", async ({ store, writeRaw }) => {
    const valid = sidecarFixture("agent-good");
    await store.save(valid);
    const v2 = (id: string, change: Record<string, unknown>) =>
      JSON.stringify({ ...sidecarFixture(id), ...change });
    const cases: [string, string, string][] = [
      ["agent-notjson", "{ this is not json", "invalid_json"],
      ["agent-empty", "", "invalid_json"],
      ["agent-torn", JSON.stringify(sidecarFixture("agent-torn"), null, 2).slice(0, 200), "invalid_json"],
      ["agent-array", "[]", "invalid_record"],
      ["agent-null", "null", "invalid_record"],
      ["agent-foreign", JSON.stringify(sidecarFixture("agent-other")), "id_mismatch"],
      ["agent-status", v2("agent-status", { status: "paused" }), "invalid_record"],
      [
        "agent-infinite",
        v2("agent-infinite", { createdAt: 1 }).replace('"createdAt":1', '"createdAt":1e999'),
        "invalid_record",
      ],
      ["agent-strtime", v2("agent-strtime", { lastActiveAt: "2026-01-01T00:00:00Z" }), "invalid_record"],
      ["agent-root", v2("agent-root", { rootAgentId: "../x" }), "invalid_record"],
      ["agent-resumed", v2("agent-resumed", { resumedFrom: "../../etc", resumeDepth: 1 }), "invalid_record"],
      ["agent-self", v2("agent-self", { resumedFrom: "agent-self", resumeDepth: 1 }), "invalid_record"],
      ["agent-depth", v2("agent-depth", { resumeDepth: 3 }), "invalid_record"],
      ["agent-parent", v2("agent-parent", { parentSessionId: "a/b" }), "invalid_record"],
      ["agent-version", v2("agent-version", { schemaVersion: 3 }), "unsupported_version"],
      ["agent-noprompt", v2("agent-noprompt", { prompt: undefined }), "invalid_record"],
      [
        "agent-block",
        v2("agent-block", { messages: [{ role: "user", content: [{ type: "image" }] }] }),
        "invalid_record",
      ],
      [
        "agent-mode",
        v2("agent-mode", { configSnapshot: { ...valid.configSnapshot, permissionMode: "root" } }),
        "invalid_record",
      ],
    ];
    for (const [id, text, code] of cases) {
      await writeRaw(id, text);
      const result = await store.load(id);
      assert.ok(result !== null && "diagnostic" in result, `${id} should give a diagnostic`);
      assert.equal(Object.keys(result).length, 1, `${id}: a diagnostic never comes with a record`);
      assert.equal(result.diagnostic.id, id);
      assert.equal(result.diagnostic.code, code, `${id}: ${result.diagnostic.message}`);
      assert.match(result.diagnostic.message, new RegExp(`^Sidecar "${id}" `));
    }
    const all = await store.listAll();
    assert.deepEqual(all.records, [valid]);
    assert.deepEqual(
      all.diagnostics.map((d) => [d.id, d.code]),
      cases.map(([id, , code]) => [id, code]).sort(),
    );
    assert.deepEqual(await store.list(FIXTURE_OWNER), [valid]);
    await assert.rejects(store.update("agent-status", { description: "x" }), hasCode("invalid_sidecar"));
    const completion = { status: "failed" as const, result: { success: false, message: "" }, completedAt: 1 };
    await assert.rejects(store.markCompleted("agent-notjson", completion), hasCode("invalid_sidecar"));
    assert.equal(await store.remove("agent-notjson"), true);
    assert.equal(await store.load("agent-notjson"), null);
  });

  test("foreign files and leftover temp files are never taken for records", async (h) => {
    if (h.files === undefined) return;
    const { store } = h;
    const dir = h.files.sessionsDir;
    const valid = sidecarFixture("agent-good");
    await store.save(valid);
    const tmpText = JSON.stringify(sidecarFixture("agent-tmp"));
    await Deno.writeTextFile(`${dir}/.agent-tmp.json.123.1.abc.tmp`, tmpText);
    await Deno.writeTextFile(`${dir}/.agent-good.json.123.2.abc.tmp`, "{ torn");
    await Deno.writeTextFile(`${dir}/.hidden.json`, tmpText);
    await Deno.writeTextFile(`${dir}/notes.txt`, "hello");
    await Deno.writeTextFile(`${dir}/bad name.json`, tmpText);
    await Deno.mkdir(`${dir}/agent-dir.json`);
    if (Deno.build.os !== "windows") await Deno.symlink(`${dir}/agent-good.json`, `${dir}/agent-link.json`);
    assert.deepEqual(await store.load("agent-good"), { record: valid, legacy: false });
    assert.equal(await store.load("agent-tmp"), null);
    const all = await store.listAll();
    assert.deepEqual(all.records, [valid]);
    const expected = [["agent-dir", "not_a_file"], ["bad name", "invalid_file_name"]];
    if (Deno.build.os !== "windows") expected.push(["agent-link", "not_a_file"]);
    assert.deepEqual(all.diagnostics.map((d) => [d.id, d.code]).sort(), expected.sort());
    assert.deepEqual(await store.list(FIXTURE_OWNER), [valid]);
  });

  test("legacy records are normalised to v2 and marked legacy", async ({ store, writeRaw }) => {
    const v1 = {
      id: "agent-legacy",
      subagentType: "Explore",
      description: "Old run",
      prompt: "Look around the repo",
      status: "completed",
      result: { success: true, message: "done" },
      createdAt: "2025-06-01T10:00:00.000Z",
      completedAt: Date.UTC(2025, 5, 1, 10, 5),
      parentSessionId: FIXTURE_OWNER.parentSessionId,
      parentProjectPath: FIXTURE_OWNER.parentProjectPath,
      oldField: "kept",
    };
    await writeRaw("agent-legacy", JSON.stringify(v1));
    const expected = {
      ...v1,
      schemaVersion: 2,
      messages: [],
      background: false,
      stats: { tokens: 0, toolCalls: 0, durationMs: 0 },
      createdAt: Date.UTC(2025, 5, 1, 10, 0),
      lastActiveAt: Date.UTC(2025, 5, 1, 10, 5),
      rootAgentId: "agent-legacy",
      resumeDepth: 0,
      workspaceRoot: FIXTURE_OWNER.parentProjectPath,
      isolation: "none",
      configSnapshot: {
        name: "Explore",
        description: "",
        systemPrompt: "",
        tools: null,
        disallowedTools: [],
        model: "inherit",
        permissionMode: "default",
        maxTurns: null,
        skills: [],
        isolation: "none",
        source: "legacy",
      },
    };
    assert.deepEqual(await store.load("agent-legacy"), { record: expected, legacy: true });
    assert.deepEqual(await store.list(FIXTURE_OWNER), [expected]);

    const resumed = { ...v1, id: "agent-legacy2", resumedFrom: "agent-legacy", schemaVersion: 1 };
    delete (resumed as Partial<typeof resumed>).result;
    await writeRaw("agent-legacy2", JSON.stringify(resumed));
    const loaded = await store.load("agent-legacy2");
    assert.ok(loaded !== null && "record" in loaded && loaded.legacy);
    assert.equal(loaded.record.resumeDepth, 1);
    assert.equal(loaded.record.rootAgentId, "agent-legacy");
    assert.deepEqual(loaded.record.result, { success: true, message: "" });

    const updated = await store.update("agent-legacy", { description: "Now v2" });
    assert.deepEqual(await store.load("agent-legacy"), { record: updated, legacy: false });
    assert.equal((updated as Record<string, unknown>)["oldField"], "kept");

    const { status: _, ...noStatus } = v1;
    await writeRaw("agent-legacy3", JSON.stringify({ ...noStatus, id: "agent-legacy3" }));
    const broken = await store.load("agent-legacy3");
    assert.ok(broken !== null && "diagnostic" in broken && broken.diagnostic.code === "invalid_record");
  });

  test("257 records keep 256 cached; the evicted one is re-read from disk", async (h) => {
    const { store, writeRaw } = h;
    const ids = Array.from({ length: 256 }, (_, i) => `agent-${String(i).padStart(3, "0")}`);
    // The first is saved alone so it is the least recently used; the rest concurrently (faster).
    await store.save(sidecarFixture(ids[0]!, { status: "completed" }));
    await Promise.all(ids.slice(1).map((id) => store.save(sidecarFixture(id, { status: "completed" }))));
    const last = "agent-last";
    await store.save(sidecarFixture(last, { status: "completed" }));
    if (h.cache !== undefined) {
      assert.equal(h.cache.size(), 256);
      assert.equal(h.cache.has(ids[0]!), false);
      assert.equal(h.cache.has(last), true);
    }
    await writeRaw(
      ids[0]!,
      JSON.stringify(sidecarFixture(ids[0]!, { status: "completed", description: "edited" })),
    );
    const loaded = await store.load(ids[0]!);
    assert.ok(loaded !== null && "record" in loaded);
    assert.equal(loaded.record.description, "edited");
    if (h.cache !== undefined) {
      assert.equal(h.cache.has(ids[0]!), true);
      assert.equal(h.cache.size(), 256);
    }
  });

  test("running records stay cached past the cap", async (h) => {
    const { store } = h;
    const running = sidecarFixture("agent-running");
    await store.save(running);
    await Promise.all(Array.from({ length: 256 }, (_, i) => store.save(sidecarFixture(`agent-r${i}`))));
    await store.save(sidecarFixture("agent-completed", { status: "completed" }));
    if (h.cache !== undefined) {
      assert.equal(h.cache.size(), 257, "257 running records are all pinned");
      assert.equal(h.cache.has("agent-running"), true, "the least recently used running record is kept");
      assert.equal(h.cache.has("agent-completed"), false, "a terminal record is evicted instead");
    }
    assert.deepEqual(await store.load("agent-running"), { record: running, legacy: false });
    const completed = await store.load("agent-completed");
    assert.ok(completed !== null && "record" in completed && completed.record.status === "completed");
  });

  test("owners are isolated on both session and project path", async ({ store }) => {
    const otherPath: SidecarOwner = { ...FIXTURE_OWNER, parentProjectPath: "/home/dev/other" };
    const otherSession: SidecarOwner = { ...FIXTURE_OWNER, parentSessionId: "session-other" };
    const mine = sidecarFixture("agent-mine", { status: "completed" });
    const a = sidecarFixture("agent-a", { ...otherPath, status: "completed" });
    const b = sidecarFixture("agent-b", { ...otherSession, status: "completed" });
    for (const r of [mine, a, b]) await store.save(r);
    assert.deepEqual(await store.list(FIXTURE_OWNER), [mine]);
    assert.deepEqual(await store.list(otherPath), [a]);
    assert.deepEqual(await store.list(otherSession), [b]);
    assert.deepEqual(await store.list({ parentSessionId: "session-x", parentProjectPath: "/x" }), []);
    const mineOnly = (r: SidecarOwner) => isOwnedBy(r, FIXTURE_OWNER);
    const cleaned = await store.cleanExpired(mineOnly, 0, { now: FIXTURE_TIME + DAY });
    assert.deepEqual(cleaned.map((r) => r.id), ["agent-mine"]);
    assert.deepEqual((await store.listAll()).records.map((r) => r.id).sort(), ["agent-a", "agent-b"]);
  });

  test("list is ordered by lastActiveAt, most recent first", async ({ store }) => {
    const times = { "agent-1": 5, "agent-2": 9, "agent-3": 1, "agent-4": 9 };
    for (const [id, t] of Object.entries(times)) {
      await store.save(sidecarFixture(id, { lastActiveAt: FIXTURE_TIME + t }));
    }
    assert.deepEqual((await store.list(FIXTURE_OWNER)).map((r) => r.id), [
      "agent-2",
      "agent-4",
      "agent-1",
      "agent-3",
    ]);
    assert.deepEqual((await store.listAll()).records.map((r) => r.id), [
      "agent-2",
      "agent-4",
      "agent-1",
      "agent-3",
    ]);
  });

  test("the public projection never leaks private fields", async ({ store }) => {
    const secret = fullSidecarFixture("agent-proj", {
      prompt: "PROMPT-SECRET",
      messages: [{ role: "user", content: [{ type: "text", text: "MESSAGE-SECRET" }] }],
      parentSessionId: "session-SECRETPARENT",
      parentProjectPath: "/SECRET/project",
      workspaceRoot: "/SECRET/workspace",
      providerAdmissionOwnerId: "ADMISSION-SECRET",
      processId: 987654,
      processIdentity: { platform: "linux", fingerprint: "fe".repeat(32) },
    });
    secret.configSnapshot.systemPrompt = "SYSTEM-SECRET";
    secret.worktree = {
      name: "agent+SECRET",
      branch: "blade-b",
      baseCommit: "c0ffee".padEnd(40, "0"),
      originalBranch: "SECRET-branch",
      repositoryRoot: "/SECRET/repo",
      originalWorkspaceRoot: "/SECRET/repo",
      worktreeRoot: "/SECRET/wt",
      workspaceRoot: "/SECRET/wt",
      sourceHadChanges: false,
      ownerAgentId: "agent-proj",
      createdAt: 1,
      state: "kept",
    };
    secret.result.modifiedFiles = ["/SECRET/project/a.ts", "/SECRET/project/b.ts"];
    await store.save({ ...secret, extraSecret: "UNKNOWN-SECRET" } as SidecarRecord);
    const loaded = await store.load("agent-proj");
    assert.ok(loaded !== null && "record" in loaded);
    const projection = publicProjection(loaded.record);
    const json = JSON.stringify(projection);
    for (
      const leak of ["SECRET", "987654", "fefefe", "prompt", "messages", "configSnapshot", "workspaceRoot"]
    ) {
      assert.ok(!json.includes(leak), `projection leaks ${leak}: ${json}`);
    }
    for (const key of ["parentSessionId", "parentProjectPath", "providerAdmissionOwnerId", "processId"]) {
      assert.ok(!json.includes(key), `projection has ${key}`);
    }
    assert.deepEqual(projection, {
      id: "agent-proj",
      subagentType: "general-purpose",
      description: "Survey the code",
      status: "completed",
      background: true,
      result: {
        success: true,
        message: "Only lib/sys/fs.ts writes atomically.",
        error: "none",
        verificationCommands: ["deno test"],
        verificationVerdict: { verdict: "pass", summary: "All checks pass.", findings: [] },
        modifiedFileCount: 2,
      },
      stats: { tokens: 1234, toolCalls: 1, durationMs: 5678 },
      createdAt: FIXTURE_TIME,
      lastActiveAt: FIXTURE_TIME + 5678,
      completedAt: FIXTURE_TIME + 5678,
      restartRecovery: { outcome: "completed", recoveredAt: FIXTURE_TIME + 9000 },
      rootAgentId: "agent-root",
      resumedFrom: "agent-source",
      resumeDepth: 2,
      isolation: "worktree",
      worktree: { branch: "blade-b", baseCommit: "c0ffee".padEnd(40, "0") },
    });
  });

  test("create refuses an existing id, even a corrupt one", async ({ store, writeRaw }) => {
    await store.create(sidecarFixture("agent-once"));
    const exists = (id: string) => ({
      code: "session_exists",
      message: `Subagent session already exists: ${id}`,
    });
    await assert.rejects(
      store.create(sidecarFixture("agent-once", { description: "again" })),
      exists("agent-once"),
    );
    const kept = await store.load("agent-once");
    assert.ok(kept !== null && "record" in kept && kept.record.description === "Survey the code");
    await writeRaw("agent-corrupt", "{");
    await assert.rejects(store.create(sidecarFixture("agent-corrupt")), exists("agent-corrupt"));
    const both = await Promise.allSettled([
      store.create(sidecarFixture("agent-race")),
      store.create(sidecarFixture("agent-race")),
    ]);
    assert.deepEqual(both.map((r) => r.status).sort(), ["fulfilled", "rejected"]);
    await assert.rejects(
      store.save({ ...sidecarFixture("agent-bad"), status: "paused" } as unknown as SidecarRecord),
      hasCode("invalid_sidecar"),
    );
  });

  test("update bumps lastActiveAt with the clock; functions may drop fields", async ({ store }, clock) => {
    await store.save(sidecarFixture("agent-up", { processId: 77, lastActiveAt: FIXTURE_TIME }));
    clock.advance(1500);
    const updated = await store.update("agent-up", { description: "Busy", lastActiveAt: 1 });
    assert.equal(updated.lastActiveAt, clock.now());
    assert.equal(updated.description, "Busy");
    assert.deepEqual(await store.load("agent-up"), { record: updated, legacy: false });
    clock.advance(10);
    const dropped = await store.update("agent-up", ({ processId: _, ...rest }) => rest);
    assert.equal(dropped.processId, undefined);
    assert.equal("processId" in dropped, false);
    assert.equal(dropped.lastActiveAt, clock.now());
    await assert.rejects(store.update("agent-none", {}), {
      code: "session_not_found",
      message: "Subagent session not found: agent-none",
    });
    await assert.rejects(
      store.update("agent-up", (r) => ({ ...r, id: "agent-other" })),
      hasCode("invalid_sidecar"),
    );
    await assert.rejects(store.update("agent-up", { status: "paused" } as never), hasCode("invalid_sidecar"));
    const loaded = await store.load("agent-up");
    assert.ok(loaded !== null && "record" in loaded && loaded.record.status === "running");
  });

  test("concurrent updates of one record are serialised", async ({ store }) => {
    await store.save(sidecarFixture("agent-count"));
    const bump = (r: SidecarRecord) => ({ ...r, stats: { ...r.stats, toolCalls: r.stats.toolCalls + 1 } });
    await Promise.all(Array.from({ length: 20 }, () => store.update("agent-count", bump)));
    const loaded = await store.load("agent-count");
    assert.ok(loaded !== null && "record" in loaded);
    assert.equal(loaded.record.stats.toolCalls, 20);
  });

  test(
    "markCompleted ends a running record once; the first terminal state wins",
    async ({ store }, clock) => {
      await store.save(sidecarFixture("agent-done"));
      clock.advance(3000);
      const result = { success: false, message: "Stopped by the user", error: "cancelled" };
      const done = await store.markCompleted("agent-done", {
        status: "cancelled",
        result,
        completedAt: clock.now(),
      });
      assert.deepEqual(done, {
        ...sidecarFixture("agent-done"),
        status: "cancelled",
        result,
        completedAt: clock.now(),
        lastActiveAt: clock.now(),
      });
      clock.advance(1000);
      const failed = { success: false, message: "", error: "boom" };
      const again = await store.markCompleted("agent-done", {
        status: "failed",
        result: failed,
        completedAt: clock.now(),
      });
      assert.deepEqual(again, done);
      assert.deepEqual(await store.load("agent-done"), { record: done, legacy: false });
    },
  );

  test("remove deletes once", async ({ store }) => {
    await store.save(sidecarFixture("agent-rm"));
    assert.equal(await store.remove("agent-rm"), true);
    assert.equal(await store.remove("agent-rm"), false);
    assert.equal(await store.load("agent-rm"), null);
    assert.deepEqual(await store.listAll(), { records: [], diagnostics: [] });
  });

  test(
    "updateMany commits each record from its stored version; null leaves it unwritten",
    async (h, clock) => {
      const { store } = h;
      for (const id of ["agent-g1", "agent-g2", "agent-g3"]) await store.save(sidecarFixture(id));
      await store.update("agent-g2", { description: "changed since it was read" });
      const before = h.files === undefined
        ? undefined
        : await Deno.readTextFile(`${h.files.sessionsDir}/agent-g3.json`);
      clock.advance(5000);
      const outcomes = await store.updateMany([
        { id: "agent-g2", change: (r) => ({ ...r, status: "failed" }) },
        { id: "agent-missing", change: (r) => r },
        { id: "agent-g3", change: () => null },
        { id: "agent-g1", change: (r) => ({ ...r, status: "completed" }) },
      ]);
      assert.equal(outcomes.length, 4);
      const [g2, missing, g3, g1] = outcomes;
      assert.ok(g2 !== undefined && "record" in g2 && g2.written);
      assert.equal(g2.record.description, "changed since it was read", "from the stored version");
      assert.equal(g2.record.status, "failed");
      assert.equal(g2.record.lastActiveAt, clock.now());
      assert.ok(missing !== undefined && "error" in missing && hasCode("session_not_found")(missing.error));
      assert.ok(g3 !== undefined && "record" in g3 && !g3.written);
      assert.ok(g1 !== undefined && "record" in g1 && g1.written && g1.record.status === "completed");
      for (
        const [id, status] of [["agent-g1", "completed"], ["agent-g2", "failed"], ["agent-g3", "running"]]
      ) {
        const loaded = await store.load(id!);
        assert.ok(loaded !== null && "record" in loaded);
        assert.equal(loaded.record.status, status, id);
      }
      if (h.files !== undefined) {
        assert.equal(await Deno.readTextFile(`${h.files.sessionsDir}/agent-g3.json`), before);
        const names = [...Deno.readDirSync(h.files.sessionsDir)].map((e) => e.name);
        const staged = [...Deno.readDirSync(`${h.files.sessionsDir}/.~staging`)].map((e) => e.name);
        const left = [...names, ...staged].filter((n) => n.endsWith(".tmp") || n.endsWith(".lock"));
        assert.deepEqual(left, [], "no temp or lock file is left (beside the records or staged)");
        // The running index: a marker for the record still running, none for those that ended.
        assert.deepEqual(names.filter((n) => n.endsWith(".running")).sort(), [".agent-g3.running"]);
      }
    },
  );

  test("listRunning: exactly the running records, also after they end or are removed", async (h) => {
    const { store } = h;
    assert.deepEqual(await store.listRunning(), { records: [], diagnostics: [] });
    for (const id of ["agent-run1", "agent-run2", "agent-run3"]) await store.save(sidecarFixture(id));
    await store.save(sidecarFixture("agent-done", { status: "completed" }));
    const ids = async () => (await store.listRunning()).records.map((r) => r.id).sort();
    assert.deepEqual(await ids(), ["agent-run1", "agent-run2", "agent-run3"]);
    await store.update("agent-run1", {});
    await store.markCompleted("agent-run1", {
      status: "cancelled",
      result: { success: false, message: "" },
      completedAt: 1,
    });
    await store.updateMany([{ id: "agent-run2", change: (r) => ({ ...r, status: "failed" }) }]);
    await store.remove("agent-run3");
    assert.deepEqual(await ids(), []);
    await store.save(sidecarFixture("agent-run4"));
    assert.deepEqual(await ids(), ["agent-run4"]);
    if (h.files !== undefined) {
      const markers = [...Deno.readDirSync(h.files.sessionsDir)].map((e) => e.name).filter((n) =>
        n.endsWith(".running")
      );
      assert.deepEqual(markers, [".agent-run4.running"]);
    }
  });

  test("updateMany refuses an id twice and checks every id before touching storage", async ({ store }) => {
    await store.save(sidecarFixture("agent-twice"));
    await assert.rejects(
      store.updateMany([{ id: "agent-twice", change: (r) => r }, { id: "agent-twice", change: (r) => r }]),
      hasCode("invalid_sidecar"),
    );
    await assert.rejects(
      store.updateMany([{ id: "agent-twice", change: (r) => r }, { id: "../x", change: (r) => r }]),
      hasCode("invalid_session_id"),
    );
    const loaded = await store.load("agent-twice");
    assert.ok(loaded !== null && "record" in loaded);
    assert.equal(loaded.record.lastActiveAt, sidecarFixture("agent-twice").lastActiveAt);
  });

  test("cleanExpired removes only the selected old terminal records", async ({ store }, clock) => {
    const now = clock.now();
    const old = now - 8 * DAY;
    const other: SidecarOwner = { ...FIXTURE_OWNER, parentSessionId: "session-other" };
    const records = [
      sidecarFixture("agent-old-completed", { status: "completed", lastActiveAt: old }),
      sidecarFixture("agent-old-failed", { status: "failed", lastActiveAt: old }),
      sidecarFixture("agent-old-cancelled", { status: "cancelled", lastActiveAt: old }),
      sidecarFixture("agent-old-running", { status: "running", lastActiveAt: old }),
      sidecarFixture("agent-fresh", { status: "completed", lastActiveAt: now - DAY }),
      sidecarFixture("agent-edge", { status: "completed", lastActiveAt: now - 7 * DAY }),
      sidecarFixture("agent-foreign", { ...other, status: "completed", lastActiveAt: old }),
    ];
    for (const r of records) await store.save(r);
    const mine = (r: SidecarOwner) => isOwnedBy(r, FIXTURE_OWNER);
    const ids = async (o: { now?: number } = {}) =>
      (await store.cleanExpired(mine, 7 * DAY, o)).map((r) => r.id).sort();
    assert.deepEqual(await ids(), ["agent-old-cancelled", "agent-old-completed", "agent-old-failed"]);
    const left = (await store.listAll()).records.map((r) => r.id).sort();
    assert.deepEqual(left, ["agent-edge", "agent-foreign", "agent-fresh", "agent-old-running"]);
    assert.deepEqual((await store.listSummaries()).runs.map((r) => r.id).sort(), left);
    assert.deepEqual(await ids({ now: now + DAY }), ["agent-edge"]);
    assert.deepEqual(await ids({ now: now + DAY }), []);
  });

  test(
    "listSummaries agrees with listAll through creates, updates, completions and removals",
    async ({ store }, clock) => {
      const same = async () => {
        const all = await store.listAll();
        assert.deepEqual(await store.listSummaries(), {
          runs: all.records.map(summarize),
          diagnostics: all.diagnostics,
        });
      };
      await same();
      await store.create(sidecarFixture("agent-r1", { status: "running" }));
      await store.save(sidecarFixture("agent-c1", { status: "completed", lastActiveAt: FIXTURE_TIME + 5 }));
      await same();
      clock.advance(1000);
      await store.update("agent-r1", {});
      await store.markCompleted("agent-r1", {
        status: "failed",
        result: { success: false, message: "", error: "boom" },
        completedAt: clock.now(),
      });
      await same();
      await store.update("agent-c1", { description: "Renamed after it ended" });
      await store.save(sidecarFixture("agent-r2", { status: "running", queuedAt: FIXTURE_TIME }));
      await same();
      clock.advance(1000);
      await store.updateMany([
        { id: "agent-r2", change: (r) => ({ ...r, status: "completed", completedAt: clock.now() }) },
        { id: "agent-c1", change: () => null },
      ]);
      await store.remove("agent-r1");
      await same();
      const listed = await store.listSummaries();
      assert.deepEqual(listed.runs.map((r) => [r.id, r.status, r.description]), [
        ["agent-r2", "completed", "Survey the code"],
        ["agent-c1", "completed", "Renamed after it ended"],
      ]);
    },
  );

  test("listSummaries reports an unusable record and lists the rest", async ({ store, writeRaw }) => {
    await store.save(sidecarFixture("agent-good", { status: "completed" }));
    await writeRaw("agent-bad", "{ not json");
    const listed = await store.listSummaries();
    assert.deepEqual(listed.runs.map((r) => r.id), ["agent-good"]);
    assert.deepEqual(listed.diagnostics.map((d) => [d.id, d.code]), [["agent-bad", "invalid_json"]]);
  });
}

function hasCode(code: string): (e: unknown) => boolean {
  return (e) => {
    assert.ok(e instanceof BladeError, `expected a BladeError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    return true;
  };
}
