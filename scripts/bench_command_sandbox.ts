// deno-lint-ignore-file no-console -- a command-line script: printing is its job.
// The OS sandbox's cost per Bash command (docs/reference/performance.md): `bash -c true` started the
// way the Bash tool starts it (its own process group, lib/sys/process.ts) plainly and inside the
// bubblewrap sandbox of a writing session (tools/command_launch.ts's policy for a trusted workspace),
// the two measured in turn within each run so load on a shared machine hits them alike. Medians of
// BLADE_BENCH_RUNS × 5 commands (default 9 × 5). Without bubblewrap the figure is absent, not faked.
// Part of `deno task bench`; alone: `deno run -A scripts/bench_command_sandbox.ts`.

import { median } from "./bench_common.ts";
import { realPorts } from "../lib/sys/mod.ts";
import { osSandbox } from "../lib/sys/os_sandbox.ts";
import { bwrapArguments, commandSandboxPolicy } from "../lib/permissions/command_sandbox.ts";

export interface SandboxBenchFigure {
  commands: number;
  plainMs: number;
  sandboxedMs: number;
  minSandboxedMs: number;
  maxSandboxedMs: number;
}

export async function benchSandbox(options: { runs?: number } = {}): Promise<SandboxBenchFigure | undefined> {
  if ((await osSandbox()) !== "bwrap") return undefined;
  const runs = (options.runs ?? Number(Deno.env.get("BLADE_BENCH_RUNS") ?? 9)) * 5;
  const ports = realPorts();
  const dir = await ports.fs.realPath(await ports.fs.makeTempDir("blade-bench-sbx-"));
  try {
    const policy = commandSandboxPolicy({
      trusted: true,
      mode: "default",
      workspaceRoot: dir,
      storageRoot: `${dir}/.storage`,
      tempDir: "/tmp",
      network: false,
    });
    const sandbox = ["bwrap", ...bwrapArguments(policy, dir)];
    const time = async (argv: string[]) => {
      const [program, ...args] = argv;
      const start = performance.now();
      const r = await ports.process.run(program!, args, { cwd: dir, newProcessGroup: true });
      if (r.code !== 0) throw new Error(`${argv.join(" ")} failed: ${r.stderr}`);
      return performance.now() - start;
    };
    const plain: number[] = [];
    const boxed: number[] = [];
    for (let i = 0; i < runs; i++) {
      plain.push(await time(["bash", "-c", "true"]));
      boxed.push(await time([...sandbox, "bash", "-c", "true"]));
    }
    return {
      commands: runs,
      plainMs: median(plain),
      sandboxedMs: median(boxed),
      minSandboxedMs: Math.min(...boxed),
      maxSandboxedMs: Math.max(...boxed),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  const f = await benchSandbox();
  console.log(f === undefined ? "bubblewrap cannot run here" : JSON.stringify(f));
}
