// deno-lint-ignore-file no-console -- a command-line script when run alone.
// Grep and Glob against ripgrep on a large tree (docs/reference/performance.md, "Search and run
// listings": the built-in search ≤ 2× rg, the rg path ≤ 1.2× rg). The tree is generated here, deterministically (a seeded
// generator): 15,000 source files of about 130 MB in all, in a git repository, plus a 1,500-file
// `build/` folder its .gitignore names. In one run, alternating, medians of 7: rg itself with the
// command line Grep gives it (scripts and tools read the same argv, search/rg_engine.ts), the Grep tool
// on its rg path and on its built-in search (in this process: the tool's own time, no CLI start-up),
// Glob against `rg --files` as Claude Code runs it for Glob, and the built-in search's first call in a
// new process (Blade's V8 flags, nothing compiled yet: what a `blade -p` with one Grep call pays).
// Run alone: deno run -A scripts/bench_search.ts [runs]

import process from "node:process";
import { median, type Stats, stats, timed } from "./bench_common.ts";
import { makeGrepTool } from "../lib/tools/grep.ts";
import { globTool } from "../lib/tools/glob.ts";
import { findRipgrep } from "../lib/sys/ripgrep.ts";
import { runTool, sandbox } from "../lib/testing/tool_harness.ts";
import { ripgrepArgs } from "../lib/tools/search/rg_engine.ts";
import { GREP_TIME_LIMIT_MS } from "../lib/tools/search/grep_query.ts";
import { bladeRunFlags } from "./release_inputs.ts";

export const TREE_FILES = 15_000;
const BUILD_FILES = 1_500;
export const GREP_PATTERN = "fn op_[a-z_]+\\(";
const GLOB_PATTERN = "**/*.rs";

/** mulberry32. */
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

const WORDS = [
  "let",
  "value",
  "compute",
  "result",
  "buffer",
  "state",
  "index",
  "handle",
  "error",
  "config",
  "node",
];
const EXTS = ["rs", "ts", "js", "md", "toml", "json", "py", "c"];

function line(random: () => number): string {
  const n = 3 + Math.floor(random() * 8);
  const words = Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]!);
  return `${"    ".repeat(Math.floor(random() * 3))}${words.join(" ")}(${Math.floor(random() * 1000)});`;
}

