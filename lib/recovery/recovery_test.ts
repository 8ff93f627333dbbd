// The apply step of crash recovery on real files, with a scripted Process port (which PIDs live) and a
// fake clock: orphans are closed and committed, live owners are left alone, a held lease is skipped,
// corrupt files are reported, background orphans reach their parent's inbox, and a second pass changes
// nothing (every file byte-identical).

import assert from "node:assert/strict";
import { reconcile, runningTree } from "./recovery.ts";
import { MemorySidecarStore } from "../store/memory_store.ts";
import { FakeClock, FakeProcess, sequentialIds } from "../testing/fakes.ts";
import { realFs } from "../sys/fs.ts";
import { storageLayout } from "../config/storage.ts";
import { FileSidecarStore } from "../store/file_store.ts";
import { FIXTURE_OWNER, sidecarFixture } from "../testing/sidecar_fixtures.ts";
import type { Ports } from "../sys/mod.ts";
import { fakeEnv } from "../testing/fakes.ts";
import { TranscriptWriter } from "../session/transcript.ts";
import { messageEvents } from "../session/events.ts";
import { acquireLease } from "../session/lease.ts";
import { Inbox } from "../session/inbox.ts";
import { gitRepo } from "../testing/git_repo.ts";
import { prepareWorktree } from "../worktree/lifecycle.ts";
import { realProcess } from "../sys/process.ts";
import { realPorts } from "../sys/mod.ts";
import type { SidecarRecord } from "../store/schema.ts";

const DEAD = 301;
const LIVE = 302;
const IDENTITY = { platform: "linux" as const, fingerprint: "d".repeat(64) };

async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (d: string) => {
    for await (const e of Deno.readDir(d)) {
      const p = `${d}/${e.name}`;
      if (e.isDirectory) await walk(p);
      else out.set(p, await Deno.readTextFile(p));
    }
  };
  await walk(dir);
  return out;
}

async function world() {
  const root = await Deno.makeTempDir({ prefix: "blade-recovery-" });
  const clock = new FakeClock();
  const process = new FakeProcess({ pid: 4242 });
  process.spawnFake(LIVE, IDENTITY);
  const ports: Ports = { fs: realFs(), clock, process, ids: sequentialIds(), env: fakeEnv({}, { cwd: "/" }) };
  const layout = storageLayout(root);
  const store = new FileSidecarStore({ fs: ports.fs, clock, storageRoot: root });
  const transcript = (id: string) =>
    new TranscriptWriter({
      fs: ports.fs,
      clock,
      ids: ports.ids,
      path: layout.transcriptPath(FIXTURE_OWNER.parentProjectPath, id),
      sessionId: id,
      projectPath: FIXTURE_OWNER.parentProjectPath,
    });
  return { root, clock, process, ports, layout, store, transcript };
}

