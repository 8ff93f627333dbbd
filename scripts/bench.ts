// deno-lint-ignore-file no-console -- a command-line script: printing is its job.
// `deno task bench`: every benchmark of Blade in one run, one table, and bench/results.json
// (docs/reference/performance.md). Contenders of one comparison run in the same rounds, alternating,
// each against its own loopback fake model server; figures are the median, min and max over the runs,
// with peak RSS and CPU time (user+sys, less sensitive to a loaded machine than wall time). The machine
// may be shared: compare ratios, not absolute numbers.
//
//   e2e        the floor (a bare Deno program making the same streaming requests with fetch), blade -p
//              single turn, foreground delegation (child in a Worker and in-process), background
//              delegation — through `deno task blade`, and the single turn and both delegations through
//              the release bundle (dist/blade) and the compiled binary (where `deno compile` works; else
//              a skipped row) — Claude Code's delegation (when installed; else a skip line): wall, RSS,
//              ratios to the floor and to Claude Code, the delegation overhead (parent's request →
//              the child's first request), fsyncs per delegation (strace)
//   start-up   every command with nothing to do (scripts/bench_e2e.ts STARTUP_COMMANDS)
//   background 50 background children of one run (scripts/bench_background.ts)
//   registry   100 / 1,000 / 5,000 agent files (scripts/bench_registry.ts)
//   store      sidecar writes per second with full fsync (scripts/bench_store.ts)
//   recovery   reconciling 1,000 orphans, resume cost by history length (scripts/bench_recovery.ts)
//   worktree   prepare + finish of an isolated child (scripts/bench_worktree.ts)
//   memory     -p start-up with a 20 KB CLAUDE.md, 30 commands and 10 skills vs none (scripts/bench_memory.ts)
//   tasks      `blade tasks list` and `tasks clean` with 5,000 finished runs (scripts/bench_tasks.ts)
//   search     Grep (rg path, built-in) and Glob against rg on a generated 15,000-file tree (scripts/bench_search.ts)
//   caching    billed input tokens of a 20-request session with and without prompt caching, Blade and
//              Claude Code, on a model of the prompt cache (scripts/bench_caching.ts)
//   remote     NATS store operation latency (sidecar update, inbox append, transcript append) vs the file
//              store, one node and a 3-node R3 cluster (scripts/bench_remote.ts); remote children per
//              second with 1-3 workers and a remote child's added latency (scripts/bench_remote_children.ts);
//              no rows without nats-server
//   hooks      a PreToolUse command hook per tool call, none configured, and -p with 20 calls (scripts/bench_hooks.ts)
//   rewrites   the bundle with all its rewrites for speed, without each in turn, without any: -p single
//              turn and delegation fg, each against all (scripts/bench_rewrites.ts)
//
//   deno task bench [--profile] [--runs N] [--only e2e,startup,...] [--out FILE]
// --profile adds the per-phase timeline of one delegation (scripts/bench_profile.ts). BLADE_BENCH_RUNS
// sets the runs too (default 7); BLADE_BENCH_CLAUDE points at Claude Code's `claude` binary (default
// /tmp/cc/node_modules/.bin/claude; install: docs/reference/performance.md).

import { parseArgs } from "node:util";
import { type BenchRow, bladeCommand, median, processRow, ROOT, type Stats } from "./bench_common.ts";
import {
  againstBuilds,
  contenders,
  countFsyncs,
  findClaude,
  otherBuilds,
  runContenders,
  runStartup,
} from "./bench_e2e.ts";

export type { BenchRow } from "./bench_common.ts";

const GROUPS = [
  "e2e",
  "startup",
  "background",
  "registry",
  "store",
  "recovery",
  "worktree",
  "sandbox",
  "memory",
  "tasks",
  "search",
  "caching",
  "remote",
  "hooks",
  "rewrites",
] as const;