/** The tree: ~8.7 KB a file (130 MB in all); about 1 file in 30 defines `fn op_…(`. Returns its bytes. */
export async function makeTree(root: string): Promise<number> {
  const random = seeded(35);
  let bytes = 0;
  const write = async (rel: string, text: string) => {
    const path = `${root}/${rel}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, text);
    bytes += text.length;
  };
  await write(".gitignore", "build/\n*.tmp\n");
  await Deno.mkdir(`${root}/.git`, { recursive: true });
  await Deno.writeTextFile(`${root}/.git/HEAD`, "ref: refs/heads/main\n");
  const file = (i: number) => {
    const lines: string[] = [];
    const count = 70 + Math.floor(random() * 175);
    for (let l = 0; l < count; l++) lines.push(line(random));
    if (i % 30 === 7) {
      const name = `${WORDS[i % WORDS.length]}_${WORDS[Math.floor(i / 30) % WORDS.length]}`;
      lines.splice(Math.floor(count / 2), 0, `pub fn op_${name}(state: &mut State) {}`);
    }
    return `${lines.join("\n")}\n`;
  };
  for (let i = 0; i < TREE_FILES; i++) {
    const dir = `src/m${i % 150}/s${i % 7}`;
    await write(`${dir}/f${i}.${EXTS[i % EXTS.length]}`, file(i));
  }
  for (let i = 0; i < BUILD_FILES; i++) await write(`build/out${i % 20}/g${i}.rs`, file(i * 30 + 7));
  return bytes;
}

async function timeIt(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

export interface SearchBenchResult {
  treeMiB: number;
  rows: { name: string; stats: Stats; vsRg?: number; goal?: number; cpuMs?: number }[];
}

/** rg's arguments for the Grep call the bench times (count mode), as the rg engine builds them. */
function rgCountArgs(tree: string): string[] {
  return ripgrepArgs({
    pattern: GREP_PATTERN,
    root: tree,
    rootIsFile: false,
    mode: "count",
    ignoreCase: false,
    multiline: false,
    onlyMatching: false,
    before: 0,
    after: 0,
    globs: [],
    deadline: Date.now() + GREP_TIME_LIMIT_MS,
    now: () => Date.now(),
    signal: new AbortController().signal,
  });
}

/**
 * One built-in Grep call in a process of its own, run with Blade's own flags (its scoped permissions,
 * under which Deno checks each file it opens, and its V8 flags): what `blade -p` pays for its only call
 * (code not yet compiled), the tool's own time (this file run with --first-call).
 */
async function firstCallMs(tree: string): Promise<number> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...await bladeRunFlags(), new URL(import.meta.url).pathname, "--first-call", tree],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const ms = Number(new TextDecoder().decode(out.stdout).trim());
  if (!out.success || !Number.isFinite(ms)) throw new Error("the first-call run failed");
  return ms;
}

/** The --first-call run: one built-in Grep call over `tree`, its time printed in ms. */
async function firstCall(tree: string): Promise<void> {
  await using box = await sandbox();
  const ctx = { ...box.ctx(), workspaceRoot: tree };
  const builtin = makeGrepTool({ ripgrep: () => undefined });
  const ms = await timeIt(() =>
    runTool(builtin, { pattern: GREP_PATTERN, output_mode: "count", head_limit: 0 }, ctx)
  );
  console.log(ms.toFixed(1));
}

/** CPU time (user + system) of this process while `fn` runs, ms. */
async function cpuOf(fn: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

export async function benchSearch(runs: number): Promise<SearchBenchResult | { skipped: string }> {
  const rg = findRipgrep();
  if (rg === undefined) {
    return { skipped: "rg not installed (apt-get install ripgrep): no reference to compare with" };
  }
  await using box = await sandbox();
  const tree = `${box.workspace}/tree`;
  const bytes = await makeTree(tree);
  const ctx = { ...box.ctx(), workspaceRoot: tree };
  const withRg = makeGrepTool({ ripgrep: () => rg });
  const builtin = makeGrepTool({ ripgrep: () => undefined });
  const grepArgs = rgCountArgs(tree);
  const rgRun = (args: string[]) =>
    new Deno.Command(rg, { args, cwd: tree, stdout: "piped", stderr: "null" }).output();
  const globArgs = [
    "--files",
    "--null",
    "--glob",
    GLOB_PATTERN,
    "--no-ignore",
    "--hidden",
    "--sort=modified",
    tree,
  ];
  const input = { pattern: GREP_PATTERN, output_mode: "count" as const, head_limit: 0 };
  // Same answer from all three before anything is timed.
  const expected =
    new TextDecoder().decode((await rgRun(grepArgs)).stdout).split("\n").filter((l) => l !== "").length;
  if (expected === 0) throw new Error("the generated tree has no match: the bench would compare nothing");
  for (const tool of [withRg, builtin]) {
    const r = await runTool(tool, input, ctx);
    if (!r.content.endsWith(`across ${expected} files.`)) {
      throw new Error(`Grep disagrees with rg: ${r.content.slice(-200)}`);
    }
  }
  const samples = new Map<string, number[]>();
  const add = (name: string, ms: number) => samples.set(name, [...samples.get(name) ?? [], ms]);
  // CPU time, the figure a loaded machine changes least: rg's (all its threads, read by /usr/bin/time
  // on a run of its own) and the built-in search's (this process during the call).
  const cpu = { rg: [] as number[], builtin: [] as number[] };
  for (let i = 0; i < runs; i++) {
    add("rg -c (Grep's command line)", await timeIt(() => rgRun(grepArgs)));
    add("Grep count, rg path", await timeIt(() => runTool(withRg, input, ctx)));
    add("Grep count, built-in", await timeIt(() => runTool(builtin, input, ctx)));
    add("rg --files --sort=modified (Claude Code's Glob)", await timeIt(() => rgRun(globArgs)));
    add(`Glob ${GLOB_PATTERN}`, await timeIt(() => runTool(globTool, { pattern: GLOB_PATTERN }, ctx)));
    cpu.rg.push((await timed([rg, ...grepArgs], {}, tree)).cpuMs);
    cpu.builtin.push(await cpuOf(() => runTool(builtin, input, ctx)));
    add("Grep count, built-in, first call of a new process", await firstCallMs(tree));
  }
  const cpuMs: Record<string, number> = {
    "rg -c (Grep's command line)": median(cpu.rg),
    "Grep count, built-in": median(cpu.builtin),
  };
  return { treeMiB: bytes / 1024 / 1024, rows: resultRows(samples, cpuMs) };
}

/** Each measurement's row: its stats, its ratio to rg where it has a goal, its CPU where measured. */
function resultRows(
  samples: Map<string, number[]>,
  cpuMs: Record<string, number>,
): SearchBenchResult["rows"] {
  const rgGrep = median(samples.get("rg -c (Grep's command line)")!);
  const rgGlob = median(samples.get("rg --files --sort=modified (Claude Code's Glob)")!);
  const goals: Record<string, [number, number]> = {
    "Grep count, rg path": [rgGrep, 1.2],
    "Grep count, built-in": [rgGrep, 2],
    "Grep count, built-in, first call of a new process": [rgGrep, 2],
    [`Glob ${GLOB_PATTERN}`]: [rgGlob, 2],
  };
  return [...samples].map(([name, xs]) => {
    const s = stats(xs);
    const goal = goals[name];
    const row = goal === undefined
      ? { name, stats: s }
      : { name, stats: s, vsRg: s.median / goal[0], goal: goal[1] };
    // 0: /usr/bin/time is missing here, so rg's CPU is unknown.
    return cpuMs[name] === undefined || cpuMs[name] === 0 ? row : { ...row, cpuMs: cpuMs[name] };
  });
}

/** The bench's rows (scripts/bench.ts registers the group; `row` is its figure row). */
export async function searchRows<Row>(
  runs: number,
  log: (s: string) => void,
  row: (group: string, name: string, unit: string, s: Stats, note?: string) => Row,
): Promise<Row[]> {
  const r = await benchSearch(runs);
  if ("skipped" in r) {
    log(`search: skipped (${r.skipped})`);
    return [];
  }
  return r.rows.map((x) => {
    const notes = [
      x.vsRg === undefined
        ? `${r.treeMiB.toFixed(0)} MiB tree`
        : `${x.vsRg.toFixed(2)}× rg (goal ≤ ${x.goal}×)`,
    ];
    if (x.cpuMs !== undefined) notes.push(`CPU ${x.cpuMs.toFixed(0)} ms`);
    return row("search", x.name, "ms", x.stats, notes.join("; "));
  });
}

if (import.meta.main && Deno.args[0] === "--first-call") await firstCall(Deno.args[1]!);
else if (import.meta.main) {
  const r = await benchSearch(Number(Deno.args[0] ?? "7"));
  if ("skipped" in r) console.log(r.skipped);
  else {
    console.log(`tree: ${TREE_FILES} files, ${r.treeMiB.toFixed(0)} MiB (+ ${BUILD_FILES} ignored)`);
    for (const row of r.rows) {
      const ratio = (row.vsRg === undefined ? "" : `  ${row.vsRg.toFixed(2)}× rg (goal ≤ ${row.goal}×)`) +
        (row.cpuMs === undefined ? "" : `  CPU ${row.cpuMs.toFixed(0)} ms`);
      console.log(
        `${row.name}: median ${row.stats.median.toFixed(0)} ms (min ${row.stats.min.toFixed(0)})${ratio}`,
      );
    }
  }
}
