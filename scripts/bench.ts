// deno-lint-ignore-file no-console -- a command-line script: printing is its job.
// `deno task bench`: Blade's speed and memory figures, measured side by side in one run against
// loopback fake model servers (docs/reference/performance.md). Reports medians; the machine is noisy, so compare ratios.
//
//   start→request  process start of `blade -p` to the first provider request (fake Anthropic server)
//   delegation     parent → Task → child → final answer, end to end: wall time and peak RSS, plus the
//                  delegation overhead (parent's Task response sent → the child's first model request)
//   registry       loading 100 / 1,000 / 5,000 agent files across the five folders
//   store          sidecar writes per second with full fsync (sequential and 8 concurrent)
//   recovery       reconciling 1,000 orphans, per-orphan time by transcript length, resume cost by
//                  history length (scripts/bench_recovery.ts; its start-up comparison runs alone)
//   worktree       prepare + finish of a clean isolated child in a 1,000-file repository, next to bare
//                  git (scripts/bench_worktree.ts)
//
// Set BLADE_BENCH_RUNS to change the number of runs (default 9). Set BLADE_BENCH_CLAUDE to Claude
// Code's `claude` binary to run the same delegation against it side by side (install it with
// `npm install @anthropic-ai/claude-code` in a temp folder, then `node install.cjs` in its package
// folder; the binary is `node_modules/@anthropic-ai/claude-code/bin/claude.exe`).

import { startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import type { FakeResponse } from "../lib/testing/fake_model_server.ts";

const RUNS = Number(Deno.env.get("BLADE_BENCH_RUNS") ?? "9");
/** Keep Deno's module cache when HOME is pointed at a temp folder (a cold cache is not start-up). */
const DENO_DIR = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;
const root = new URL("..", import.meta.url).pathname;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The `blade` task's command line from deno.json, with `deno` replaced by this Deno. */
async function bladeCommand(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(`${root}deno.json`)) as { tasks: Record<string, string> };
  const parts = config.tasks.blade!.split(/\s+/);
  return [Deno.execPath(), ...parts.slice(1).map((p) => (p === "main.ts" ? `${root}main.ts` : p))];
}

interface ProcessRun {
  code: number;
  wallMs: number;
  maxRssKiB: number;
  stdout: string;
}

/** Runs a command under /usr/bin/time to read its peak RSS. */
async function timed(cmd: string[], env: Record<string, string>, cwd: string): Promise<ProcessRun> {
  const started = performance.now();
  const out = await new Deno.Command("/usr/bin/time", {
    args: ["-f", "__RSS__%M", ...cmd],
    env,
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const wallMs = performance.now() - started;
  const stderr = new TextDecoder().decode(out.stderr);
  const rss = Number(/__RSS__(\d+)/.exec(stderr)?.[1] ?? "0");
  return { code: out.code, wallMs, maxRssKiB: rss, stdout: new TextDecoder().decode(out.stdout) };
}

function firstUserText(body: { messages?: { content: unknown }[] }): string {
  return JSON.stringify(body.messages?.[0]?.content ?? "");
}

function assistantCount(body: { messages?: { role: string }[] }): number {
  return (body.messages ?? []).filter((m) => m.role === "assistant").length;
}

async function benchStartToRequest(cmd: string[], workspace: string, storage: string) {
  const arrivals: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    let arrivedAt = 0;
    await using server = await startFakeAnthropicServer({
      handler: () => {
        arrivedAt = performance.now();
        return { text: "ok" } satisfies FakeResponse;
      },
    });
    const env = {
      PATH: Deno.env.get("PATH") ?? "",
      DENO_DIR,
      HOME: storage,
      BLADE_STORAGE_ROOT: storage,
      ANTHROPIC_API_KEY: "bench-key",
      ANTHROPIC_BASE_URL: server.url,
      NO_COLOR: "1",
    };
    const start = performance.now();
    const run = await timed([...cmd, "-p", "say ok", "--provider", "anthropic"], env, workspace);
    if (run.code !== 0) throw new Error(`blade -p failed in the bench (exit ${run.code})`);
    arrivals.push(arrivedAt - start);
    if (Deno.env.get("BLADE_BENCH_VERBOSE")) {
      console.error({ toRequest: arrivedAt - start, wall: run.wallMs });
    }
    rss.push(run.maxRssKiB / 1024);
  }
  return { startToRequestMs: median(arrivals), peakRssMiB: median(rss) };
}

interface DelegationTarget {
  /** Command line before the prompt arguments. */
  cmd: string[];
  /** Arguments after the prompt. */
  args: string[];
  env: Record<string, string>;
}

/**
 * parent → delegation tool → child (one Read) → answer, against the loopback fake Anthropic server.
 * The same handler serves Blade (`Task`) and Claude Code (`Agent`): it answers with whichever
 * delegation tool the request offers.
 */
async function benchDelegation(target: DelegationTarget, workspace: string) {
  const walls: number[] = [];
  const rss: number[] = [];
  const overheads: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    let taskSentAt = 0;
    let childFirstAt = 0;
    await using server = await startFakeAnthropicServer({
      handler: (req) => {
        const body = req.body as {
          messages?: { role: string; content: unknown }[];
          tools?: { name: string }[];
        };
        const isChild = firstUserText(body).includes("BENCH_CHILD");
        const isParent = firstUserText(body).includes("BENCH_PARENT");
        const turn = assistantCount(body);
        const delegate = (body.tools ?? []).some((t) => t.name === "Agent") ? "Agent" : "Task";
        if (isParent && turn === 0) {
          taskSentAt = performance.now();
          return {
            toolCalls: [{
              name: delegate,
              input: {
                subagent_type: "Explore",
                description: "Find the entry point",
                prompt: "BENCH_CHILD: find the entry point of this project and report it.",
              },
            }],
          };
        }
        if (isChild && turn === 0) {
          childFirstAt = performance.now();
          return { toolCalls: [{ name: "Read", input: { file_path: `${workspace}/main.ts` } }] };
        }
        if (isChild) return { text: "The entry point is main.ts." };
        if (isParent) return { text: "The Explore agent reports that the entry point is main.ts." };
        return { text: "ok" };
      },
    });
    const env = { ...target.env, ANTHROPIC_API_KEY: "bench-key", ANTHROPIC_BASE_URL: server.url };
    const run = await timed(
      [...target.cmd, "-p", "BENCH_PARENT: where does this project start?", ...target.args],
      env,
      workspace,
    );
    if (run.code !== 0) {
      throw new Error(`delegation run failed in the bench (exit ${run.code}): ${run.stdout}`);
    }
    walls.push(run.wallMs);
    rss.push(run.maxRssKiB / 1024);
    overheads.push(childFirstAt - taskSentAt);
  }
  return { wallMs: median(walls), peakRssMiB: median(rss), delegationOverheadMs: median(overheads) };
}