function ratio(a: BenchRow, b: BenchRow | undefined): { wall: number; rss: number } | undefined {
  if (b === undefined) return undefined;
  return { wall: a.median / b.median, rss: (a.peakRssMiB ?? NaN) / (b.peakRssMiB ?? NaN) };
}

function figureRow(group: string, name: string, unit: string, s: Stats, note?: string): BenchRow {
  return { group, name, unit, ...s, ...(note === undefined ? {} : { note }) };
}

async function e2eRows(
  blade: string[],
  ctx: {
    dir: string;
    workspace: string;
    runs: number;
    log: (s: string) => void;
    against?: string | undefined;
  },
) {
  const { dir, workspace, runs, log } = ctx;
  const claude = await findClaude();
  if (claude === undefined) {
    log("Claude Code: skipped (not found at /tmp/cc/node_modules/.bin/claude; set BLADE_BENCH_CLAUDE)");
  }
  const { others, compileSkipped } = await otherBuilds(dir);
  if (ctx.against !== undefined) others.push(...await againstBuilds(ctx.against));
  const skipped: BenchRow[] = [];
  if (compileSkipped !== undefined) {
    log(`compiled binary: skipped (${compileSkipped})`);
    const nan = { median: NaN, min: NaN, max: NaN, n: 0 };
    const name = "compiled binary: single turn, delegation fg, bg";
    skipped.push(figureRow("e2e", name, "ms", nan, `skipped: ${compileSkipped}`));
  }
  const list = await contenders(blade, dir, { claude, others });
  const results = await runContenders(list, workspace, runs);
  const rows = new Map<string, BenchRow>();
  for (const c of list) {
    const r = results.get(c.name)!;
    const notes: string[] = [];
    if (r.overheadMs.length > 0) notes.push(`delegation overhead ${median(r.overheadMs).toFixed(1)} ms`);
    if (r.toFirstRequestMs.length > 0) {
      notes.push(`first request at ${median(r.toFirstRequestMs).toFixed(0)} ms`);
    }
    if (c.name.startsWith("blade") || c.name.startsWith("claude")) {
      const fsyncs = await countFsyncs(c, workspace, dir);
      if (fsyncs !== undefined) notes.push(`${fsyncs} fsyncs`);
    }
    rows.set(c.name, processRow("e2e", c.name, r.runs, notes.join("; ")));
  }
  const floor3 = rows.get("floor: bare Deno, 3 requests");
  const floor1 = rows.get("floor: bare Deno, 1 request");
  const cc = rows.get("claude code delegation fg");
  for (const row of rows.values()) {
    if (row.name.startsWith("floor")) continue;
    const floor = row.name.includes("single turn") ? floor1 : floor3;
    const vsFloor = ratio(row, floor);
    if (vsFloor !== undefined) row.vsFloor = vsFloor;
    const vsClaude = row.name.includes("delegation") && row !== cc ? ratio(row, cc) : undefined;
    if (vsClaude !== undefined) row.vsClaude = vsClaude;
  }
  return [...rows.values(), ...skipped];
}

async function recoveryRows(runs: number): Promise<BenchRow[]> {
  const { benchRecovery } = await import("./bench_recovery.ts");
  // Each pass writes a thousand files: at most 5 of them.
  const b = await benchRecovery({ runs: Math.min(runs, 5) });
  const one = (name: string, ms: number, note?: string) =>
    figureRow("recovery", name, "ms", { median: ms, min: ms, max: ms, n: 1 }, note);
  return [
    figureRow(
      "recovery",
      "reconcile 1,000 orphans",
      "ms",
      b.reconcile1000.totalMs,
      `${b.reconcile1000.perOrphanMs.toFixed(2)} ms per orphan, ${b.reconcile1000.cpuMs.toFixed(0)} ms CPU`,
    ),
    ...Object.entries(b.perOrphanByTranscript).map(([k, v]) =>
      figureRow("recovery", `per orphan, transcript of ${k}`, "ms", v)
    ),
    ...Object.entries(b.resumeByHistory).map(([k, v]) => one(`resume, history of ${k}`, v, "median of 5")),
  ];
}

