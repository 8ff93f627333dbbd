// deno-lint-ignore-file no-console -- a command-line script: printing is its job.
// Crash-recovery benchmarks (in `deno task bench`; run alone: deno run -A scripts/bench_recovery.ts):
//   reconcile   1,000 orphaned sidecars with short transcripts (dead owner, open turn), one pass through
//               the real file store, leases and transcript writer; then the time per orphan versus the
//               length of each orphan's transcript (10 / 100 / 1,000 messages)
//   resume      cost of one resume (load the source, plan, create the new sidecar) versus the source's
//               history (100 / 1,000 / 10,000 messages)
//   start-up    with BLADE_BENCH_BASELINE=<git rev>: `blade -p` start → first provider request with
//               nothing to recover, this tree against that revision, runs interleaved
// Medians; the machine is noisy and shared, so read the ratios, not the absolute numbers.

import process from "node:process";
import { FileSidecarStore } from "../lib/store/file_store.ts";
import { realPorts } from "../lib/sys/mod.ts";
import { storageLayout } from "../lib/config/storage.ts";
import { TranscriptWriter } from "../lib/session/transcript.ts";
import { messageEvents } from "../lib/session/events.ts";
import { reconcile } from "../lib/recovery/recovery.ts";
import { planLaunch } from "../lib/launch/launch_plan.ts";
import { RegistrySnapshot } from "../lib/registry/snapshot.ts";
import { sidecarFixture } from "../lib/testing/sidecar_fixtures.ts";
import type { Message } from "../lib/protocol/messages.ts";
import { startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { median, type Stats, stats } from "./bench_common.ts";

const PROJECT = "/bench/project";
/** A PID no process has here (above the default pid_max), so every owner is dead. */
const DEAD_PID = 4_194_304 + 17;
const IDENTITY = { platform: "linux" as const, fingerprint: "e".repeat(64) };

function conversation(n: number): Message[] {
  return Array.from({ length: n }, (_, i): Message => ({
    role: i % 2 === 0 ? "user" : "assistant",
    content: [{ type: "text", text: `message ${i}: ${"lorem ipsum ".repeat(8)}` }],
  }));
}

/** `orphans` running sidecars of a dead owner, each with a transcript of `messages` messages and an open turn. */
async function orphanWorld(orphans: number, messages: number) {
  const root = await Deno.makeTempDir({ prefix: "blade-bench-recovery-" });
  const ports = realPorts();
  const layout = storageLayout(root);
  const store = new FileSidecarStore({ fs: ports.fs, clock: ports.clock, storageRoot: root });
  const history = conversation(messages);
  for (let i = 0; i < orphans; i++) {
    const id = `agent-orphan-${i}`;
    await store.save(sidecarFixture(id, {
      messages: [],
      processId: DEAD_PID,
      processIdentity: IDENTITY,
      parentProjectPath: PROJECT,
      workspaceRoot: PROJECT,
    }));
    const writer = new TranscriptWriter({
      fs: ports.fs,
      clock: ports.clock,
      ids: ports.ids,
      path: layout.transcriptPath(PROJECT, id),
      sessionId: id,
      projectPath: PROJECT,
    });
    await writer.append([
      { type: "session_created", data: { agentType: "general-purpose", model: "m", depth: 1 } },
      { type: "turn_started", data: { turn: 1 } },
      ...history.flatMap((m) => messageEvents(ports.ids, m)),
    ]);
  }
  return {
    root,
    deps: {
      ports,
      store: new FileSidecarStore({ fs: ports.fs, clock: ports.clock, storageRoot: root }),
      layout,
    },
  };
}

export async function timeReconcile(
  orphans: number,
  messages: number,
): Promise<{ totalMs: number; perOrphanMs: number; cpuMs: number }> {
  const world = await orphanWorld(orphans, messages);
  try {
    const started = performance.now();
    // CPU (user + sys) as well as wall: on a shared machine wall time mostly measures the others.
    const cpu = process.cpuUsage();
    const report = await reconcile(world.deps, () => true);
    const used = process.cpuUsage(cpu);
    const totalMs = performance.now() - started;
    if (report.recovered.length !== orphans) {
      throw new Error(`recovered ${report.recovered.length} of ${orphans}`);
    }
    return { totalMs, perOrphanMs: totalMs / orphans, cpuMs: (used.user + used.system) / 1000 };
  } finally {
    await Deno.remove(world.root, { recursive: true });
  }
}

async function timeResume(historyLength: number, runs = 5): Promise<number> {
  const root = await Deno.makeTempDir({ prefix: "blade-bench-resume-" });
  try {
    const ports = realPorts();
    const store = new FileSidecarStore({ fs: ports.fs, clock: ports.clock, storageRoot: root });
    const source = sidecarFixture("agent-source", {
      status: "completed",
      result: { success: true, message: "done" },
      messages: conversation(historyLength),
    });
    await store.save(source);
    const registry = new RegistrySnapshot(PROJECT, []);
    const parent = {
      sessionId: source.parentSessionId,
      projectPath: source.parentProjectPath,
      workspaceRoot: source.workspaceRoot,
      model: "m",
      mode: "default" as const,
      depth: 0,
      trusted: true,
      maxDepth: 3,
      aliases: {},
      process: { pid: ports.process.pid(), identity: null },
    };
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      // A fresh store each time: the cost includes reading the source from disk, not from the cache.
      const cold = new FileSidecarStore({ fs: ports.fs, clock: ports.clock, storageRoot: root });
      const id = `agent-resumed-${i}`;
      const started = performance.now();
      const lookup = { source: await cold.load("agent-source"), newIdTaken: (await cold.load(id)) !== null };
      const plan = planLaunch({
        resume_from: "agent-source",
        description: "go on",
        prompt: "Continue the work.",
        subagent_session_id: id,
      }, { registry, parent, now: ports.clock.now(), resume: lookup });
      if (!plan.ok) throw new Error(plan.refusal);
      await cold.create(plan.record);
      times.push(performance.now() - started);
    }
    return median(times);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

export interface RecoveryBench {
  runs: number;
  /** Wall time of one pass over 1,000 orphans, per run; CPU (user + sys) and per orphan of the median run. */
  reconcile1000: { totalMs: Stats; perOrphanMs: number; cpuMs: number };
  /** Wall time per orphan (one pass over 100, 100 and 20 orphans) by transcript length, per run. */
  perOrphanByTranscript: Record<string, Stats>;
  resumeByHistory: Record<string, number>;
}

/** Each figure `runs` times (a fresh world each time); reported as medians with min and max. */
export async function benchRecovery(options: { runs?: number } = {}): Promise<RecoveryBench> {
  const runs = Math.max(1, options.runs ?? 3);
  const passes: Awaited<ReturnType<typeof timeReconcile>>[] = [];
  for (let i = 0; i < runs; i++) passes.push(await timeReconcile(1000, 4));
  passes.sort((a, b) => a.totalMs - b.totalMs);
  const mid = passes[Math.floor((passes.length - 1) / 2)]!;
  const reconcile1000 = {
    totalMs: stats(passes.map((p) => p.totalMs)),
    perOrphanMs: mid.perOrphanMs,
    cpuMs: mid.cpuMs,
  };
  const perOrphanByTranscript: Record<string, Stats> = {};
  for (const [orphans, messages] of [[100, 10], [100, 100], [20, 1000]] as const) {
    const times: number[] = [];
    for (let i = 0; i < runs; i++) times.push((await timeReconcile(orphans, messages)).perOrphanMs);
    perOrphanByTranscript[`${messages} messages`] = stats(times);
  }
  const resumeByHistory: Record<string, number> = {};
  for (const n of [100, 1000, 10_000]) resumeByHistory[`${n} messages`] = await timeResume(n);
  return { runs, reconcile1000, perOrphanByTranscript, resumeByHistory };
}

export function formatRecoveryBench(b: RecoveryBench): string {
  const f = (ms: number) => `${ms.toFixed(2)} ms`;
  const range = (s: Stats, digits = 2) =>
    `${s.median.toFixed(digits)} ms (min ${s.min.toFixed(digits)}, max ${s.max.toFixed(digits)})`;
  return [
    `reconcile 1,000 orphans (short transcripts), median of ${b.runs}: ${
      range(b.reconcile1000.totalMs, 0)
    } wall, ${b.reconcile1000.cpuMs.toFixed(0)} ms CPU (user+sys), ${
      f(b.reconcile1000.perOrphanMs)
    } per orphan`,
    `  per orphan by transcript length: ${
      Object.entries(b.perOrphanByTranscript).map(([k, v]) => `${k} ${range(v)}`).join(", ")
    }`,
    `resume (load source, plan, create) by history length: ${
      Object.entries(b.resumeByHistory).map(([k, v]) => `${k} ${f(v)}`).join(", ")
    }`,
  ].join("\n");
}

/** `blade -p` start → first provider request for the `main.ts` of each tree, interleaved. */
export async function startupSideBySide(
  trees: Record<string, string>,
  runs = Number(Deno.env.get("BLADE_BENCH_RUNS") ?? "15"),
): Promise<Record<string, number>> {
  const tmp = await Deno.makeTempDir({ prefix: "blade-bench-startup-" });
  const workspace = `${tmp}/ws`;
  await Deno.mkdir(workspace);
  const denoDir = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(trees).map((k) => [k, []]));
  try {
    for (let i = 0; i < runs; i++) {
      for (const [name, tree] of Object.entries(trees)) {
        const config = JSON.parse(await Deno.readTextFile(`${tree}/deno.json`)) as {
          tasks: Record<string, string>;
        };
        const flags = config.tasks.blade!.split(/\s+/).slice(2, -1);
        let arrivedAt = 0;
        await using server = await startFakeAnthropicServer({
          handler: () => {
            arrivedAt = performance.now();
            return { text: "ok" };
          },
        });
        const storage = `${tmp}/storage-${name}`;
        const start = performance.now();
        const out = await new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            ...flags,
            "--config",
            `${tree}/deno.json`,
            `${tree}/main.ts`,
            "-p",
            "say ok",
            "--provider",
            "anthropic",
          ],
          cwd: workspace,
          clearEnv: true,
          env: {
            PATH: Deno.env.get("PATH") ?? "",
            DENO_DIR: denoDir,
            HOME: storage,
            BLADE_STORAGE_ROOT: storage,
            ANTHROPIC_API_KEY: "bench-key",
            ANTHROPIC_BASE_URL: server.url,
            NO_COLOR: "1",
          },
          stdout: "null",
          stderr: "null",
        }).output();
        if (out.code !== 0) throw new Error(`blade -p of ${name} failed (exit ${out.code})`);
        if (i > 0) times[name]!.push(arrivedAt - start); // the first round warms the module cache
      }
    }
  } finally {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
}

