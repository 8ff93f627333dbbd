// End-to-end failure semantics of remote children (docs/guides/remote.md), on real nats-server and
// real `blade worker` processes with the scripted provider: a worker stopped (SIGSTOP) past its lease
// and continued commits nothing (the run is finished by another worker); the parent SIGKILLed while
// its remote child runs, then continued, gets the child's notice once; a NATS node SIGKILLed mid-run
// loses nothing (R3); 20 seeded SIGKILLs of workers mid-run, each proven to hit a live run, leave no
// run lost, doubled, run twice or stranded. Each test prints its counts.

import assert from "node:assert/strict";
import { findNatsServer, type NatsNode } from "../lib/testing/nats_server.ts";
import { type BladeResult, runBlade, spawnBlade, transcriptEvents, transcriptPath } from "./support/blade.ts";
import { type Fleet, startFleet } from "./support/remote_fleet.ts";
import { completionInboxId } from "../lib/run/notice.ts";
import type { SidecarRecord } from "../lib/store/schema.ts";

const binary = await findNatsServer();
/** Every worker of these tests: a run's lease lasts 2 s unrenewed, a job comes back after 4 s. */
const FAST_LEASE = ["--lease-ttl", "2"];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `probe()` until it gives a value, for 60 s. On a timeout with `fleet`, the error shows the records
 * as they are and what the workers printed (they are stopped for it): a child that never reached a
 * worker is told from one that ran between two probes.
 */
async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  o: { fleet?: Fleet } = {},
): Promise<T> {
  const deadline = Date.now() + 60_000;
  // What the probes met, for the timeout's message: how many, their errors, the slowest.
  const seen = { probes: 0, errors: new Map<string, number>(), slowestMs: 0 };
  for (;;) {
    const started = Date.now();
    // A probe that fails (the store electing a leader after a node died) is tried again.
    const got = await probe().catch((e: unknown) => {
      const message = e instanceof Error ? e.message : String(e);
      seen.errors.set(message, (seen.errors.get(message) ?? 0) + 1);
      return undefined;
    });
    seen.probes++;
    seen.slowestMs = Math.max(seen.slowestMs, Date.now() - started);
    if (got !== undefined) return got;
    if (Date.now() > deadline) {
      const errors = [...seen.errors].map(([m, n]) => `${n}× ${m}`).join("; ") || "none";
      throw new Error(
        `timed out waiting for ${what} (${seen.probes} probes, slowest ${seen.slowestMs} ms, errors: ${errors})` +
          await explain(o.fleet),
      );
    }
    await sleep(200);
  }
}

/**
 * The parent's end, within 3 minutes (its children take seconds): a child stuck on its worker fails the
 * test with the records and the workers' logs instead of holding the suite forever.
 */
async function parentEnd(
  parent: { result: Promise<BladeResult>; kill(signal: Deno.Signal): void },
  fleet: Fleet,
): Promise<BladeResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => timer = setTimeout(() => resolve("late"), 180_000));
  const ended = await Promise.race([parent.result, late]).finally(() => clearTimeout(timer));
  if (ended !== "late") return ended;
  const why = await explain(fleet);
  parent.kill("SIGKILL");
  await parent.result;
  throw new Error(`the parent did not end within 180 s${why}`);
}

async function explain(fleet: Fleet | undefined): Promise<string> {
  if (fleet === undefined) return "";
  const records = await fleet.records().catch(() => [] as SidecarRecord[]);
  const shown = records.map((r) => ({ id: r.id, status: r.status, error: r.result.error, remote: r.remote }));
  const logs = await Promise.all(fleet.workers.map(async (w) => `worker ${w.index}: ${await w.stop()}`));
  return `\nrecords: ${JSON.stringify(shown)}\n${logs.join("\n").slice(0, 6000)}`;
}

function parentEnv(fleet: Fleet) {
  return { HOME: `${fleet.root}/parent-home`, BLADE_STORAGE_ROOT: `${fleet.root}/parent-storage` };
}

function remoteCalls(n: number, prompt = "Work for"): string {
  return Array.from({ length: n }, (_, i) =>
    `            - name: Task
              input: { subagent_type: Explore, description: "Remote ${i}", prompt: "${prompt} ${i}.", isolation: remote }`)
    .join("\n");
}