/** NATS store operation latency, remote children per second and a remote child's added latency. */
async function remoteRows(runs: number): Promise<BenchRow[]> {
  const { benchRemoteChildren } = await import("./bench_remote_children.ts");
  const all = [
    ...await (await import("./bench_remote.ts")).benchRemote(),
    ...await benchRemoteChildren({ runs }),
  ];
  return all.map((r) => figureRow("remote", r.name, r.unit, r.stats));
}

/** The file store's write throughput (scripts/bench_store.ts). */
async function storeRows(): Promise<BenchRow[]> {
  const { benchStore } = await import("./bench_store.ts");
  const s = await benchStore();
  const one = (name: string, v: number) =>
    figureRow(
      "store",
      name,
      "writes/s",
      { median: v, min: v, max: v, n: s.rounds },
      `${s.recordBytes} B records`,
    );
  return [
    one("sidecar writes, sequential", s.sequentialWritesPerSec),
    one(`sidecar writes, ${s.concurrency} concurrent`, s.concurrentWritesPerSec),
  ];
}

async function groupRows(
  group: (typeof GROUPS)[number],
  ctx: {
    blade: string[];
    dir: string;
    workspace: string;
    runs: number;
    log: (s: string) => void;
    against?: string | undefined;
  },
): Promise<BenchRow[]> {
  const { blade, dir, workspace, runs } = ctx;
  switch (group) {
    case "e2e":
      return await e2eRows(blade, ctx);
    case "startup": {
      const startup = await runStartup(blade, workspace, `${dir}/storage-startup`, runs);
      return [...startup].map(([args, r]) => processRow("startup", `blade ${args}`, r));
    }
    case "background":
      return await backgroundRows(blade, { dir, workspace, runs });
    case "registry": {
      const { benchRegistry } = await import("./bench_registry.ts");
      return (await benchRegistry()).map((f) =>
        figureRow("registry", `load ${f.files} agent files`, "ms", {
          median: f.medianMs,
          min: f.minMs,
          max: f.maxMs,
          n: f.runs,
        }, `${f.agents} agents, ${f.diagnostics} diagnostics`)
      );
    }
    case "store":
      return await storeRows();
    case "recovery":
      return await recoveryRows(runs);
    case "memory":
      return await (await import("./bench_memory.ts")).memoryRows(blade, runs);
    case "worktree":
      return await worktreeRows(runs);
    case "sandbox":
      return await sandboxRows(runs);
    case "rewrites":
      return await (await import("./bench_rewrites.ts")).rewriteRows(`${dir}/rewrites`, ctx);
    case "search":
      return await (await import("./bench_search.ts")).searchRows(runs, ctx.log, figureRow);
    case "remote":
      return await remoteRows(runs);
    case "tasks": {
      const { tasksRows } = await import("./bench_tasks.ts");
      return await tasksRows(blade, { dir, workspace, runs });
    }
    case "caching":
      return await (await import("./bench_caching.ts")).cachingRows(blade, figureRow);
    case "hooks":
      return await (await import("./bench_hooks.ts")).hooksRows(blade, runs);
  }
}

/** 50 background children of one run (scripts/bench_background.ts). */
async function backgroundRows(
  blade: string[],
  o: { dir: string; workspace: string; runs: number },
): Promise<BenchRow[]> {
  const { benchBackground } = await import("./bench_background.ts");
  const bg = await benchBackground(blade, o.workspace, `${o.dir}/storage-bg50`, Math.min(o.runs, 5));
  return [
    processRow(
      "background",
      "50 background children → all notices",
      bg.runs,
      `${bg.writesPerChild.toFixed(1)} sidecar writes per child`,
    ),
  ];
}