Deno.test("reconcile: orphans closed and committed, others left alone, second pass byte-identical", async () => {
  const w = await world();
  try {
    const owned = { processId: DEAD, processIdentity: IDENTITY };
    // a: killed mid-turn; b: final answer written, turn_completed not; c: live owner; d: PID-less, stale;
    // e: background child killed mid-turn; f: no transcript at all.
    for (const id of ["agent-a", "agent-b", "agent-c", "agent-d", "agent-e", "agent-f"]) {
      await w.store.create(sidecarFixture(id, {
        messages: [],
        ...(id === "agent-c"
          ? { processId: LIVE, processIdentity: IDENTITY }
          : id === "agent-d"
          ? {}
          : owned),
        ...(id === "agent-e" ? { background: true } : {}),
      }));
    }
    for (const id of ["agent-a", "agent-b", "agent-c", "agent-d", "agent-e"]) {
      await w.transcript(id).append([
        { type: "session_created", data: { agentType: "general-purpose", model: "m", depth: 1 } },
        { type: "turn_started", data: { turn: 1 } },
        ...messageEvents(w.ports.ids, {
          role: "user",
          content: [{ type: "text", text: "Find every place." }],
        }),
      ]);
    }
    await w.transcript("agent-b").append(
      messageEvents(w.ports.ids, { role: "assistant", content: [{ type: "text", text: "Three places." }] }, {
        final: true,
      }),
    );
    await Deno.writeTextFile(`${w.layout.sessionsDir}/agent-bad.json`, "{broken");
    w.clock.advance(30 * 60 * 1000 + 1); // past the documented 30 minutes (docs/reference/recovery.md)
    const deps = { ports: w.ports, store: w.store, layout: w.layout };
    const report = await reconcile(deps, () => true);
    assert.deepEqual(report.recovered.map((r) => [r.id, r.reason, r.outcome]).sort(), [
      ["agent-a", "owner_dead", "interrupted"],
      ["agent-b", "owner_dead", "completed"],
      ["agent-d", "inactive", "interrupted"],
      ["agent-e", "owner_dead", "interrupted"],
      ["agent-f", "owner_dead", "failed"],
    ]);
    assert.deepEqual(report.problems.map((p) => p.id), ["agent-bad"]);
    const load = async (id: string) =>
      ((await w.store.load(id)) as { record: ReturnType<typeof sidecarFixture> }).record;
    assert.equal((await load("agent-c")).status, "running");
    const b = await load("agent-b");
    assert.deepEqual([b.status, b.result, b.processId, b.restartRecovery?.outcome], [
      "completed",
      { success: true, message: "Three places." },
      undefined,
      "completed",
    ]);
    const a = await load("agent-a");
    assert.deepEqual([a.status, a.restartRecovery?.outcome], ["failed", "interrupted"]);
    const aText = await Deno.readTextFile(
      w.layout.transcriptPath(FIXTURE_OWNER.parentProjectPath, "agent-a"),
    );
    assert.match(aText.trimEnd().split("\n").at(-1)!, /"type":"turn_aborted".*"cause":"process_restart"/);
    const bText = await Deno.readTextFile(
      w.layout.transcriptPath(FIXTURE_OWNER.parentProjectPath, "agent-b"),
    );
    assert.match(bText.trimEnd().split("\n").at(-1)!, /"type":"turn_completed"/);
    // The background orphan's notice is in its parent's inbox.
    const inbox = new Inbox({
      fs: w.ports.fs,
      clock: w.clock,
      path: w.layout.inboxPath(FIXTURE_OWNER.parentProjectPath, FIXTURE_OWNER.parentSessionId),
    });
    assert.deepEqual((await inbox.pending()).map((e) => e.inboxId), [
      "background-subagent-completion:agent-e",
    ]);
    // Idempotence: a second pass (later) changes no byte anywhere.
    const before = await snapshot(w.root);
    w.clock.advance(60_000);
    const again = await reconcile(deps, () => true);
    assert.deepEqual(again.recovered, []);
    assert.deepEqual(await snapshot(w.root), before);
  } finally {
    await Deno.remove(w.root, { recursive: true });
  }
});

Deno.test("reconcile: another machine's run (a shared store) is judged by its heartbeat, never by a PID here", async () => {
  const w = await world();
  try {
    // The same dead PID here; on another machine it may be alive. fakeEnv's machine is "test-host".
    const dead = { processId: DEAD, processIdentity: IDENTITY };
    await w.store.create(sidecarFixture("agent-there", { messages: [], ...dead, machine: "build-7" }));
    await w.store.create(sidecarFixture("agent-here", { messages: [], ...dead, machine: "test-host" }));
    const deps = { ports: w.ports, store: w.store, layout: w.layout };
    const first = await reconcile(deps, () => true);
    assert.deepEqual(first.recovered.map((r) => [r.id, r.reason]), [["agent-here", "owner_dead"]]);
    // Its heartbeat stopped half an hour ago: then it is an orphan, as a PID-less run is (the documented
    // 30 minutes, as a literal: docs/reference/recovery.md).
    w.clock.advance(30 * 60 * 1000 + 1);
    const later = await reconcile(deps, () => true);
    assert.deepEqual(later.recovered.map((r) => [r.id, r.reason]), [["agent-there", "inactive"]]);
  } finally {
    await Deno.remove(w.root, { recursive: true });
  }
});

