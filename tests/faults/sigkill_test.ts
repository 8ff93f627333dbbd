// Fault suite, SIGKILL: a delegation run (a foreground child and two background children, each reading
// the folder before answering) is SIGKILLed — its whole process group — at a chosen write: the n-th
// sidecar write, transcript append or lease write of the run, before it, or with an append torn after a
// few bytes. The points are drawn from a seeded generator over the writes a clean run makes (44-46 here:
// heartbeats vary), so a seed gives the same points wherever a clean run makes as many writes
// (tests/support/faulty_main.ts counts the writes; children run in its thread). Then
// the session is continued with `--resume` by the normal CLI (children in Workers). After each: no
// committed transcript line lost, no torn sidecar, no bad line other than the torn tail the kill left
// (kept apart), nothing left running, every background notice delivered exactly once, and the
// restart succeeds. BLADE_KILL_LOOP=<n> sets the number of kills (default 6; the figure is 50),
// BLADE_KILL_SEED the seed. Time-based kills of the default (Worker) mode: tests/e2e_crash_test.ts.

import assert from "node:assert/strict";
import { type BladeSandbox, bladeSandbox } from "../support/blade.ts";
import {
  badTranscriptLines,
  lostLines,
  mainSessionId,
  receipts,
  scriptedArgs,
  sidecarFiles,
  transcripts,
  writeScript,
} from "../support/crash.ts";
import { printSummary } from "./summary.ts";

const FAULTY_MAIN = decodeURIComponent(new URL("../support/faulty_main.ts", import.meta.url).pathname);
const KILLS = Number(Deno.env.get("BLADE_KILL_LOOP") ?? "6");
const SEED = Number(Deno.env.get("BLADE_KILL_SEED") ?? "18");
const LANES = 2;

const task = (id: string, prompt: string, background: boolean) => ({
  name: "Task",
  input: {
    subagent_type: "general-purpose",
    description: background ? "bg child" : "fg child",
    prompt,
    subagent_session_id: id,
    ...(background ? { run_in_background: true } : {}),
  },
});

const SCRIPT = {
  agents: {
    main: [{
      repeat_last: true,
      turns: [
        {
          tool_calls: [
            task("agent-kill-fg", "Foreground: answer.", false),
            task("agent-kill-bg1", "Background one: answer.", true),
            task("agent-kill-bg2", "Background two: answer.", true),
          ],
        },
        { text: "main waits" },
        { text: "parent done" },
      ],
    }],
    "general-purpose": [{
      repeat_last: true,
      turns: [
        { text: "read first", tool_calls: [{ name: "Glob", input: { pattern: "*" } }] },
        { text: "child answer" },
      ],
    }],
  },
};

const CALM = {
  agents: {
    main: [{ repeat_last: true, turns: [{ text: "parent done" }] }],
    "general-purpose": [{ repeat_last: true, turns: [{ text: "child answer" }] }],
  },
};

/** mulberry32: a small seeded generator, so the kill points of a seed are always the same. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface KillPoint {
  write: number;
  tornBytes: number;
}

function faultyRun(sandbox: BladeSandbox, script: string, env: Record<string, string>) {
  return sandbox.spawn(scriptedArgs(script, "Delegate."), {
    entry: FAULTY_MAIN,
    processGroup: true,
    env: { BLADE_CHILD_SANDBOX: "none", ...env },
  });
}

/** How many writes a clean run makes (the range kill points are drawn from). */
async function writesOfCleanRun(): Promise<number> {
  await using sandbox = await bladeSandbox();
  const script = await writeScript(sandbox, "script", SCRIPT);
  const report = `${sandbox.root}/report.json`;
  const run = await (await faultyRun(sandbox, script, { BLADE_FAULT_REPORT: report })).result;
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  return (JSON.parse(await Deno.readTextFile(report)) as { writes: number }).writes;
}

const ZERO = {
  kills: 0,
  killedAtWrite: 0,
  tornTails: 0,
  runningAtKill: 0,
  lost: 0,
  tornSidecars: 0,
  badLines: 0,
  duplicate: 0,
  missing: 0,
  stillRunning: 0,
  restartFailed: 0,
};
type Figures = typeof ZERO;