/** 50 background children started at once (each two tool calls): time to all notices, RSS, writes. */
async function benchBackground(cmd: string[], workspace: string, storage: string, children = 50) {
  const calls = Array.from({ length: children }, (_, i) => ({
    name: "Task",
    input: {
      subagent_type: "Explore",
      description: `Background job ${i}`,
      prompt: `JOB-${i}: list the TypeScript files and read main.ts.`,
      run_in_background: true,
    },
  }));
  const script = {
    agents: {
      main: [{
        repeat_last: true,
        turns: [{ text: "Starting the jobs.", tool_calls: calls }, { text: "Waiting for notices." }, {
          text: "noted",
        }],
      }],
      Explore: [{
        turns: [
          { tool_calls: [{ name: "Glob", input: { pattern: "*.ts" } }] },
          { tool_calls: [{ name: "Read", input: { file_path: "main.ts" } }] },
          { text: "done" },
        ],
      }],
    },
  };
  const scriptPath = `${workspace}/../bg-bench.json`;
  await Deno.writeTextFile(scriptPath, JSON.stringify(script));
  const walls: number[] = [];
  const rss: number[] = [];
  const writesPerChild: number[] = [];
  for (let i = 0; i < Math.min(RUNS, 5); i++) {
    const root = `${storage}-bg-${i}`;
    const sessions = `${root}/agents/sessions`;
    await Deno.mkdir(sessions, { recursive: true });
    const watcher = Deno.watchFs(sessions);
    const temps = new Set<string>();
    const watching = (async () => {
      for await (const ev of watcher) for (const p of ev.paths) if (p.endsWith(".tmp")) temps.add(p);
    })();
    const env = {
      PATH: Deno.env.get("PATH") ?? "",
      DENO_DIR,
      HOME: root,
      BLADE_STORAGE_ROOT: root,
      BLADE_MAX_CONCURRENT_SUBAGENTS: String(children),
      NO_COLOR: "1",
    };
    const run = await timed(
      [
        ...cmd,
        "-p",
        "start the jobs",
        "--provider",
        "scripted",
        "--script",
        scriptPath,
        "--output-format",
        "json",
      ],
      env,
      workspace,
    );
    watcher.close();
    await watching;
    const result = JSON.parse(run.stdout.trim().split("\n").pop() ?? "{}") as {
      subagents?: { completed: number };
    };
    if (run.code !== 0 || result.subagents?.completed !== children) {
      throw new Error(`background bench run failed (exit ${run.code}): ${run.stdout.slice(0, 500)}`);
    }
    walls.push(run.wallMs);
    rss.push(run.maxRssKiB / 1024);
    writesPerChild.push(temps.size / children);
  }
  return { wallMs: median(walls), peakRssMiB: median(rss), writesPerChild: median(writesPerChild) };
}

