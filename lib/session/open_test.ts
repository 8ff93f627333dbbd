import assert from "node:assert/strict";
import { BladeError } from "../errors.ts";
import { storageLayout } from "../config/storage.ts";
import { type Ports, realPorts } from "../sys/mod.ts";
import { FakeClock, sequentialIds } from "../testing/fakes.ts";
import { openSession } from "./open.ts";
import { readTranscript } from "./transcript.ts";

const WORKSPACE = "/home/dev/project";

async function withStorage(fn: (ports: Ports, layout: ReturnType<typeof storageLayout>) => Promise<void>) {
  const root = await Deno.makeTempDir({ prefix: "blade-open-" });
  try {
    const ports: Ports = { ...realPorts(), clock: new FakeClock(), ids: sequentialIds() };
    await fn(ports, storageLayout(root));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

const isCode = (code: string) => (e: unknown) => e instanceof BladeError && e.code === code;

Deno.test("a fresh session gets a new id and session_created as its first line", async () => {
  await withStorage(async (ports, layout) => {
    const opened = await openSession(ports, { layout, workspace: WORKSPACE, model: "m1" });
    assert.equal(opened.sessionId, "session-000000000000000000001");
    assert.equal(opened.resumed, false);
    assert.deepEqual(opened.history.messages, []);
    const read = await readTranscript(ports.fs, layout.transcriptPath(WORKSPACE, opened.sessionId));
    assert.deepEqual(read?.events.map((e) => [e.seq, e.type, e.data]), [
      [1, "session_created", { agentType: "main", model: "m1", depth: 0 }],
    ]);
  });
});

Deno.test("deferCreated: a fresh session writes nothing yet and hands session_created to its first turn", async () => {
  await withStorage(async (ports, layout) => {
    const opened = await openSession(ports, {
      layout,
      workspace: WORKSPACE,
      model: "m1",
      deferCreated: true,
    });
    assert.deepEqual(opened.prelude, [{
      type: "session_created",
      data: { agentType: "main", model: "m1", depth: 0 },
    }]);
    const path = layout.transcriptPath(WORKSPACE, opened.sessionId);
    assert.equal(await readTranscript(ports.fs, path), null);
    await opened.transcript.append([...opened.prelude!, { type: "turn_started", data: { turn: 1 } }]);
    const read = await readTranscript(ports.fs, path);
    assert.deepEqual(read?.events.map((e) => [e.seq, e.type]), [[1, "session_created"], [2, "turn_started"]]);
  });
});

Deno.test("--resume and --continue reopen a session of this folder and rebuild its history", async () => {
  await withStorage(async (ports, layout) => {
    const first = await openSession(ports, { layout, workspace: WORKSPACE, model: "m1" });
    await first.transcript.append([
      { type: "turn_started", data: { turn: 1 } },
      { type: "message_created", data: { messageId: "msg-1", role: "user" } },
      {
        type: "part_created",
        data: { messageId: "msg-1", partId: "p1", part: { type: "text", text: "hi" } },
      },
    ]);
    const resumed = await openSession(ports, {
      layout,
      workspace: WORKSPACE,
      model: "m1",
      resume: first.sessionId,
    });
    assert.equal(resumed.sessionId, first.sessionId);
    assert.equal(resumed.resumed, true);
    assert.deepEqual(resumed.history.messages, [{ role: "user", content: [{ type: "text", text: "hi" }] }]);
    assert.equal(resumed.history.openTurn, 1);
    const latest = await openSession(ports, {
      layout,
      workspace: WORKSPACE,
      model: "m1",
      continueLatest: true,
    });
    assert.equal(latest.sessionId, first.sessionId);
  });
});

Deno.test("nothing to continue starts a fresh session (as Claude Code's -c), a fork too", async () => {
  await withStorage(async (ports, layout) => {
    const fresh = await openSession(ports, {
      layout,
      workspace: WORKSPACE,
      model: "m",
      continueLatest: true,
    });
    assert.equal(fresh.resumed, false);
    assert.deepEqual(fresh.history.messages, []);
    const forked = await openSession(ports, {
      layout,
      workspace: "/home/dev/elsewhere",
      model: "m",
      continueLatest: true,
      fork: true,
    });
    assert.equal(forked.resumed, false);
  });
});

Deno.test("--continue passes over newer sessions without a turn: opened and left, or a start that crashed", async () => {
  await withStorage(async (ports, layout) => {
    const used = await openSession(ports, { layout, workspace: WORKSPACE, model: "m1" });
    await used.transcript.append([{ type: "turn_started", data: { turn: 1 } }]);
    const left = await openSession(ports, { layout, workspace: WORKSPACE, model: "m1" });
    const crashed = layout.transcriptPath(WORKSPACE, "session-crashedstart000000000");
    await Deno.writeTextFile(crashed, "");
    // Newest first: the crashed start, then the session left without a prompt, then the used one.
    await Deno.utime(layout.transcriptPath(WORKSPACE, used.sessionId), 1_000, 1_000);
    await Deno.utime(layout.transcriptPath(WORKSPACE, left.sessionId), 2_000, 2_000);
    await Deno.utime(crashed, 3_000, 3_000);
    const latest = await openSession(ports, {
      layout,
      workspace: WORKSPACE,
      model: "m1",
      continueLatest: true,
    });
    assert.equal(latest.sessionId, used.sessionId);
    assert.equal(latest.history.openTurn, 1);
  });
});

Deno.test("a session of another folder or an unknown id are clear errors", async () => {
  await withStorage(async (ports, layout) => {
    const other = await openSession(ports, { layout, workspace: "/home/dev/other", model: "m" });
    await assert.rejects(
      openSession(ports, { layout, workspace: WORKSPACE, model: "m", resume: other.sessionId }),
      (e) =>
        isCode("no_session")(e) && /was not found in this workspace/.test((e as Error).message) &&
        // The hint names this folder's sessions under the storage root in use, wherever it is.
        (e as BladeError).hint?.includes(layout.projectDir(WORKSPACE)) === true,
    );
    await assert.rejects(
      openSession(ports, { layout, workspace: WORKSPACE, model: "m", resume: "../escape" }),
      isCode("invalid_session_id"),
    );
  });
});

Deno.test("--session-id names a new session once; --fork-session copies without touching the original", async () => {
  await withStorage(async (ports, layout) => {
    const id = "0b7c5a58-4a3e-4c1c-9d7e-0a6f3c2b1d00";
    const named = await openSession(ports, { layout, workspace: WORKSPACE, model: "m", sessionId: id });
    assert.equal(named.sessionId, id);
    await assert.rejects(
      openSession(ports, { layout, workspace: WORKSPACE, model: "m", sessionId: id }),
      isCode("session_exists"),
    );
    // Nothing to fork (no --resume or --continue): a new session, as Claude Code does (print mode warns).
    const alone = await openSession(ports, { layout, workspace: WORKSPACE, model: "m", fork: true });
    assert.equal(alone.resumed, false);
    const before = await Deno.readTextFile(layout.transcriptPath(WORKSPACE, id));
    const fork = await openSession(ports, {
      layout,
      workspace: WORKSPACE,
      model: "m",
      resume: id,
      fork: true,
    });
    assert.notEqual(fork.sessionId, id);
    assert.equal(fork.resumed, true);
    const copied = await readTranscript(ports.fs, layout.transcriptPath(WORKSPACE, fork.sessionId));
    assert.deepEqual(copied?.events.map((e) => e.type), ["session_created"]);
    assert.equal(await Deno.readTextFile(layout.transcriptPath(WORKSPACE, id)), before);
  });
});
