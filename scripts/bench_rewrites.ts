// `deno task bench --only rewrites`: what each of the bundle's rewrites for speed buys
// (scripts/bundle_split.ts; docs/reference/performance.md, "Do the rewrites earn their keep?"). The same
// build as dist/ is made four times — with every rewrite, without each one in turn, and without any —
// and each runs `-p` single turn and the foreground delegation (child in a Worker) in the same rounds,
// alternating, through its own launcher.

import { join } from "node:path";
import { type Contender, otherBuildContenders, runContenders } from "./bench_e2e.ts";
import { type BenchRow, bladeEnv, processRow } from "./bench_common.ts";
import { type Rewrite, REWRITES } from "./bundle_split.ts";

export interface RewriteVariant {
  label: string;
  without: readonly Rewrite[];
}

/** The builds compared; the first is what ships. */
export const VARIANTS: readonly RewriteVariant[] = [
  { label: "bundle, all rewrites", without: [] },
  { label: "bundle without require isolation", without: ["require"] },
  { label: "bundle without eager compile", without: ["eager"] },
  { label: "bundle without rewrites", without: REWRITES },
];

/** Builds every variant into `dir` and returns their contenders (single turn, delegation fg). */
export async function rewriteContenders(dir: string): Promise<Contender[]> {
  const { buildBundle } = await import("./bundle.ts");
  const list: Contender[] = [];
  for (const v of VARIANTS) {
    const key = v.label.replace(/\W+/g, "-");
    const built = await buildBundle({ outDir: join(dir, key), without: v.without });
    const build = { label: v.label, argv: [built.launcher], env: { BLADE_DENO: Deno.execPath() } };
    const envFor = (name: string) => (url: string) =>
      bladeEnv(join(dir, `storage-${name}`), {
        ANTHROPIC_API_KEY: "bench-key",
        ANTHROPIC_BASE_URL: url,
        ...build.env,
      });
    list.push(...otherBuildContenders(build, envFor).filter((c) => c.background !== true));
  }
  return list;
}

/** The rows: each variant's figures, and how much slower than the build with all rewrites. */
export async function rewriteRows(
  dir: string,
  options: { workspace: string; runs: number },
): Promise<BenchRow[]> {
  const list = await rewriteContenders(dir);
  const results = await runContenders(list, options.workspace, options.runs);
  // CPU time comes in 10 ms steps (/usr/bin/time): its mean over the runs tells variants apart, its median may not.
  const meanCpu = (name: string) => {
    const cpu = results.get(name)!.runs.map((r) => r.cpuMs);
    return cpu.reduce((a, b) => a + b, 0) / cpu.length;
  };
  const rows = list.map((c) => ({
    ...processRow("rewrites", c.name, results.get(c.name)!.runs),
    note: `CPU mean ${meanCpu(c.name).toFixed(1)} ms`,
  }));
  const pct = (a: number, b: number) => `${a >= b ? "+" : ""}${(100 * (a - b) / b).toFixed(0)} %`;
  for (const row of rows) {
    const scenario = row.name.slice(row.name.indexOf(":"));
    const all = rows.find((r) => r.name === `${VARIANTS[0]!.label}${scenario}`)!;
    if (row !== all) {
      row.note += `; vs all rewrites: wall ${pct(row.median, all.median)}, CPU mean ${
        pct(meanCpu(row.name), meanCpu(all.name))
      }`;
    }
  }
  return rows;
}
