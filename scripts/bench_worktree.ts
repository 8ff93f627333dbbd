// deno-lint-ignore-file no-console -- a command-line script: printing is its job.
// Worktree isolation cost (docs/guides/isolation.md): `git worktree add` for a child plus the finish
// of a clean successful child (the changed-files and commits check, `git worktree remove`, branch
// deletion) in a repository of 1,000 committed files, through the same code a launch uses
// (lib/worktree/lifecycle.ts), next to bare `git worktree add` + `remove` + `branch -D` (git's own cost:
// the checkout of 1,000 files dominates), and next to the disk's own floor: creating the same 1,000 files
// in a fresh folder and deleting them, which no git option can undercut. Medians of BLADE_BENCH_RUNS runs
// (default 9), the three measured in turn within each run so load on a shared machine hits them alike.
// Part of `deno task bench`; alone: `deno run -A scripts/bench_worktree.ts`.

import { median } from "./bench_common.ts";
import { join } from "node:path";
import { realPorts } from "../lib/sys/mod.ts";
import { processGit } from "../lib/worktree/git.ts";
import { finishWorktree, prepareWorktree, type WorktreeDeps } from "../lib/worktree/lifecycle.ts";

export interface WorktreeBenchFigure {
  files: number;
  runs: number;
  prepareMs: number;
  finishMs: number;
  totalMs: number;
  minTotalMs: number;
  maxTotalMs: number;
  /** Bare `git worktree add` + `git worktree remove` + `git branch -D` in the same repository: git's own cost. */
  bareGitMs: number;
  /** Writing the 1,000 files into a fresh folder and removing it: what the disk costs, git or not. */
  filesFloorMs: number;
}

/** The repository's files: `src/m<i % 20>/f<i>.ts`. */
async function writeFiles(root: string, files: number): Promise<void> {
  for (let i = 0; i < files; i++) {
    const sub = join(root, "src", `m${i % 20}`);
    if (i < 20) await Deno.mkdir(sub, { recursive: true });
    await Deno.writeTextFile(join(sub, `f${i}.ts`), `export const v${i} = ${i};\n`);
  }
}

export async function benchWorktree(
  options: { files?: number; runs?: number } = {},
): Promise<WorktreeBenchFigure> {
  const files = options.files ?? 1000;
  const runs = options.runs ?? Number(Deno.env.get("BLADE_BENCH_RUNS") ?? 9);
  const ports = realPorts();
  const dir = await ports.fs.realPath(await ports.fs.makeTempDir("blade-bench-wt-"));
  const repo = join(dir, "repo");
  const git = processGit(ports.process, ports.env);
  const must = async (cwd: string, args: string[]) => {
    const r = await git.run(cwd, ["-c", "user.name=b", "-c", "user.email=b@b.invalid", ...args]);
    if (!r.ok) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  };
  try {
    await writeFiles(repo, files);
    await must(repo, ["init", "--quiet", "-b", "main"]);
    await must(repo, ["add", "-A"]);
    await must(repo, ["commit", "--quiet", "-m", "files"]);
    const deps: WorktreeDeps = {
      git,
      fs: ports.fs,
      clock: ports.clock,
      worktreesDir: join(dir, "worktrees"),
    };
    const prepare: number[] = [];
    const finish: number[] = [];
    const total: number[] = [];
    const bare: number[] = [];
    const floor: number[] = [];
    for (let run = 0; run <= runs; run++) {
      const f0 = performance.now();
      const plain = join(dir, `plain-${run}`);
      await writeFiles(plain, files);
      await Deno.remove(plain, { recursive: true });
      if (run > 0) floor.push(performance.now() - f0);
      const b0 = performance.now();
      const path = join(dir, `bare-${run}`);
      await must(repo, ["worktree", "add", "--quiet", "-b", `bare-${run}`, path, "HEAD"]);
      await must(repo, ["worktree", "remove", path]);
      await must(repo, ["branch", "-D", `bare-${run}`]);
      if (run > 0) bare.push(performance.now() - b0);
      const t0 = performance.now();
      const lease = await prepareWorktree(deps, { workspaceRoot: repo, agentId: `agent-bench-${run}` });
      const t1 = performance.now();
      const out = await finishWorktree(deps, lease, true);
      const t2 = performance.now();
      if (out.kept) throw new Error(`a clean child's worktree was kept: ${out.reason}`);
      if (run === 0) continue; // warm-up: git's and the file system's caches
      prepare.push(t1 - t0);
      finish.push(t2 - t1);
      total.push(t2 - t0);
    }
    return {
      files,
      runs,
      prepareMs: median(prepare),
      finishMs: median(finish),
      totalMs: median(total),
      minTotalMs: Math.min(...total),
      maxTotalMs: Math.max(...total),
      bareGitMs: median(bare),
      filesFloorMs: median(floor),
    };
  } finally {
    await ports.fs.remove(dir, { recursive: true }).catch(() => {});
  }
}

export function formatWorktreeBench(f: WorktreeBenchFigure): string {
  return `worktree prepare + finish (clean child, ${f.files} files, median of ${f.runs}): ` +
    `${f.totalMs.toFixed(0)} ms (prepare ${f.prepareMs.toFixed(0)} ms, finish ${f.finishMs.toFixed(0)} ms; ` +
    `range ${f.minTotalMs.toFixed(0)}–${f.maxTotalMs.toFixed(0)} ms; target < 150 ms); bare git add+remove ` +
    `${f.bareGitMs.toFixed(0)} ms, so Blade's checks add ${(f.totalMs - f.bareGitMs).toFixed(0)} ms; ` +
    `creating and deleting the ${f.files} files alone ${f.filesFloorMs.toFixed(0)} ms (the disk's floor)`;
}

if (import.meta.main) console.log(formatWorktreeBench(await benchWorktree()));
