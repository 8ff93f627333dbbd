// Remote children benchmark (docs/reference/performance.md, docs/guides/remote.md), through the real
// CLI with the scripted provider on one JetStream node on loopback: remote children per second with 1,
// 2 and 3 warm `blade worker` processes (a `blade -p` that fans out CHILDREN remote children and waits
// for every notice, children divided by its wall time), and the latency a remote child adds to a
// `blade -p` with one background child against the same child run locally (median of `runs`). Empty
// where nats-server is not installed. Every worker and the parent run on this one machine, so the
// figures measure Blade's overhead (snapshot, queue, checkout, result bundle, notice), not a cluster's.
// Run alone: deno run -A scripts/bench_remote_children.ts [runs]

import { bladeCommand, bladeEnv, stats, timed } from "./bench_common.ts";
import type { RemoteBenchRow } from "./bench_remote.ts";
import { findNatsServer, startNats } from "../lib/testing/nats_server.ts";

/** Remote children one fan-out starts. */
export const CHILDREN = 12;

function task(i: number, isolation: "remote" | "none"): Record<string, unknown> {
  return {
    name: "Task",
    input: {
      subagent_type: "Explore",
      description: `Job ${i}`,
      prompt: `Read notes.txt for job ${i}.`,
      run_in_background: true,
      isolation,
    },
  };
}

function script(calls: Record<string, unknown>[]): string {
  return JSON.stringify({
    agents: {
      main: [{ repeat_last: true, turns: [{ tool_calls: calls }, { text: "started" }, { text: "noted" }] }],
      Explore: [{
        turns: [{ tool_calls: [{ name: "Read", input: { file_path: "notes.txt" } }] }, { text: "done" }],
      }],
    },
  });
}

async function git(cwd: string, args: string[]): Promise<void> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.name=b", "-c", "user.email=b@b", ...args],
    cwd,
    stdout: "null",
    stderr: "null",
  }).output();
  if (!out.success) throw new Error(`git ${args.join(" ")} failed`);
}

interface Bench {
  blade: string[];
  dir: string;
  workspace: string;
  store: string;
}

/** One `blade -p` run of `scriptFile` in the workspace; its wall time (ms). */
async function parentRun(b: Bench, o: { scriptFile: string; storage: string }): Promise<number> {
  const run = await timed(
    [
      ...b.blade,
      "-p",
      "Fan out",
      "--provider",
      "scripted",
      "--script",
      o.scriptFile,
      "--store",
      b.store,
      "--trust-workspace",
    ],
    bladeEnv(o.storage),
    b.workspace,
  );
  if (run.code !== 0) throw new Error(`the parent failed (exit ${run.code}): ${run.stderr.slice(0, 400)}`);
  return run.wallMs;
}

/** Starts `n` workers (each its own storage root and HOME) and waits until each says it takes jobs. */
async function startWorkers(b: Bench, o: { n: number; scriptFile: string; tag: string }) {
  const workers: Deno.ChildProcess[] = [];
  for (let i = 0; i < o.n; i++) {
    const home = `${b.dir}/worker-${o.tag}-${i}`;
    await Deno.mkdir(home, { recursive: true });
    const [cmd, ...args] = [
      ...b.blade,
      "worker",
      "--store",
      b.store,
      "--provider",
      "scripted",
      "--script",
      o.scriptFile,
      "--concurrency",
      "2",
    ];
    const child = new Deno.Command(cmd!, {
      args,
      cwd: home,
      env: bladeEnv(`${home}/storage`, { HOME: home }),
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    while (!seen.includes("takes jobs")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`a worker exited before it took jobs: ${seen}`);
      seen += value;
    }
    void (async () => {
      while (!(await reader.read()).done) { /* drain */ }
    })();
    workers.push(child);
  }
  return {
    async [Symbol.asyncDispose]() {
      for (const w of workers) {
        w.kill("SIGTERM");
        await w.status;
      }
    },
  };
}

export async function benchRemoteChildren(options: { runs?: number } = {}): Promise<RemoteBenchRow[]> {
  const runs = Math.max(1, options.runs ?? 3);
  const binary = await findNatsServer();
  if (binary === null) return [];
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-bench-remote-children-" }));
  const workspace = `${dir}/ws`;
  await Deno.mkdir(workspace);
  await Deno.writeTextFile(`${workspace}/notes.txt`, "a line to read\n");
  await git(workspace, ["init", "-q"]);
  await git(workspace, ["add", "-A"]);
  await git(workspace, ["commit", "-q", "-m", "init"]);
  const files = {
    fanOut: `${dir}/fan-out.json`,
    oneRemote: `${dir}/one-remote.json`,
    oneLocal: `${dir}/one-local.json`,
  };
  await Deno.writeTextFile(
    files.fanOut,
    script(Array.from({ length: CHILDREN }, (_, i) => task(i, "remote"))),
  );
  await Deno.writeTextFile(files.oneRemote, script([task(0, "remote")]));
  await Deno.writeTextFile(files.oneLocal, script([task(0, "none")]));
  const rows: RemoteBenchRow[] = [];
  try {
    await using nats = await startNats(binary, { size: 1, dir: `${dir}/nats` });
    const b: Bench = { blade: await bladeCommand(), dir, workspace, store: nats.url };
    let round = 0;
    for (const n of [1, 2, 3]) {
      await using _workers = await startWorkers(b, { n, scriptFile: files.fanOut, tag: `fan${n}` });
      await parentRun(b, { scriptFile: files.fanOut, storage: `${dir}/warm-${n}` });
      const perSec: number[] = [];
      for (let r = 0; r < runs; r++) {
        const ms = await parentRun(b, { scriptFile: files.fanOut, storage: `${dir}/parent-${round++}` });
        perSec.push(CHILDREN / (ms / 1000));
      }
      const name = `remote children per second, ${n} worker${n === 1 ? "" : "s"}`;
      rows.push({ name, unit: "children/s", stats: stats(perSec) });
    }
    await using _one = await startWorkers(b, { n: 1, scriptFile: files.oneRemote, tag: "one" });
    const remote: number[] = [];
    const local: number[] = [];
    for (let r = 0; r <= runs; r++) {
      const remoteMs = await parentRun(b, { scriptFile: files.oneRemote, storage: `${dir}/one-remote-${r}` });
      const localMs = await parentRun(b, { scriptFile: files.oneLocal, storage: `${dir}/one-local-${r}` });
      if (r === 0) continue; // warm-up
      remote.push(remoteMs);
      local.push(localMs);
    }
    const added = remote.map((ms, i) => ms - local[i]!);
    rows.push({ name: "-p with one remote background child", unit: "ms", stats: stats(remote) });
    rows.push({ name: "-p with one local background child", unit: "ms", stats: stats(local) });
    rows.push({ name: "added latency of a remote child (median of pairs)", unit: "ms", stats: stats(added) });
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  return rows;
}

if (import.meta.main) {
  const runs = Number(Deno.args[0] ?? "3");
  for (const row of await benchRemoteChildren({ runs })) {
    // deno-lint-ignore no-console
    console.log(
      `${row.name}: median ${row.stats.median.toFixed(2)} (min ${row.stats.min.toFixed(2)}, max ${
        row.stats.max.toFixed(2)
      }, n ${row.stats.n})`,
    );
  }
}
