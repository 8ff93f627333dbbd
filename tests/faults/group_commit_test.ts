// Fault suite, group commit: `blade tasks recover` reconciles 24 orphans (dead owner, open turn) as one
// group commit (lib/store/group_commit.ts: every temp file written and fsynced, all renamed, the folder
// fsynced once) and is SIGKILLed at the group's own points — before its first rename, between two
// renames, before its last, and mid-way through staging a temp file (torn) — through the kill points of
// tests/support/faulty_main.ts. After each kill every sidecar is whole and either byte-identical to its
// old version or recovered (exactly as many as renames went through); a plain `blade tasks recover`
// then recovers the rest with one turn-closing event per transcript, and a third pass changes no byte.

import assert from "node:assert/strict";
import { projectFolderName } from "../../lib/config/storage.ts";
import { type BladeSandbox, bladeSandbox, SOURCES_ONLY } from "../support/blade.ts";
import { FileSidecarStore } from "../../lib/store/file_store.ts";
import { decodeSidecar } from "../../lib/store/codec.ts";
import { realPorts } from "../../lib/sys/mod.ts";
import { storageLayout } from "../../lib/config/storage.ts";
import { parseTranscript, TranscriptWriter } from "../../lib/session/transcript.ts";
import { messageEvents } from "../../lib/session/events.ts";
import { sidecarFixture } from "../../lib/testing/sidecar_fixtures.ts";
import { printSummary } from "./summary.ts";

const FAULTY_MAIN = decodeURIComponent(new URL("../support/faulty_main.ts", import.meta.url).pathname);
const ORPHANS = 24;
/** A PID no process has here (above the default pid_max): every owner is dead. */
const DEAD_PID = 4_194_304 + 23;
const IDENTITY = { platform: "linux" as const, fingerprint: "f".repeat(64) };
const SIDECAR = "/agents/sessions/agent-orphan-";

async function plantOrphans(sandbox: BladeSandbox): Promise<Map<string, string>> {
  const ports = realPorts();
  const layout = storageLayout(sandbox.storage);
  const store = new FileSidecarStore({ fs: ports.fs, clock: ports.clock, storageRoot: sandbox.storage });
  const old = new Map<string, string>();
  for (let i = 0; i < ORPHANS; i++) {
    const id = `agent-orphan-${String(i).padStart(2, "0")}`;
    await store.save(sidecarFixture(id, {
      messages: [],
      processId: DEAD_PID,
      processIdentity: IDENTITY,
      parentProjectPath: sandbox.workspace,
      workspaceRoot: sandbox.workspace,
    }));
    const writer = new TranscriptWriter({
      fs: ports.fs,
      clock: ports.clock,
      ids: ports.ids,
      path: layout.transcriptPath(sandbox.workspace, id),
      sessionId: id,
      projectPath: sandbox.workspace,
    });
    await writer.append([
      { type: "session_created", data: { agentType: "general-purpose", model: "m", depth: 1 } },
      { type: "turn_started", data: { turn: 1 } },
      ...messageEvents(ports.ids, { role: "user", content: [{ type: "text", text: `task ${i}` }] }),
      ...messageEvents(ports.ids, { role: "assistant", content: [{ type: "text", text: `working ${i}` }] }),
    ]);
    old.set(id, await Deno.readTextFile(store.pathOf(id)));
  }
  return old;
}

/** Every file under the storage root: path → bytes as text. */
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

interface KillPoint {
  name: string;
  env: Record<string, string>;
  /** Sidecars recovered by the killed pass (renames that went through). */
  recovered: number;
}

async function killAndRecover(point: KillPoint) {
  await using sandbox = await bladeSandbox();
  const old = await plantOrphans(sandbox);
  const killed = await (await sandbox.spawn(["tasks", "recover", "--json"], {
    entry: FAULTY_MAIN,
    processGroup: true,
    env: { BLADE_KILL_PATH: SIDECAR, ...point.env },
  })).result;
  assert.equal(
    killed.code,
    128 + 9,
    `${point.name}: not killed at its point\n${killed.stdout}\n${killed.stderr}`,
  );
  // Every record whole: its old bytes, or its recovered version.
  let recovered = 0;
  for (const [id, before] of old) {
    const text = await Deno.readTextFile(`${sandbox.storage}/agents/sessions/${id}.json`);
    const decoded = decodeSidecar(text, id);
    assert.ok("record" in decoded, `${point.name}: ${id} is torn or invalid`);
    if (text === before) continue;
    assert.notEqual(decoded.record.status, "running", `${point.name}: ${id} changed but is not recovered`);
    recovered++;
  }
  assert.equal(recovered, point.recovered, `${point.name}: renames that went through`);
  // The next pass recovers the rest; each transcript's turn is closed once.
  const next = await sandbox.run(["tasks", "recover", "--json"]);
  assert.equal(next.code, 0, `${point.name}: ${next.stdout}\n${next.stderr}`);
  const dir = `${sandbox.storage}/projects/${projectFolderName(sandbox.workspace)}`;
  for (const id of old.keys()) {
    const decoded = decodeSidecar(
      await Deno.readTextFile(`${sandbox.storage}/agents/sessions/${id}.json`),
      id,
    );
    assert.ok("record" in decoded && decoded.record.status === "failed", `${point.name}: ${id} recovered`);
    assert.equal(decoded.record.restartRecovery?.outcome, "interrupted", `${point.name}: ${id}`);
    const read = parseTranscript(await Deno.readTextFile(`${dir}/${id}.jsonl`));
    assert.deepEqual(read.diagnostics, [], `${point.name}: ${id}'s transcript is clean`);
    const closes = read.events.filter((e) => e.type === "turn_aborted" || e.type === "turn_completed");
    assert.equal(closes.length, 1, `${point.name}: ${id}'s turn is closed exactly once`);
  }
  // Reconciling again changes nothing: every file byte-identical.
  const before = await snapshot(sandbox.storage);
  const again = await sandbox.run(["tasks", "recover", "--json"]);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(await snapshot(sandbox.storage), before, `${point.name}: a third pass changed files`);
  return recovered;
}

Deno.test({
  ...SOURCES_ONLY,
  name:
    `group commit: SIGKILLs before, between and after the renames of ${ORPHANS} orphans leave no torn record`,
  // Each point is three real `blade tasks recover` runs (~1 s each); two run at once.
  async fn() {
    const points: KillPoint[] = [
      { name: "before the first rename", env: { BLADE_KILL_AT_RENAME: "1" }, recovered: 0 },
      { name: "between two renames", env: { BLADE_KILL_AT_RENAME: "13" }, recovered: 12 },
      {
        name: "before the last rename",
        env: { BLADE_KILL_AT_RENAME: String(ORPHANS) },
        recovered: ORPHANS - 1,
      },
      {
        name: "mid-way through a staged temp file",
        env: { BLADE_KILL_AT_WRITE: "7", BLADE_KILL_TORN_BYTES: "40" },
        recovered: 0,
      },
    ];
    let next = 0;
    const lane = async () => {
      while (next < points.length) await killAndRecover(points[next++]!);
    };
    await Promise.all([lane(), lane()]);
    printSummary("group commit", [
      `${points.length} kills inside one group commit of ${ORPHANS} orphans: torn records 0, ` +
      `turns closed twice 0, third pass byte-identical`,
    ]);
  },
});