async function main(): Promise<void> {
  const tmp = await Deno.makeTempDir({ prefix: "blade-bench-" });
  const workspace = `${tmp}/ws`;
  const storage = `${tmp}/storage`;
  await Deno.mkdir(workspace, { recursive: true });
  await Deno.writeTextFile(`${workspace}/main.ts`, 'console.log("hi");\n');
  const cmd = await bladeCommand();
  const lines: string[] = [];
  const out = (s: string) => {
    lines.push(s);
    console.log(s);
  };
  out(
    `Blade bench — ${RUNS} runs each, medians (Deno ${Deno.version.deno}, ${Deno.build.os}/${Deno.build.arch})`,
  );
  try {
    const start = await benchStartToRequest(cmd, workspace, storage);
    out(
      `blade -p start → first provider request: ${start.startToRequestMs.toFixed(0)} ms; peak RSS ${
        start.peakRssMiB.toFixed(1)
      } MiB`,
    );
    const bladeEnv = (sandbox: string) => ({
      PATH: Deno.env.get("PATH") ?? "",
      DENO_DIR,
      HOME: storage,
      BLADE_STORAGE_ROOT: storage,
      NO_COLOR: "1",
      BLADE_CHILD_SANDBOX: sandbox,
    });
    const blade: Record<string, Awaited<ReturnType<typeof benchDelegation>>> = {};
    for (const sandbox of ["worker", "none"]) {
      const del = await benchDelegation(
        { cmd, args: ["--provider", "anthropic"], env: bladeEnv(sandbox) },
        workspace,
      );
      blade[sandbox] = del;
      out(
        `delegation e2e, child ${
          sandbox === "worker" ? "in a Worker (default)" : "in-process (BLADE_CHILD_SANDBOX=none)"
        }: ${del.wallMs.toFixed(0)} ms wall; peak RSS ${del.peakRssMiB.toFixed(1)} MiB; delegation overhead ${
          del.delegationOverheadMs.toFixed(1)
        } ms`,
      );
    }
    const claude = Deno.env.get("BLADE_BENCH_CLAUDE");
    if (claude === undefined) {
      out("Claude Code comparison: skipped (set BLADE_BENCH_CLAUDE to its `claude` binary)");
    } else {
      const home = await Deno.makeTempDir({ prefix: "blade-bench-claude-" });
      const cc = await benchDelegation({
        cmd: [claude],
        args: ["--output-format", "json"],
        env: {
          PATH: Deno.env.get("PATH") ?? "",
          HOME: home,
          DISABLE_TELEMETRY: "1",
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        },
      }, workspace);
      await Deno.remove(home, { recursive: true }).catch(() => {});
      const b = blade["worker"]!;
      out(
        `Claude Code, same delegation: ${cc.wallMs.toFixed(0)} ms wall; peak RSS ${
          cc.peakRssMiB.toFixed(1)
        } MiB; ` +
          `delegation overhead ${cc.delegationOverheadMs.toFixed(1)} ms → Blade/Claude Code: wall ${
            (b.wallMs / cc.wallMs).toFixed(2)
          }, memory ${(b.peakRssMiB / cc.peakRssMiB).toFixed(2)}`,
      );
    }
    const bg = await benchBackground(cmd, workspace, storage);
    out(
      `50 background children (2 tool calls each) → all notices delivered: ${bg.wallMs.toFixed(0)} ms wall ` +
        `(whole blade -p run); peak RSS ${bg.peakRssMiB.toFixed(1)} MiB; sidecar writes per child ${
          bg.writesPerChild.toFixed(1)
        }`,
    );
    const { benchRegistry, formatRegistryBench } = await import("./bench_registry.ts");
    out(formatRegistryBench(await benchRegistry()));
    try {
      const store = await import("./bench_store.ts") as { benchStore?: () => Promise<unknown> };
      if (store.benchStore !== undefined) out(`sidecar store: ${JSON.stringify(await store.benchStore())}`);
    } catch (e) {
      out(`sidecar store bench unavailable: ${(e as Error).message}`);
    }
    const { benchRecovery, formatRecoveryBench } = await import("./bench_recovery.ts");
    out(formatRecoveryBench(await benchRecovery()));
    const { benchWorktree, formatWorktreeBench } = await import("./bench_worktree.ts");
    out(formatWorktreeBench(await benchWorktree()));
  } finally {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await main();