/** Preparing and finishing an isolated child's worktree (scripts/bench_worktree.ts). */
async function worktreeRows(runs: number): Promise<BenchRow[]> {
  const { benchWorktree } = await import("./bench_worktree.ts");
  const w = await benchWorktree({ runs: Math.min(runs, 5) });
  return [
    figureRow("worktree", `prepare + finish, ${w.files} files`, "ms", {
      median: w.totalMs,
      min: w.minTotalMs,
      max: w.maxTotalMs,
      n: w.runs,
    }, `bare git ${w.bareGitMs.toFixed(0)} ms, ${w.files} file creates ${w.filesFloorMs.toFixed(0)} ms`),
  ];
}

/** The OS sandbox's cost per Bash command (scripts/bench_command_sandbox.ts); none without bubblewrap. */
async function sandboxRows(runs: number): Promise<BenchRow[]> {
  const { benchSandbox } = await import("./bench_command_sandbox.ts");
  const s = await benchSandbox({ runs });
  if (s === undefined) return [];
  return [
    figureRow("sandbox", "Bash command in bubblewrap (bash -c true)", "ms", {
      median: s.sandboxedMs,
      min: s.minSandboxedMs,
      max: s.maxSandboxedMs,
      n: s.commands,
    }, `unsandboxed ${s.plainMs.toFixed(1)} ms: +${(s.sandboxedMs - s.plainMs).toFixed(1)} ms per command`),
  ];
}

const num = (v: number | undefined, digits = 0) =>
  v === undefined || !Number.isFinite(v) ? "" : v.toFixed(digits);
const x = (r: { wall: number; rss: number } | undefined) =>
  r === undefined ? "" : `${r.wall.toFixed(2)}× / ${r.rss.toFixed(2)}×`;