/** How often each child's notice was delivered to the parent session (its transcript). */
async function noticeCounts(fleet: Fleet, sessionId: string): Promise<Map<string, number>> {
  const where = { storage: parentEnv(fleet).BLADE_STORAGE_ROOT, workspace: fleet.workspace };
  const counts = new Map<string, number>();
  for (const e of await transcriptEvents(transcriptPath(where, sessionId))) {
    if (e.type === "message_created" && e.data.inboxId !== undefined) {
      counts.set(e.data.inboxId, (counts.get(e.data.inboxId) ?? 0) + 1);
    }
  }
  return counts;
}

function workerOf(fleet: Fleet, record: SidecarRecord) {
  return fleet.workers.find((w) => record.remote?.worker?.endsWith(`/${w.process.pid}`));
}

if (binary === null) {
  Deno.test({
    name: "e2e remote faults: skipped — nats-server is not installed (apt-get install -y nats-server)",
    ignore: true,
    fn() {},
  });
} else {
  Deno.test("e2e remote: a worker stopped past its lease, then continued, commits nothing", async () => {
    await using fleet = await startFleet(binary, {
      nodes: 1,
      workers: 1,
      workerFlags: FAST_LEASE,
      script: `agents:
  main:
    - repeat_last: true
      turns:
        - tool_calls:
${remoteCalls(1)}
        - text: "started"
        - text: "noted"
  Explore:
    - turns:
        - text: "thought it over"
          delay_ms: 6000
`,
    });
    const parent = await spawnBlade(
      ["-p", "Go", ...fleet.script, ...fleet.store, "--trust-workspace", "--output-format", "json"],
      { cwd: fleet.workspace, env: parentEnv(fleet) },
    );
    const first = fleet.workers[0]!;
    const running = await until("the child running on the first worker", async () => {
      const [r] = await fleet.records();
      return r?.status === "running" && workerOf(fleet, r) === first ? r : undefined;
    }, { fleet });
    first.process.kill("SIGSTOP");
    // Its lease (2 s) expires; its job comes back after 4 s to the second worker, which runs it again
    // (the child had not started any tool call).
    const second = await fleet.startWorker(1);
    const done = await until("the child ended by the second worker", async () => {
      const [r] = await fleet.records();
      return r?.status !== "running" ? r : undefined;
    }, { fleet });
    assert.equal(done.status, "completed");
    assert.equal(workerOf(fleet, done), second, `ended by ${done.remote?.worker}`);
    assert.equal(done.remote?.attempts, 2);
    const result = await parentEnd(parent, fleet);
    assert.equal(result.code, 0, result.stderr);
    first.process.kill("SIGCONT");
    // The first worker wakes up holding a run it lost: it must change nothing.
    await sleep(4000);
    const [after] = await fleet.records();
    assert.deepEqual(after, done, "the record is as the second worker left it");
    const log = await first.stop();
    // Either the renewal finds the lease gone first, or the fenced store refuses the write: both commit
    // nothing (the record check above), and the log says which.
    assert.match(
      log,
      new RegExp(
        `job ${running.id}: (its lease was lost mid-run; nothing committed|the lease of ${running.id} is no ` +
          `longer this worker's: its record is not written)`,
      ),
    );
    const notices = await noticeCounts(
      fleet,
      (JSON.parse(result.stdout) as { session_id: string }).session_id,
    );
    assert.equal(notices.get(completionInboxId(done.id)), 1);
    await second.stop();
  });

  for (const when of ["after the child ended", "while the child still runs"] as const) {
    Deno.test(`e2e remote: the parent killed while its remote child runs, continued ${when}, gets its notice once`, async () => {
      const stillRunning = when === "while the child still runs";
      // The child's run is the window in which the test must see it running and kill the parent: 8 s /
      // 12 s, as probes of the store have stalled for seconds while the whole suite loads the machine.
      await using fleet = await startFleet(binary, {
        nodes: 1,
        workers: 1,
        workerFlags: FAST_LEASE,
        script: `agents:
  main:
    - repeat_last: true
      turns:
        - tool_calls:
${remoteCalls(1)}
        - text: "started"
        - text: "continued: {{last_user}}"
  Explore:
    - turns:
        - text: "finished while the parent was gone"
          delay_ms: ${stillRunning ? 12000 : 8000}
`,
      });
      const parent = await spawnBlade(
        ["-p", "Go", ...fleet.script, ...fleet.store, "--trust-workspace", "--output-format", "json"],
        { cwd: fleet.workspace, env: parentEnv(fleet), processGroup: true },
      );
      const running = await until("the child running", async () => {
        const [r] = await fleet.records();
        return r?.status === "running" && r.remote?.worker !== undefined ? r : undefined;
      }, { fleet });
      parent.kill("SIGKILL");
      assert.equal((await parent.result).code, 137, "the parent was killed while it waited for its child");
      if (stillRunning) {
        const [now] = await fleet.records();
        assert.equal(now?.status, "running", "the child still runs when its parent is continued");
      } else {
        await until("the child ended with its parent gone", async () => {
          const [r] = await fleet.records();
          return r?.status === "completed" ? r : undefined;
        }, { fleet });
      }
      // The continued session waits for a child still running, as for its own background work.
      const continued = await runBlade(
        [
          "-p",
          "Continue",
          "--continue",
          ...fleet.script,
          ...fleet.store,
          "--trust-workspace",
          "--output-format",
          "json",
        ],
        { cwd: fleet.workspace, env: parentEnv(fleet) },
      );
      assert.equal(continued.code, 0, continued.stderr);
      const [done] = await fleet.records();
      assert.equal(done?.status, "completed");
      const sessionId = (JSON.parse(continued.stdout) as { session_id: string }).session_id;
      const notices = await noticeCounts(fleet, sessionId);
      assert.deepEqual([...notices.entries()], [[completionInboxId(running.id), 1]]);
      // A second continue delivers nothing again.
      const again = await runBlade(
        ["-p", "Continue again", "--continue", ...fleet.script, ...fleet.store, "--output-format", "json"],
        { cwd: fleet.workspace, env: parentEnv(fleet) },
      );
      assert.equal(again.code, 0, again.stderr + again.stdout);
      assert.deepEqual([...(await noticeCounts(fleet, sessionId)).values()], [1]);
      for (const w of fleet.workers) await w.stop();
    });
  }
}

