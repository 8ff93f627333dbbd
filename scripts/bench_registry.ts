// Benchmarks registry loading (docs/reference/performance.md): N agent files spread over the four agent folders
// (~/.claude/agents, <ws>/.claude/agents, <blade home>/agents, <ws>/.blade/agents; the built-ins
// are embedded), loaded through loadRegistry() on the real file system; median of several runs.
// Every tenth file reuses an earlier name, so overrides are part of the work.
//   deno run -A scripts/bench_registry.ts

import { median } from "./bench_common.ts";
import { loadRegistry } from "../lib/registry/mod.ts";
import { realFs } from "../lib/sys/fs.ts";

export interface RegistryBenchFigure {
  files: number;
  runs: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  /** Agents in the snapshot (built-ins included). */
  agents: number;
  diagnostics: number;
}

export interface RegistryBenchOptions {
  sizes?: readonly number[];
  /** Timed runs per size, after one warm-up run. */
  runs?: number;
}

const BODY = [
  "You are a focused specialist. Read the task, explore the relevant code, and report back.",
  "",
  "## How to work",
  "- Search broadly, then narrow down.",
  "- Quote file paths with line numbers.",
  "- Never change files unless the task asks for it.",
  "",
  "## Report",
  "Lead with the answer, then the evidence, then open questions.",
].join("\n").repeat(4);

function agentFile(name: string, i: number): string {
  const tools = i % 3 === 0 ? "tools: Read, Grep, Glob\n" : i % 3 === 1 ? "tools: [Read, Bash]\n" : "";
  return `---\nname: ${name}\ndescription: Agent number ${i}; use it for task family ${
    i % 17
  }.\n${tools}model: inherit\n---\n\n${BODY}\n`;
}

export async function benchRegistry(options: RegistryBenchOptions = {}): Promise<RegistryBenchFigure[]> {
  const sizes = options.sizes ?? [100, 1000, 5000];
  const runs = options.runs ?? 5;
  const fs = realFs();
  const root = await Deno.makeTempDir({ prefix: "blade-bench-registry-" });
  const figures: RegistryBenchFigure[] = [];
  try {
    for (const size of sizes) {
      const home = `${root}/${size}/home`;
      const workspace = `${root}/${size}/ws`;
      const dirs = [
        `${home}/.claude/agents`,
        `${workspace}/.claude/agents`,
        `${home}/.blade/agents`,
        `${workspace}/.blade/agents`,
      ];
      for (const dir of dirs) await Deno.mkdir(dir, { recursive: true });
      for (let i = 0; i < size; i++) {
        const name = i % 10 === 9 ? `agent-${i - 1}` : `agent-${i}`;
        await Deno.writeTextFile(`${dirs[i % dirs.length]}/file-${i}.md`, agentFile(name, i));
      }
      const input = { fs, home, workspace, trusted: true };
      const warm = await loadRegistry(input);
      const times: number[] = [];
      for (let r = 0; r < runs; r++) {
        const start = performance.now();
        await loadRegistry(input);
        times.push(performance.now() - start);
      }
      figures.push({
        files: size,
        runs,
        medianMs: Math.round(median(times) * 10) / 10,
        minMs: Math.round(Math.min(...times) * 10) / 10,
        maxMs: Math.round(Math.max(...times) * 10) / 10,
        agents: warm.snapshot.size,
        diagnostics: warm.diagnostics.length,
      });
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
  return figures;
}

/** The figures as a plain-text table. */
export function formatRegistryBench(figures: readonly RegistryBenchFigure[]): string {
  const header = ["files", "median ms", "min ms", "max ms", "agents", "diagnostics"];
  const rows = figures.map((f) =>
    [f.files, f.medianMs, f.minMs, f.maxMs, f.agents, f.diagnostics].map(String)
  );
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i]!)).join("  ");
  return [`Registry load (median of ${figures[0]?.runs ?? 0} runs)`, line(header), ...rows.map(line)].join(
    "\n",
  );
}

if (import.meta.main) {
  // deno-lint-ignore no-console
  console.log(formatRegistryBench(await benchRegistry()));
}
