import assert from "node:assert/strict";
import { BladeError } from "../errors.ts";
import { MemorySidecarStore } from "../store/memory_store.ts";
import { FakeClock, FakeProcess } from "../testing/fakes.ts";
import {
  FIXTURE_OWNER,
  FIXTURE_TIME,
  fullSidecarFixture,
  sidecarFixture,
} from "../testing/sidecar_fixtures.ts";
import { CANCELLED_BY_COMMAND, TaskAdmin } from "./task_admin.ts";

const HERE = FIXTURE_OWNER.parentProjectPath;
const ELSEWHERE = "/home/dev/other";
const DAY = 86_400_000;

async function setup(options: { all?: boolean } = {}) {
  const clock = new FakeClock(FIXTURE_TIME);
  const store = new MemorySidecarStore({ clock });
  const process = new FakeProcess();
  const admin = new TaskAdmin({ store, clock, process, workspace: HERE, ...options });
  await store.create(sidecarFixture("agent-mine"));
  await store.create(sidecarFixture("agent-theirs", { parentProjectPath: ELSEWHERE }));
  return { clock, store, process, admin };
}

Deno.test("list and find see this folder's runs only, unless all", async () => {
  const { admin, store, clock, process } = await setup();
  assert.deepEqual((await admin.list()).map((r) => r.id), ["agent-mine"]);
  assert.equal((await admin.find("agent-mine")).id, "agent-mine");
  await assert.rejects(
    admin.find("agent-theirs"),
    (e) => e instanceof BladeError && e.code === "task_not_found",
  );
  await assert.rejects(admin.find("agent-none"), /Unknown task ID: agent-none/);
  await assert.rejects(admin.find("../x"), (e) => e instanceof BladeError && e.code === "invalid_session_id");
  const all = new TaskAdmin({ store, clock, process, workspace: HERE, all: true });
  assert.deepEqual((await all.list()).map((r) => r.id).sort(), ["agent-mine", "agent-theirs"]);
});

Deno.test("with a project key, list and find see this project's runs from any checkout path", async () => {
  const KEY = "git:0123456789abcdef0123456789abcdef01234567";
  const clock = new FakeClock(FIXTURE_TIME);
  const store = new MemorySidecarStore({ clock });
  const process = new FakeProcess();
  await store.create(
    sidecarFixture("agent-ci", { parentProjectPath: "/ci/checkout", projectKey: KEY, machine: "ci-7" }),
  );
  await store.create(
    sidecarFixture("agent-sub", { parentProjectPath: "/ci/checkout/x", projectKey: `${KEY}:x` }),
  );
  await store.create(sidecarFixture("agent-old-here")); // before keys: this path
  await store.create(sidecarFixture("agent-old-there", { parentProjectPath: ELSEWHERE }));
  const keyed = new TaskAdmin({ store, clock, process, workspace: HERE, projectKey: KEY });
  assert.deepEqual((await keyed.list()).map((r) => r.id).sort(), ["agent-ci", "agent-old-here"]);
  assert.equal((await keyed.list()).find((r) => r.id === "agent-ci")?.machine, "ci-7");
  assert.equal((await keyed.find("agent-ci")).id, "agent-ci");
  await assert.rejects(
    keyed.find("agent-sub"),
    (e) => e instanceof BladeError && e.code === "task_not_found",
  );
  // Without a key (the file store), the path alone decides, as before.
  const byPath = new TaskAdmin({ store, clock, process, workspace: HERE });
  assert.deepEqual((await byPath.list()).map((r) => r.id), ["agent-old-here"]);
});