Deno.test("reconcile: a placed remote child is left to its workers; one never placed is an orphan as any", async () => {
  const w = await world();
  try {
    const commit = "a".repeat(40);
    const placed = { baseCommit: commit, snapshotCommit: commit, subdir: "" };
    const dead = { processId: DEAD, processIdentity: IDENTITY, machine: "test-host" };
    await w.store.create(
      sidecarFixture("agent-queued", { messages: [], isolation: "remote", background: true, remote: placed }),
    );
    await w.store.create(
      sidecarFixture("agent-on-worker", {
        messages: [],
        isolation: "remote",
        background: true,
        remote: { ...placed, worker: "test-host/999", attempts: 1 },
        ...dead,
      }),
    );
    // Its parent died before the snapshot was placed: nobody will run it.
    await w.store.create(
      sidecarFixture("agent-unplaced", { messages: [], isolation: "remote", background: true, ...dead }),
    );
    w.clock.advance(30 * 60 * 1000 + 1);
    const report = await reconcile({ ports: w.ports, store: w.store, layout: w.layout }, () => true);
    assert.deepEqual(report.recovered.map((r) => [r.id, r.reason]), [["agent-unplaced", "owner_dead"]]);
  } finally {
    await Deno.remove(w.root, { recursive: true });
  }
});

Deno.test("reconcile from a checkout: another checkout's orphan is left alone unless its transcript or its parent's is here; this one's fails without it", async () => {
  const w = await world();
  try {
    // A shared store's storage root that never held a record: no sessions folder yet.
    await Deno.remove(w.layout.sessionsDir, { recursive: true }).catch(() => {});
    const dead = { messages: [], processId: DEAD, processIdentity: IDENTITY, machine: "test-host" };
    const elsewhere = { parentProjectPath: "/builds/42/project", workspaceRoot: "/builds/42/project" };
    const other = new MemorySidecarStore({ clock: w.clock });
    await other.create(sidecarFixture("agent-away", { ...dead, ...elsewhere }));
    await other.create(sidecarFixture("agent-kept", { ...dead, ...elsewhere }));
    await other.create(sidecarFixture("agent-mine", dead));
    // Stopped before it wrote a transcript, but its parent session's is here: this root is its own.
    const early = { ...elsewhere, parentSessionId: "session-early0000000000000001" };
    await other.create(sidecarFixture("agent-early", { ...dead, ...early }));
    await Deno.mkdir(w.layout.transcriptPath(elsewhere.parentProjectPath, "x").replace(/\/x\.jsonl$/, ""), {
      recursive: true,
    });
    await Deno.writeTextFile(w.layout.transcriptPath(elsewhere.parentProjectPath, early.parentSessionId), "");
    // The other checkout's transcript of agent-kept is in this storage root (one machine, one root).
    const kept = new TranscriptWriter({
      fs: w.ports.fs,
      clock: w.clock,
      ids: w.ports.ids,
      path: w.layout.transcriptPath(elsewhere.parentProjectPath, "agent-kept"),
      sessionId: "agent-kept",
      projectPath: elsewhere.parentProjectPath,
    });
    await kept.append([
      { type: "session_created", data: { agentType: "general-purpose", model: "m", depth: 1 } },
      { type: "turn_started", data: { turn: 1 } },
      ...messageEvents(w.ports.ids, { role: "user", content: [{ type: "text", text: "Find every place." }] }),
    ]);
    const deps = {
      ports: w.ports,
      store: other,
      layout: w.layout,
      checkout: FIXTURE_OWNER.parentProjectPath,
    };
    const report = await reconcile(deps, () => true);
    assert.deepEqual(report.skipped, [{
      id: "agent-away",
      reason: "its transcript is kept by the checkout at /builds/42/project on test-host",
    }]);
    assert.deepEqual(report.recovered.map((r) => r.id).sort(), ["agent-early", "agent-kept", "agent-mine"]);
    const status = async (id: string) => {
      const l = await other.load(id);
      return l !== null && "record" in l ? [l.record.status, l.record.restartRecovery?.outcome] : null;
    };
    assert.deepEqual(await status("agent-away"), ["running", undefined]);
    assert.deepEqual(await status("agent-kept"), ["failed", "interrupted"]);
    // This checkout's own run without a transcript fails, as before (its history cannot be trusted),
    // and so does the other checkout's whose parent's transcript is here.
    assert.deepEqual(await status("agent-mine"), ["failed", "failed"]);
    assert.deepEqual(await status("agent-early"), ["failed", "failed"]);
  } finally {
    await Deno.remove(w.root, { recursive: true });
  }
});

