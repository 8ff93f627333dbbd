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
import { type BladeSandbox, bladeSandbox, SOURCES_ONLY } from "../support/blade.ts";
import {
  addFigures,
  harm,
  noKillFigures,
  restartAfterKill,
  scriptedArgs,
  taskCall,
  writeScript,
} from "../support/crash.ts";
import { printSummary } from "./summary.ts";

const FAULTY_MAIN = decodeURIComponent(new URL("../support/faulty_main.ts", import.meta.url).pathname);
const KILLS = Number(Deno.env.get("BLADE_KILL_LOOP") ?? "6");
const SEED = Number(Deno.env.get("BLADE_KILL_SEED") ?? "18");
const LANES = 2;

const SCRIPT = {
  agents: {
    main: [{
      repeat_last: true,
      turns: [
        {
          tool_calls: [
            taskCall("Foreground: answer.", false),
            taskCall("Background one: answer.", true),
            taskCall("Background two: answer.", true),
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

/**
 * One kill and its restart. A run that made fewer writes than its point (the children's timing changes
 * how many turns the parent takes) ends by itself: counted apart, and only when its own count of writes
 * says so.
 */
async function killOnce(point: KillPoint) {
  await using sandbox = await bladeSandbox();
  const script = await writeScript(sandbox, "script", SCRIPT);
  const report = `${sandbox.root}/report.json`;
  const blade = await faultyRun(sandbox, script, {
    BLADE_KILL_AT_WRITE: String(point.write),
    BLADE_KILL_TORN_BYTES: String(point.tornBytes),
    BLADE_FAULT_REPORT: report,
  });
  const ended = await blade.result;
  const killedAtWrite = ended.code === 128 + 9 ? 1 : 0; // SIGKILL, not an exit of its own
  let finishedFirst = 0;
  if (killedAtWrite === 0) {
    const { writes } = JSON.parse(await Deno.readTextFile(report)) as { writes: number };
    assert.ok(writes < point.write, `not killed at write ${point.write} of ${writes}:\n${ended.stderr}`);
    assert.equal(ended.code, 0, ended.stderr);
    finishedFirst = 1;
  }
  return { killedAtWrite, finishedFirst, ...await restartAfterKill(sandbox, CALM) };
}

Deno.test({
  ...SOURCES_ONLY,
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
    const total = { kills: 0, killedAtWrite: 0, finishedFirst: 0, ...noKillFigures() };
    let next = 0;
    const lane = async () => {
      while (next < points.length) {
        const f = await killOnce(points[next++]!);
        total.kills++;
        addFigures(total, f);
      }
    };
    await Promise.all(Array.from({ length: LANES }, lane));
    printSummary("SIGKILL", [
      `${total.kills} kills at seeded write points (seed ${SEED}, ${writes} writes per clean run)`,
      `killed at their write ${total.killedAtWrite} (the other ${total.finishedFirst} ended before it), torn tails left ${total.tornTails}, children running at kill ${total.runningAtKill}`,
      `lost lines ${total.lost}, torn sidecars ${total.tornSidecars}, bad lines ${total.badLines}`,
      `notices missing ${total.missing}, duplicated ${total.duplicate}, left running ${total.stillRunning}, restarts failed ${total.restartFailed}`,
    ]);
    assert.deepEqual(harm(total), harm(noKillFigures()));
    assert.equal(total.killedAtWrite + total.finishedFirst, total.kills);
  },
});