/** A small seeded generator (mulberry32), so a failing run can be repeated with SEED=<n>. */
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

/** Children that think before answering (`Slow`) or read a file first and then think (`Tool`). */
function mixedScript(n: number): string {
  const calls = Array.from({ length: n }, (_, i) =>
    `            - name: Task
              input: { subagent_type: Explore, description: "Remote ${i}", prompt: "${
      i % 2 ? "Tool" : "Slow"
    } job ${i}.", isolation: remote }`)
    .join("\n");
  return `agents:
  main:
    - repeat_last: true
      turns:
        - tool_calls:
${calls}
        - text: "started"
        - text: "noted"
  Explore:
    - match: "Slow job"
      turns:
        - text: "slow answer"
          delay_ms: 1500
    - match: "Tool job"
      turns:
        - tool_calls:
            - name: Read
              input: { file_path: "notes.txt" }
        - text: "answer after a tool"
          delay_ms: 1500
`;
}

/** The counts the issue asks for: every child ended, noticed once, never run to its end twice. */
function outcomeCounts(
  o: { records: SidecarRecord[]; notices: Map<string, number>; expected: number; logs: string },
) {
  const ends = new Map<string, number>();
  for (const m of o.logs.matchAll(/job (agent-\S+): (ran|reconciled)\b/g)) {
    ends.set(m[1]!, (ends.get(m[1]!) ?? 0) + 1);
  }
  return {
    lost: o.expected -
      o.records.filter((r) => r.status !== "running" && o.notices.has(completionInboxId(r.id))).length,
    duplicated: [...o.notices.values()].filter((n) => n > 1).length,
    runTwice: [...ends.values()].filter((n) => n > 1).length,
    stranded: o.records.filter((r) => r.status === "running").length,
  };
}

