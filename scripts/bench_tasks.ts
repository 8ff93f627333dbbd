// deno-lint-ignore-file no-console -- a command-line script when run alone.
// `blade tasks list` and `tasks clean` over 5,000 finished runs (docs/reference/performance.md,
// "Search and run listings": list ≤ 0.3 s, clean ≤ 3 s): a storage root with 5,000 records of a few
// KiB each (the messages of a short run) and a transcript per run, made once; `tasks list` runs against it, `tasks clean
// --older-than 7d` against a fresh copy of it each time (every run 30 days old). The first listing of
// a store builds the run index from every record (docs/reference/sidecars.md, "The run index"); it is
// timed apart ("first listing"), then the store is as any store Blade has written is afterwards.
// Run alone: deno run -A scripts/bench_tasks.ts [runs]

import {
  type BenchRow,
  bladeEnv,
  median,
  processRow,
  type ProcessRun,
  type Stats,
  stats,
  timed,
} from "./bench_common.ts";
import { storageLayout } from "../lib/config/storage.ts";
import { encodeSidecar } from "../lib/store/codec.ts";
import { sidecarFixture } from "../lib/testing/sidecar_fixtures.ts";

export const TASKS_RUNS = 5000;
const DAY = 24 * 60 * 60 * 1000;

export interface TasksBenchResult {
  runs: number;
  records: number;
  firstListMs: number;
  list: { stats: Stats; runs: ProcessRun[] };
  clean: { stats: Stats; runs: ProcessRun[] };
  listFew: { stats: Stats; runs: ProcessRun[] };
}

/** A storage root holding `count` finished runs of `workspace`, each with a transcript, all `ageMs` old. */
export async function makeRuns(root: string, workspace: string, count: number, ageMs: number): Promise<void> {
  const layout = storageLayout(root);
  const sessions = `${root}/agents/sessions`;
  await Deno.mkdir(sessions, { recursive: true, mode: 0o700 });
  const now = Date.now();
  const text = "The entry point is main.ts; it calls runCli with the real ports. ".repeat(40);
  for (let i = 0; i < count; i++) {
    const id = `agent-bench${String(i).padStart(5, "0")}`;
    const at = now - ageMs - i * 1000;
    const record = sidecarFixture(id, {
      status: i % 10 === 0 ? "failed" : "completed",
      description: `Bench run ${i}`,
      parentSessionId: `session-bench${String(i % 50).padStart(3, "0")}`,
      parentProjectPath: workspace,
      workspaceRoot: workspace,
      createdAt: at - 5000,
      lastActiveAt: at,
      completedAt: at,
      result: { success: true, message: text },
      messages: [
        { role: "user", content: [{ type: "text", text: "Find the entry point of this project." }] },
        { role: "assistant", content: [{ type: "text", text }] },
      ],
    });
    Deno.writeTextFileSync(`${sessions}/${id}.json`, encodeSidecar(record), { mode: 0o600 });
    const transcript = layout.transcriptPath(workspace, id);
    if (i === 0) await Deno.mkdir(transcript.slice(0, transcript.lastIndexOf("/")), { recursive: true });
    Deno.writeTextFileSync(transcript, `${JSON.stringify({ seq: 1, type: "session_created", id })}\n`);
  }
}

async function copyTree(from: string, to: string): Promise<void> {
  const out = await new Deno.Command("cp", { args: ["-a", from, to] }).output();
  if (!out.success) throw new Error(`cp -a ${from} ${to} failed: ${new TextDecoder().decode(out.stderr)}`);
}

export async function benchTasks(
  blade: string[],
  options: { dir: string; workspace: string; runs: number },
): Promise<TasksBenchResult> {
  const { dir, workspace, runs } = options;
  const template = `${dir}/tasks-template`;
  await makeRuns(template, workspace, TASKS_RUNS, 30 * DAY);
  const few = `${dir}/tasks-few`;
  await makeRuns(few, workspace, 5, DAY);
  const run = async (storage: string, args: string[]) => {
    const r = await timed([...blade, "tasks", ...args], bladeEnv(storage), workspace);
    if (r.code !== 0) throw new Error(`blade tasks ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
    return r;
  };
  const first = await run(template, ["list"]);
  if (!first.stdout.includes(`${TASKS_RUNS} runs`)) throw new Error(`unexpected listing: ${first.stdout}`);
  await run(few, ["list"]);
  const list: ProcessRun[] = [];
  const listFew: ProcessRun[] = [];
  const clean: ProcessRun[] = [];
  for (let i = 0; i < runs; i++) {
    list.push(await run(template, ["list"]));
    listFew.push(await run(few, ["list"]));
    const copy = `${dir}/tasks-clean-${i}`;
    await copyTree(template, copy);
    const c = await run(copy, ["clean", "--older-than", "7d", "--json"]);
    const removed = (JSON.parse(c.stdout) as { removed: number }).removed;
    if (removed !== TASKS_RUNS) throw new Error(`tasks clean removed ${removed} runs, not ${TASKS_RUNS}`);
    clean.push(c);
    await Deno.remove(copy, { recursive: true });
  }
  const wall = (rs: ProcessRun[]) => ({ stats: stats(rs.map((r) => r.wallMs)), runs: rs });
  return {
    runs,
    records: TASKS_RUNS,
    firstListMs: first.wallMs,
    list: wall(list),
    clean: wall(clean),
    listFew: wall(listFew),
  };
}

/** The bench's rows (scripts/bench.ts registers the group; `row` is its process row). */
export async function tasksRows(
  blade: string[],
  options: { dir: string; workspace: string; runs: number },
): Promise<BenchRow[]> {
  const r = await benchTasks(blade, options);
  return [
    processRow(
      "tasks",
      `tasks list, ${r.records} runs`,
      r.list.runs,
      `goal ≤ 300 ms; first listing (builds the index) ${r.firstListMs.toFixed(0)} ms`,
    ),
    processRow("tasks", "tasks list, 5 runs", r.listFew.runs),
    processRow("tasks", `tasks clean --older-than 7d, ${r.records} runs`, r.clean.runs, "goal ≤ 3,000 ms"),
  ];
}

if (import.meta.main) {
  const { bladeCommand } = await import("./bench_common.ts");
  const dir = await Deno.makeTempDir({ prefix: "blade-bench-tasks-" });
  try {
    const workspace = `${dir}/ws`;
    await Deno.mkdir(workspace);
    const r = await benchTasks(await bladeCommand(), { dir, workspace, runs: Number(Deno.args[0] ?? "7") });
    console.log(`first listing (index built): ${r.firstListMs.toFixed(0)} ms`);
    console.log(`tasks list, ${r.records} runs: median ${r.list.stats.median.toFixed(0)} ms`);
    console.log(`tasks list, 5 runs: median ${r.listFew.stats.median.toFixed(0)} ms`);
    console.log(`tasks clean, ${r.records} runs: median ${r.clean.stats.median.toFixed(0)} ms`);
    console.log(`cpu: list ${median(r.list.runs.map((x) => x.cpuMs)).toFixed(0)} ms`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