Deno.test("reconcile: an orphan whose lease a live process holds is skipped", async () => {
  const w = await world();
  try {
    await w.store.create(sidecarFixture("agent-x", { processId: DEAD, processIdentity: IDENTITY }));
    const other = new FakeProcess({ pid: LIVE });
    other.spawnFake(LIVE, IDENTITY);
    const lease = await acquireLease({ fs: w.ports.fs, process: other, clock: w.clock, layout: w.layout }, {
      projectPath: FIXTURE_OWNER.parentProjectPath,
      sessionId: "agent-x",
    });
    const report = await reconcile({ ports: w.ports, store: w.store, layout: w.layout }, () => true);
    assert.deepEqual(report.skipped, [{ id: "agent-x", reason: `its session is in use by process ${LIVE}` }]);
    await lease.release();
  } finally {
    await Deno.remove(w.root, { recursive: true });
  }
});

Deno.test("runningTree: running children and grandchildren, through ended parents, same folder only", async () => {
  const store = new MemorySidecarStore({ clock: new FakeClock() });
  const r = (
    id: string,
    parent: string,
    status: "running" | "completed",
    path = FIXTURE_OWNER.parentProjectPath,
  ) => sidecarFixture(id, { parentSessionId: parent, parentProjectPath: path, status });
  const records = [
    r("agent-1", "session-s", "running"),
    r("agent-2", "agent-1", "completed"),
    r("agent-3", "agent-2", "running"), // its parent ended: still of the tree
    r("agent-4", "session-t", "running"),
    r("agent-5", "session-s", "running", "/other"),
    r("agent-6", "agent-gone", "running"), // a parent that is no sidecar: another top-level session
    r("agent-7", "agent-8", "running"),
    r("agent-8", "agent-7", "completed"), // a cycle of hand-edited records ends
  ];
  for (const record of records) await store.save(record);
  const running = records.filter((x) => x.status === "running");
  const tree = await runningTree(store, {
    running,
    sessionId: "session-s",
    projectPath: FIXTURE_OWNER.parentProjectPath,
  });
  assert.deepEqual([...tree].sort(), ["agent-1", "agent-3"]);
});

Deno.test("reconcile: an orphan's recorded process groups still running as started are killed, once", async () => {
  const w = await world();
  try {
    const other = { platform: "linux" as const, fingerprint: "e".repeat(64) };
    w.process.spawnFake(7001, IDENTITY); // still the group the child started
    w.process.spawnFake(7002, other); // PID recycled since: never signalled
    await w.store.create(sidecarFixture("agent-g", {
      messages: [],
      processId: DEAD,
      processIdentity: IDENTITY,
      processGroups: [
        { pgid: 7001, identity: IDENTITY },
        { pgid: 7002, identity: IDENTITY },
        { pgid: 7003, identity: IDENTITY }, // exited
      ],
    }));
    // A live owner's groups are its own business.
    w.process.spawnFake(7004, IDENTITY);
    await w.store.create(sidecarFixture("agent-live", {
      processId: LIVE,
      processIdentity: IDENTITY,
      processGroups: [{ pgid: 7004, identity: IDENTITY }],
    }));
    const deps = { ports: w.ports, store: w.store, layout: w.layout };
    const report = await reconcile(deps, () => true);
    assert.deepEqual(report.recovered.map((r) => [r.id, r.outcome, r.killedGroups]), [
      ["agent-g", "failed", [7001]],
    ]);
    assert.deepEqual(w.process.killedGroups, [7001]);
    const loaded = await w.store.load("agent-g");
    assert.ok(loaded !== null && "record" in loaded);
    assert.equal(loaded.record.processGroups, undefined);
    const again = await reconcile(deps, () => true);
    assert.deepEqual([again.recovered, w.process.killedGroups], [[], [7001]]);
  } finally {
    await Deno.remove(w.root, { recursive: true });
  }
});