Deno.test("cancel marks a running run cancelled and says whether its owner process is alive", async () => {
  const { admin, store, process } = await setup();
  process.spawnFake(777, { platform: "linux", fingerprint: "a".repeat(64) });
  await store.update("agent-mine", {
    processId: 777,
    processIdentity: { platform: "linux", fingerprint: "a".repeat(64) },
  });
  assert.deepEqual(await admin.cancel("agent-mine"), { id: "agent-mine", kind: "cancelled", pid: 777 });
  const record = await admin.find("agent-mine");
  assert.equal(record.status, "cancelled");
  assert.deepEqual(record.result, { success: false, message: "", error: CANCELLED_BY_COMMAND });
  assert.equal(record.completedAt, FIXTURE_TIME);
  assert.deepEqual(await admin.cancel("agent-mine"), {
    id: "agent-mine",
    kind: "not_running",
    status: "cancelled",
  });
});

Deno.test("cancel of a run whose owner died (or whose PID was reused) reports no live process", async () => {
  const { admin, store, process } = await setup();
  process.spawnFake(778, { platform: "linux", fingerprint: "b".repeat(64) });
  await store.update("agent-mine", {
    processId: 778,
    processIdentity: { platform: "linux", fingerprint: "c".repeat(64) },
  });
  assert.deepEqual(await admin.cancel("agent-mine"), { id: "agent-mine", kind: "cancelled" });
});

Deno.test("wait returns at once with timeout 0 and polls until the run ends otherwise", async () => {
  const { admin, store, clock } = await setup();
  assert.equal((await admin.wait("agent-mine", 0)).status, "running");
  const waiting = admin.wait("agent-mine");
  while (clock.pendingSleepers === 0) await new Promise((r) => setTimeout(r, 0));
  await store.markCompleted("agent-mine", {
    status: "completed",
    result: { success: true, message: "done" },
    completedAt: clock.now(),
  });
  clock.advance(250);
  assert.equal((await waiting).status, "completed");
});

Deno.test("clean removes expired finished runs of every visible owner, none of another folder", async () => {
  const { admin, store, clock } = await setup();
  const done = {
    status: "completed" as const,
    result: { success: true, message: "ok" },
    completedAt: FIXTURE_TIME,
  };
  await store.create(
    sidecarFixture("agent-other-session", { parentSessionId: "session-second00000000000001" }),
  );
  for (const id of ["agent-mine", "agent-theirs", "agent-other-session"]) await store.markCompleted(id, done);
  await store.create(sidecarFixture("agent-still-running"));
  clock.advance(8 * DAY);
  assert.equal((await admin.clean(7 * DAY)).removed, 2);
  assert.deepEqual((await store.listAll()).records.map((r) => r.id).sort(), [
    "agent-still-running",
    "agent-theirs",
  ]);
});

Deno.test("worktreesRemoved marks the runs of any folder that kept a pruned worktree, and only those", async () => {
  const { admin, store } = await setup();
  const full = fullSidecarFixture("agent-kept-here");
  const lease = full.worktree!;
  const elsewhere = { ...lease, worktreeRoot: "/w/agent+y", workspaceRoot: "/w/agent+y" };
  await store.create(full);
  await store.create({ ...full, id: "agent-kept-there", parentProjectPath: ELSEWHERE });
  await store.create({ ...full, id: "agent-other-tree", worktree: elsewhere });
  await store.create({ ...full, id: "agent-was-removed", worktree: { ...lease, state: "removed" } });
  const before = await store.load("agent-was-removed");

  const out = await admin.worktreesRemoved([lease.worktreeRoot]);
  assert.deepEqual(out.failed, []);
  assert.deepEqual(out.updated.sort(), ["agent-kept-here", "agent-kept-there"]);
  for (const id of out.updated) {
    const r = await store.load(id);
    assert.ok(r !== null && "record" in r);
    assert.deepEqual(r.record.worktree, { ...lease, state: "removed" });
  }
  const other = await store.load("agent-other-tree");
  assert.ok(other !== null && "record" in other);
  assert.equal(other.record.worktree?.state, "kept");
  assert.deepEqual(await store.load("agent-was-removed"), before);
  assert.deepEqual(await admin.worktreesRemoved([]), { updated: [], failed: [] });
});