if (binary !== null) {
  Deno.test("e2e remote: one NATS node SIGKILLed mid-run loses nothing (R3)", async () => {
    const seed = Number(Deno.env.get("SEED") ?? String(Date.now() % 100_000));
    const random = seeded(seed);
    // deno-lint-ignore no-console -- printed first, so a failing run can be repeated with SEED=<n>
    console.log(`seed ${seed} (SEED=${seed} repeats this run)`);
    const children = 16;
    await using fleet = await startFleet(binary, {
      nodes: 3,
      workers: 2,
      workerFlags: [...FAST_LEASE, "--concurrency", "3"],
      script: mixedScript(children),
    });
    const parent = await spawnBlade(
      ["-p", "Go", ...fleet.script, ...fleet.store, "--trust-workspace", "--output-format", "json"],
      { cwd: fleet.workspace, env: parentEnv(fleet) },
    );
    await until("children running", async () => {
      const running = (await fleet.records()).filter((r) => r.status === "running" && r.remote?.worker);
      return running.length >= 2 ? running : undefined;
    }, { fleet });
    const victim = fleet.nats.nodes[Math.floor(random() * 3)]!;
    await victim.kill();
    const result = await parentEnd(parent, fleet);
    assert.equal(result.code, 0, result.stderr);
    const sessionId = (JSON.parse(result.stdout) as { session_id: string }).session_id;
    const records = await fleet.records();
    const logs = (await Promise.all(fleet.workers.map((w) => w.stop()))).join("\n");
    const counts = outcomeCounts({
      records,
      notices: await noticeCounts(fleet, sessionId),
      expected: children,
      logs,
    });
    // deno-lint-ignore no-console -- the counts the issue asks to report, and the seed to repeat it
    console.log(`seed ${seed}: killed node ${victim.name} mid-run: ${JSON.stringify(counts)}`);
    assert.deepEqual(counts, { lost: 0, duplicated: 0, runTwice: 0, stranded: 0 });
    assert.equal(records.length, children);
  });

  Deno.test("e2e remote: 20 seeded SIGKILLs of workers mid-run; every run recovered elsewhere, once", async () => {
    const seed = Number(Deno.env.get("SEED") ?? String(Date.now() % 100_000));
    const random = seeded(seed);
    // deno-lint-ignore no-console -- printed first, so a failing run can be repeated with SEED=<n>
    console.log(`seed ${seed} (SEED=${seed} repeats this run)`);
    const children = 60;
    const kills = 20;
    await using fleet = await startFleet(binary, {
      nodes: 1,
      workers: 3,
      workerFlags: [...FAST_LEASE, "--concurrency", "2"],
      script: mixedScript(children),
    });
    const parent = await spawnBlade(
      ["-p", "Go", ...fleet.script, ...fleet.store, "--trust-workspace", "--output-format", "json"],
      { cwd: fleet.workspace, env: parentEnv(fleet) },
    );
    const logs: string[] = [];
    let hitLive = 0;
    for (let k = 0; k < kills; k++) {
      const running = await until("a run on a live worker", async () => {
        const live = (await fleet.records()).filter((r) => r.status === "running" && workerOf(fleet, r));
        return live.length > 0 ? live : undefined;
      }, { fleet });
      const target = running[Math.floor(random() * running.length)]!;
      await sleep(Math.floor(random() * 300));
      // Proven live: the record still says this worker runs it, right before the kill.
      const now = (await fleet.records()).find((r) => r.id === target.id);
      const worker = now === undefined ? undefined : workerOf(fleet, now);
      if (now?.status !== "running" || worker === undefined) {
        k--;
        continue;
      }
      worker.process.kill("SIGKILL");
      logs.push((await worker.process.result).stderr);
      hitLive++;
      await fleet.startWorker(worker.index);
    }
    const result = await parentEnd(parent, fleet);
    assert.equal(result.code, 0, result.stderr);
    const sessionId = (JSON.parse(result.stdout) as { session_id: string }).session_id;
    const records = await fleet.records();
    logs.push(...await Promise.all(fleet.workers.map((w) => w.stop())));
    const counts = outcomeCounts({
      records,
      notices: await noticeCounts(fleet, sessionId),
      expected: children,
      logs: logs.join("\n"),
    });
    const rerun = records.filter((r) => (r.remote?.attempts ?? 0) > 1).length;
    const recovered = records.filter((r) => r.restartRecovery !== undefined).length;
    const untouched = records.filter((r) => r.remote?.attempts === 1 && r.restartRecovery === undefined);
    // deno-lint-ignore no-console -- the counts the issue asks to report, and the seed to repeat it
    console.log(
      `seed ${seed}: ${hitLive} SIGKILLs of workers, each during a live run; ${rerun} runs started again, ` +
        `${recovered} recovered by the plan: ${JSON.stringify(counts)}`,
    );
    assert.equal(hitLive, kills);
    assert.deepEqual(counts, { lost: 0, duplicated: 0, runTwice: 0, stranded: 0 });
    // A run no kill touched ends as it would without any: completed by its one worker.
    assert.ok(untouched.length > 0 && untouched.every((r) => r.status === "completed"));
    // A run recovered by the plan had started a tool, or was started again once already; one that had
    // done nothing was started again instead.
    for (const r of records.filter((r) => r.restartRecovery !== undefined)) {
      assert.ok(r.prompt.startsWith("Tool job") || (r.remote?.attempts ?? 0) >= 2, `${r.id}: ${r.prompt}`);
    }
    assert.equal(records.length, children);
  });
}