/** One plain-text table of every row. */
export function formatTable(rows: readonly BenchRow[]): string {
  const header = [
    "group",
    "benchmark",
    "median",
    "min",
    "max",
    "unit",
    "RSS MiB",
    "CPU ms",
    "vs floor wall/RSS",
    "vs Claude wall/RSS",
    "note",
  ];
  const cells = rows.map((r) => [
    r.group,
    r.name,
    num(r.median, r.median < 10 ? 2 : 0),
    num(r.min, r.min < 10 ? 2 : 0),
    num(r.max, r.max < 10 ? 2 : 0),
    r.unit,
    num(r.peakRssMiB, 1),
    num(r.cpuMs),
    x(r.vsFloor),
    x(r.vsClaude),
    r.note ?? "",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const left = new Set([0, 1, 5, 10]);
  const line = (c: string[]) =>
    c.map((v, i) => (left.has(i) ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join("  ").trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)].join("\n");
}

function loadAverage(): string {
  try {
    return Deno.loadavg().map((l) => l.toFixed(2)).join(" ");
  } catch {
    return "unknown";
  }
}

const USAGE = `Usage: deno task bench [--profile] [--runs N] [--only ${
  GROUPS.join(",")
}] [--out FILE] [--against DIR]
  --profile   add the per-phase timeline of one foreground delegation
  --against DIR  e2e: also DIR's \`deno task blade\` and DIR/dist/blade, alternating (a before and after)
  --runs N    runs per figure (default 7, or BLADE_BENCH_RUNS)
  --only G,…  only these groups
  --out FILE  where the results go (default bench/results.json)
See docs/reference/performance.md.`;

/** The options, or a usage message (an unknown option, a bad value, --help). */
export function benchOptions(
  args: string[],
  env: (name: string) => string | undefined,
): { runs: number; only: string[]; out?: string; against?: string; profile: boolean } | {
  usage: string;
  help: boolean;
} {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        profile: { type: "boolean" },
        against: { type: "string" },
        runs: { type: "string" },
        only: { type: "string" },
        out: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (e) {
    return { usage: `bench: ${e instanceof Error ? e.message : String(e)}\n${USAGE}`, help: false };
  }
  if (values.help === true) return { usage: USAGE, help: true };
  const runsText = values.runs ?? env("BLADE_BENCH_RUNS") ?? "7";
  const runs = Number(runsText);
  if (!Number.isInteger(runs) || runs < 1) {
    return {
      usage: `bench: --runs must be a whole number of at least 1, not "${runsText}"\n${USAGE}`,
      help: false,
    };
  }
  const only = values.only?.split(",") ?? [...GROUPS];
  const unknown = only.filter((g) => !(GROUPS as readonly string[]).includes(g));
  if (unknown.length > 0) {
    return {
      usage: `bench: unknown group ${unknown.join(", ")} (groups: ${GROUPS.join(", ")})\n${USAGE}`,
      help: false,
    };
  }
  return {
    runs,
    only,
    profile: values.profile === true,
    ...(values.out === undefined ? {} : { out: values.out }),
    ...(values.against === undefined ? {} : { against: values.against }),
  };
}

async function main(args: string[]): Promise<void> {
  const options = benchOptions(args, (name) => Deno.env.get(name));
  if ("usage" in options) {
    (options.help ? console.log : console.error)(options.usage);
    Deno.exit(options.help ? 0 : 2);
  }
  const { runs, only } = options;
  const values = { out: options.out, profile: options.profile };
  const out = values.out ?? `${ROOT}bench/results.json`;
  const dir = await Deno.makeTempDir({ prefix: "blade-bench-" });
  const workspace = `${dir}/ws`;
  await Deno.mkdir(workspace, { recursive: true });
  await Deno.writeTextFile(`${workspace}/main.ts`, 'console.log("hi");\n');
  const blade = await bladeCommand();
  // `deno task blade` runs the dev bundle when it is up to date: build it first, so every figure is of it.
  const { freshDevBundle } = await import("../lib/sys/dev_bundle.ts");
  if (freshDevBundle(ROOT.replace(/\/$/, "")) === undefined) {
    const { buildDevBundle } = await import("./bundle.ts");
    console.log(`dev bundle built: ${(await buildDevBundle()).entry}`);
  }
  const started = new Date();
  const loadBefore = loadAverage();
  console.log(
    `Blade bench: ${runs} runs per figure, alternating (Deno ${Deno.version.deno}, ${Deno.build.os}/${Deno.build.arch}, load ${loadBefore})`,
  );
  const rows: BenchRow[] = [];
  let profile: unknown = undefined;
  try {
    const ctx = { blade, dir, workspace, runs, log: (s: string) => console.log(s), against: options.against };
    for (const group of GROUPS.filter((g) => only.includes(g))) {
      const t0 = performance.now();
      rows.push(...await groupRows(group, ctx));
      console.error(`(${group} done in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    }
    if (values.profile === true) {
      const { benchProfile, formatProfile } = await import("./bench_profile.ts");
      // The sources (main.ts) and what `deno task blade` runs (launch.ts → the dev bundle), alternating.
      const sources = [...blade.slice(0, -1), `${ROOT}main.ts`];
      const targets = [{ name: "sources", cmd: sources }, { name: "bundle", cmd: blade }];
      const p = await benchProfile(targets, workspace, `${dir}/storage-profile`, runs);
      profile = p;
      console.log(formatProfile(p, targets.map((t) => t.name)));
    }
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  console.log(formatTable(rows));
  const result = {
    date: started.toISOString(),
    deno: Deno.version.deno,
    platform: `${Deno.build.os}/${Deno.build.arch}`,
    runs,
    loadAverage: { before: loadBefore, after: loadAverage() },
    rows,
    ...(profile === undefined ? {} : { profile }),
  };
  await Deno.mkdir(new URL(".", `file://${out}`).pathname, { recursive: true });
  await Deno.writeTextFile(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`Wrote ${out}`);
}

if (import.meta.main) await main(Deno.args);