Deno.test("reconcile: an isolated orphan's clean completed worktree is removed; an interrupted one is kept and reported", async () => {
  await using repo = await gitRepo();
  const w = await world();
  try {
    // Liveness is scripted (the owner is dead); git is real.
    const real = realProcess();
    const fake = w.process;
    w.ports.process = {
      pid: () => fake.pid(),
      run: (c, a, o) => real.run(c, a, o),
      identity: (pid) => fake.identity(pid),
      isAlive: (pid, id) => fake.isAlive(pid, id),
      kill: (pid) => fake.kill(pid),
      ownGroupLeader: (pid) => fake.ownGroupLeader(pid),
      groupLeaderIdentity: (pgid) => fake.groupLeaderIdentity(pgid),
      killGroup: (pgid) => fake.killGroup(pgid),
      spawnDetached: (c, a, o) => fake.spawnDetached(c, a, o),
    };
    w.ports.env = realPorts().env;
    const lease = (id: string) =>
      prepareWorktree(repo.deps(w.clock), { workspaceRoot: repo.root, agentId: id });
    const done = await lease("agent-wt-done");
    const cut = await lease("agent-wt-cut");
    await Deno.writeTextFile(`${cut.worktreeRoot}/half.txt`, "half-done work\n");
    for (const [id, worktree] of [["agent-wt-done", done], ["agent-wt-cut", cut]] as const) {
      await w.store.create(sidecarFixture(id, {
        messages: [],
        processId: DEAD,
        processIdentity: IDENTITY,
        isolation: "worktree",
        workspaceRoot: worktree.workspaceRoot,
        worktree,
      }));
      await w.transcript(id).append([
        { type: "session_created", data: { agentType: "general-purpose", model: "m", depth: 1 } },
        { type: "turn_started", data: { turn: 1 } },
        ...messageEvents(w.ports.ids, { role: "user", content: [{ type: "text", text: "Do it." }] }),
      ]);
    }
    // agent-wt-done wrote its final answer (with the finalization receipt) before the kill.
    await w.transcript("agent-wt-done").append(
      messageEvents(w.ports.ids, { role: "assistant", content: [{ type: "text", text: "Done." }] }, {
        final: true,
      }),
    );
    const report = await reconcile({ ports: w.ports, store: w.store, layout: w.layout }, () => true);
    const byId = new Map(report.recovered.map((r) => [r.id, r]));
    assert.deepEqual(report.problems, []);
    assert.deepEqual([byId.get("agent-wt-done")?.outcome, byId.get("agent-wt-done")?.worktree?.state], [
      "completed",
      "removed",
    ]);
    const kept = byId.get("agent-wt-cut");
    assert.deepEqual([
      kept?.outcome,
      kept?.worktree?.state,
      kept?.worktree?.path,
      kept?.worktree?.kept_because,
    ], [
      "interrupted",
      "kept",
      cut.worktreeRoot,
      "the agent did not finish successfully",
    ]);
    assert.equal(await Deno.stat(done.worktreeRoot).then(() => true, () => false), false);
    assert.equal(await Deno.readTextFile(`${cut.worktreeRoot}/half.txt`), "half-done work\n");
    const load = async (id: string) => ((await w.store.load(id)) as { record: SidecarRecord }).record;
    assert.equal((await load("agent-wt-done")).worktree?.state, "removed");
    assert.deepEqual([
      (await load("agent-wt-cut")).worktree?.state,
      (await load("agent-wt-cut")).worktree?.changedFiles,
    ], [
      "kept",
      1,
    ]);
  } finally {
    await Deno.remove(w.root, { recursive: true });
  }
});