/** Extracts `rev` of this repository into a temp folder (git archive), for a side-by-side start-up. */
export async function checkout(rev: string): Promise<string> {
  const root = new URL("..", import.meta.url).pathname;
  const dir = await Deno.makeTempDir({ prefix: "blade-bench-baseline-" });
  const archive = await new Deno.Command("sh", {
    args: ["-c", `git -C '${root}' archive '${rev.replace(/'/g, "")}' | tar -x -C '${dir}'`],
  }).output();
  if (archive.code !== 0) {
    throw new Error(`cannot extract ${rev}: ${new TextDecoder().decode(archive.stderr)}`);
  }
  return dir;
}

if (import.meta.main) {
  console.log(
    formatRecoveryBench(await benchRecovery({ runs: Number(Deno.env.get("BLADE_BENCH_RUNS") ?? "3") })),
  );
  const baseline = Deno.env.get("BLADE_BENCH_BASELINE");
  if (baseline !== undefined) {
    const candidate = Deno.env.get("BLADE_BENCH_CANDIDATE");
    const base = await checkout(baseline);
    const cand = candidate === undefined
      ? new URL("..", import.meta.url).pathname
      : await checkout(candidate);
    const r = await startupSideBySide({ [baseline]: base, [candidate ?? "this tree"]: cand });
    console.log(
      `blade -p start → first request, nothing to recover (interleaved medians): ${JSON.stringify(r)}`,
    );
    await Deno.remove(base, { recursive: true }).catch(() => {});
    if (candidate !== undefined) await Deno.remove(cand, { recursive: true }).catch(() => {});
  }
}
