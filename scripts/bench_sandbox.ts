// Benchmarks the two sandbox mechanisms (lib/child/sandbox.ts) side by side: child start cost
// (spawn → the child's first message, `ready`), median of N sequential starts, for a bare child and
// for one that loads zod + yaml like a child session; and memory per live child.
//   deno run -A --unstable-worker-options scripts/bench_sandbox.ts

import {
  childPermissions,
  type DenoPermissionSet,
  IGNORED_ENV,
} from "../lib/permissions/deno_permissions.ts";
import { type Sandbox, startSandbox } from "../lib/child/sandbox.ts";
import type { SandboxMechanism } from "../lib/child/sandbox_protocol.ts";
import { WORKER } from "../lib/child/worker_transport.ts";
import { PROCESS } from "./sandbox_process.ts";

export interface SandboxBenchFigure {
  mechanism: string;
  child: "bare" | "zod+yaml";
  runs: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
}

export interface SandboxMemoryFigure {
  mechanism: string;
  children: number;
  /** Memory added per live child (Worker: the parent's RSS growth; process: the child's own PSS). */
  mibPerChild: number | null;
}

export interface SandboxBench {
  start: SandboxBenchFigure[];
  memory: SandboxMemoryFigure[];
}

export interface SandboxBenchOptions {
  /** Timed starts per mechanism and child, after one warm-up start. */
  runs?: number;
  /** Live children for the memory figure. */
  children?: number;
}

const CHILDREN = {
  bare: new URL("../lib/testing/probe_child.ts", import.meta.url),
  "zod+yaml": new URL("./bench_sandbox_child.ts", import.meta.url),
} as const;
const MECHANISMS: SandboxMechanism[] = [WORKER, PROCESS];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const round = (n: number) => Math.round(n * 10) / 10;

async function timeStart(module: URL, mechanism: SandboxMechanism, permissions: DenoPermissionSet) {
  const start = performance.now();
  const sandbox = await startSandbox(module, { mechanism, permissions });
  const ms = performance.now() - start;
  await sandbox.cancel("measured");
  return ms;
}

/** Proportional set size (shared pages split between sharers), else RSS; null off Linux. */
async function memoryOf(pid: number): Promise<number | null> {
  for (const [file, key] of [["smaps_rollup", "Pss"], ["status", "VmRSS"]] as const) {
    try {
      const text = await Deno.readTextFile(`/proc/${pid}/${file}`);
      const kib = new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(text)?.[1];
      if (kib !== undefined) return Number(kib) * 1024;
    } catch { /* try the next source */ }
  }
  return null;
}

async function memoryPerChild(mechanism: SandboxMechanism, count: number, permissions: DenoPermissionSet) {
  const before = Deno.memoryUsage().rss;
  const live: Sandbox[] = [];
  try {
    for (let i = 0; i < count; i++) {
      live.push(await startSandbox(CHILDREN["zod+yaml"], { mechanism, permissions }));
    }
    await Promise.all(live.map((s) => s.request({ value: 1 })));
    if (mechanism === WORKER) return (Deno.memoryUsage().rss - before) / count;
    const sizes = await Promise.all(live.map((s) => s.pid === undefined ? null : memoryOf(s.pid)));
    if (sizes.some((s) => s === null)) return null;
    return (sizes as number[]).reduce((a, b) => a + b, 0) / count;
  } finally {
    await Promise.all(live.map((s) => s.cancel("measured")));
  }
}

export async function benchSandbox(options: SandboxBenchOptions = {}): Promise<SandboxBench> {
  const runs = options.runs ?? 20;
  const count = options.children ?? 10;
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-bench-sandbox-" }));
  const permissions = childPermissions({
    trusted: true,
    mode: "default",
    tools: ["Read", "Glob", "Grep"],
    workspaceRoot: root,
    storageRoot: `${root}/storage`,
    storageReadDirs: [`${root}/storage/projects/-bench`],
    providerHosts: ["127.0.0.1:8080"],
    // Under plain `-A` there is no --ignore-env for Workers to inherit, so grant what yaml reads.
    envNames: ["ANTHROPIC_API_KEY", ...IGNORED_ENV],
  });
  const start: SandboxBenchFigure[] = [];
  const memory: SandboxMemoryFigure[] = [];
  try {
    for (const [child, module] of Object.entries(CHILDREN) as [SandboxBenchFigure["child"], URL][]) {
      for (const mechanism of MECHANISMS) {
        await timeStart(module, mechanism, permissions); // warm-up: module cache, code cache
        const times: number[] = [];
        for (let r = 0; r < runs; r++) times.push(await timeStart(module, mechanism, permissions));
        start.push({
          mechanism: mechanism.name,
          child,
          runs,
          medianMs: round(median(times)),
          minMs: round(Math.min(...times)),
          maxMs: round(Math.max(...times)),
        });
      }
    }
    for (const mechanism of MECHANISMS) {
      const bytes = await memoryPerChild(mechanism, count, permissions);
      memory.push({
        mechanism: mechanism.name,
        children: count,
        mibPerChild: bytes === null ? null : round(bytes / 1024 / 1024),
      });
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
  return { start, memory };
}

/** The figures as a plain-text table. */
export function formatSandboxBench(bench: SandboxBench): string {
  const lines = [`Sandbox child start: spawn → first message (median of ${bench.start[0]?.runs ?? 0} runs)`];
  for (const f of bench.start) {
    lines.push(
      `  ${f.mechanism.padEnd(8)} ${
        f.child.padEnd(9)
      } median ${f.medianMs} ms  (min ${f.minMs}, max ${f.maxMs})`,
    );
  }
  lines.push("Memory per live child (zod+yaml child; Worker: parent RSS growth, process: child PSS)");
  for (const m of bench.memory) {
    lines.push(`  ${m.mechanism.padEnd(8)} ${m.mibPerChild ?? "n/a"} MiB  (${m.children} children)`);
  }
  return lines.join("\n");
}

if (import.meta.main) {
  // deno-lint-ignore no-console
  console.log(formatSandboxBench(await benchSandbox()));
}