async function killOnce(point: KillPoint): Promise<Figures> {
  const f = { ...ZERO, kills: 1 };
  await using sandbox = await bladeSandbox();
  const script = await writeScript(sandbox, "script", SCRIPT);
  const blade = await faultyRun(sandbox, script, {
    BLADE_KILL_AT_WRITE: String(point.write),
    BLADE_KILL_TORN_BYTES: String(point.tornBytes),
  });
  const killed = await blade.result;
  if (killed.code === 137 || killed.code === 128 + 9) f.killedAtWrite = 1;
  const before = await transcripts(sandbox);
  for (const text of before.values()) if (text !== "" && !text.endsWith("\n")) f.tornTails++;
  const atKill = await sidecarFiles(sandbox);
  f.tornSidecars += atKill.torn.length;
  f.runningAtKill = atKill.records.filter((r) => r.status === "running").length;
  const session = await mainSessionId(sandbox);
  if (session === undefined) return f; // killed before the session's first line
  const calm = await writeScript(sandbox, "calm", CALM);
  const run = await sandbox.run(scriptedArgs(calm, "Carry on.", ["--resume", session]));
  if (run.code !== 0) f.restartFailed++;
  const after = await transcripts(sandbox);
  f.lost += lostLines(before, after);
  f.badLines += badTranscriptLines(before, after);
  const { records, torn } = await sidecarFiles(sandbox);
  f.tornSidecars += torn.length;
  f.stillRunning += records.filter((r) => r.status === "running").length;
  const got = receipts(after.get(`${session}.jsonl`) ?? "");
  for (const r of records.filter((r) => r.background)) {
    const n = got.get(`background-subagent-completion:${r.id}`) ?? 0;
    if (n === 0) f.missing++;
    if (n > 1) f.duplicate += n - 1;
  }
  return f;
}

Deno.test({
  name: `sigkill: ${KILLS} kills at seeded write points (seed ${SEED}) lose nothing committed and recover`,
  // Slow loop: each kill is two real runs (~1 s); the always-on count is small, BLADE_KILL_LOOP=50 the full one.
  async fn() {
    const writes = await writesOfCleanRun();
    assert.ok(writes > 10, `a clean run makes writes (${writes})`);
    const random = seeded(SEED);
    const points: KillPoint[] = Array.from({ length: KILLS }, () => ({
      write: 1 + Math.floor(random() * writes),
      tornBytes: random() < 0.5 ? 0 : 1 + Math.floor(random() * 200),
    }));
    const total = { ...ZERO };
    let next = 0;
    const lane = async () => {
      while (next < points.length) {
        const f = await killOnce(points[next++]!);
        for (const k of Object.keys(f) as (keyof Figures)[]) total[k] += f[k];
      }
    };
    await Promise.all(Array.from({ length: LANES }, lane));
    printSummary("SIGKILL", [
      `${total.kills} kills at seeded write points (seed ${SEED}, ${writes} writes per clean run)`,
      `killed at their write ${total.killedAtWrite}, torn tails left ${total.tornTails}, children running at kill ${total.runningAtKill}`,
      `lost lines ${total.lost}, torn sidecars ${total.tornSidecars}, bad lines ${total.badLines}`,
      `notices missing ${total.missing}, duplicated ${total.duplicate}, left running ${total.stillRunning}, restarts failed ${total.restartFailed}`,
    ]);
    assert.deepEqual(
      {
        lost: total.lost,
        tornSidecars: total.tornSidecars,
        badLines: total.badLines,
        duplicate: total.duplicate,
        missing: total.missing,
        stillRunning: total.stillRunning,
        restartFailed: total.restartFailed,
        killedAtWrite: total.killedAtWrite,
      },
      {
        lost: 0,
        tornSidecars: 0,
        badLines: 0,
        duplicate: 0,
        missing: 0,
        stillRunning: 0,
        restartFailed: 0,
        killedAtWrite: total.kills,
      },
    );
  },
});