if (binary !== null) {
  Deno.test("e2e remote: a worker cut off from the cluster past its lease stops, and commits nothing when it is back", async () => {
    await using fleet = await startFleet(binary, {
      nodes: 3,
      noAdvertise: true,
      workers: 0,
      // Twice FAST_LEASE: the worker that takes the run over must keep its lease through the child's 8 s
      // while other test files load both cores (a 2 s lease lapsed once in CI's parallel legs).
      workerFlags: ["--lease-ttl", "4"],
      script: `agents:
  main:
    - repeat_last: true
      turns:
        - tool_calls:
${remoteCalls(1)}
        - text: "started"
        - text: "noted"
  Explore:
    - turns:
        - text: "thought it over"
          delay_ms: 8000
`,
    });
    const [n1, n2, n3] = fleet.nats.nodes as [NatsNode, NatsNode, NatsNode];
    // The first worker knows only n1: killing n1 cuts it off from the cluster (a partition).
    const cut = await fleet.startWorker(0, { servers: n1.url });
    const parent = await spawnBlade(
      [
        "-p",
        "Go",
        ...fleet.script,
        "--store",
        `${n2.url},${n3.url}`,
        "--trust-workspace",
        "--output-format",
        "json",
      ],
      { cwd: fleet.workspace, env: parentEnv(fleet) },
    );
    const running = await until("the child running on the worker that will be cut off", async () => {
      const [r] = await fleet.records();
      return r?.status === "running" && workerOf(fleet, r) === cut ? r : undefined;
    }, { fleet });
    await n1.kill();
    const other = await fleet.startWorker(1, { servers: `${n2.url},${n3.url}` });
    const done = await until("the run ended by the other worker", async () => {
      const [r] = await fleet.records();
      return r?.status !== "running" ? r : undefined;
    }, { fleet });
    assert.equal(done.status, "completed");
    assert.equal(workerOf(fleet, done), other);
    const result = await parentEnd(parent, fleet);
    assert.equal(result.code, 0, result.stderr);
    // The cut-off worker reconnects once n1 is back: it must change nothing of the run.
    await n1.restart();
    await sleep(5000);
    const [after] = await fleet.records();
    assert.deepEqual(after, done, "the record is as the other worker left it");
    const log = await cut.stop();
    assert.doesNotMatch(log, new RegExp(`job ${running.id}: ran`));
    // deno-lint-ignore no-console -- what the cut-off worker said of the run it lost
    console.log(log.split("\n").filter((l) => l.includes(running.id)).join("\n"));
    assert.match(log, new RegExp(`job ${running.id}: (its lease was lost mid-run|.*left for redelivery)`));
    const notices = await noticeCounts(
      fleet,
      (JSON.parse(result.stdout) as { session_id: string }).session_id,
    );
    assert.deepEqual([...notices.values()], [1]);
    await other.stop();
  });
}
