// deno-lint-ignore-file no-console -- a command-line script: printing is its job.
// What hooks cost a tool call (docs/guides/hooks.md, docs/reference/performance.md). Two views:
//   - in-process, per call: the session's PreToolUse point (lib/hooks/session_hooks.ts) firing one
//     command hook (`true`, started as Blade starts hooks: in the session's OS sandbox, its JSON on
//     stdin) against the same point with no hook configured (no engine is built: the loop's hook point
//     is absent, executor/hooks.ts HookPoints answers without awaiting anything), medians of many calls;
//   - end to end: `blade -p` whose model makes 20 Read calls, without hooks and with that PreToolUse
//     hook, alternating rounds against a loopback fake model server; the difference per call.
//   deno run -A scripts/bench_hooks.ts [--runs N]

import { parseArgs } from "node:util";
import {
  type BenchRow,
  bladeCommand,
  bladeEnv,
  median,
  processRow,
  type ProcessRun,
  type Stats,
  stats,
  timed,
} from "./bench_common.ts";
import { fakeTurn, startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { realPorts } from "../lib/sys/mod.ts";
import { HookPoints, type ToolCallRequest } from "../lib/executor/hooks.ts";
import { HookEngine } from "../lib/hooks/hook_engine.ts";
import { hookCommandRunner } from "../lib/hooks/hook_command.ts";
import { sessionHooks } from "../lib/hooks/session_hooks.ts";
import { hooksOf } from "../lib/protocol/hook_config.ts";
import type { ToolContext } from "../lib/tools/tool.ts";

/** Tool calls per end-to-end run. */
export const CALLS = 20;

export interface HooksBenchFigures {
  /** One PreToolUse command hook, per call (in-process), ms. */
  hookMs: Stats;
  /** The same point with no hook configured: ms per 1,000 calls (= µs per call). */
  noneUs: Stats;
  plain: ProcessRun[];
  hooked: ProcessRun[];
}

const HOOKS = { PreToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: "true" }] }] };

/** In-process: `n` PreToolUse fires of a real command hook, and `n` calls of an absent point. */
async function perCall(dir: string, n: number): Promise<{ hookMs: number[]; noneUs: number[] }> {
  const ports = realPorts();
  const signal = new AbortController().signal;
  const ctx: ToolContext = {
    ports,
    sessionId: "bench",
    workspaceRoot: dir,
    storageRoot: `${dir}/.storage`,
    trusted: true,
    mode: "default",
    callId: "c",
    signal,
    emit: () => {},
  };
  const engine = new HookEngine(hooksOf(HOOKS, { source: "project", where: "bench" }).hooks, {
    clock: ports.clock,
    newId: () => ports.ids.uuid(),
  });
  const set = sessionHooks(engine, {
    sessionId: "bench",
    transcriptPath: `${dir}/t.jsonl`,
    cwd: dir,
    permissionMode: () => "default",
    runner: (c) => hookCommandRunner(c ?? ctx, { projectDir: dir, redact: (t) => t }),
    warn: (line) => {
      throw new Error(line);
    },
    signal,
  });
  const hooked = new HookPoints(set.loop, { emit: () => {}, sessionId: "bench" });
  const none = new HookPoints({}, { emit: () => {}, sessionId: "bench" });
  const request = {
    call: { type: "tool_call", id: "t", name: "Read", input: { file_path: "a.txt" } },
    input: { file_path: "a.txt" },
    ctx,
  } as unknown as ToolCallRequest;
  const hookMs: number[] = [];
  const noneUs: number[] = [];
  for (let i = 0; i < n; i++) {
    let start = performance.now();
    await hooked.beforePermission(request);
    hookMs.push(performance.now() - start);
    start = performance.now();
    for (let j = 0; j < 1000; j++) await none.beforePermission(request);
    noneUs.push(performance.now() - start);
  }
  return { hookMs, noneUs };
}

export async function benchHooks(o: { runs?: number; blade?: string[] } = {}): Promise<HooksBenchFigures> {
  const runs = o.runs ?? 7;
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-bench-hooks-" }));
  const plainDir = `${root}/plain`;
  const hookedDir = `${root}/hooked`;
  const storage = `${root}/storage`;
  for (const d of [plainDir, hookedDir, `${hookedDir}/.claude`, storage]) {
    await Deno.mkdir(d, { recursive: true });
  }
  for (const d of [plainDir, hookedDir]) await Deno.writeTextFile(`${d}/a.txt`, "hello\n");
  await Deno.writeTextFile(`${hookedDir}/.claude/settings.json`, JSON.stringify({ hooks: HOOKS }));
  // Each run: CALLS requests that each read a.txt, then a final answer (by the results so far).
  await using server = startFakeAnthropicServer({
    handler: (request) => {
      const results = JSON.stringify(request.body.messages ?? []).split('"tool_result"').length - 1;
      return results < CALLS
        ? fakeTurn({ toolCalls: [{ name: "Read", input: { file_path: "a.txt" } }] })
        : fakeTurn({ text: "read" });
    },
  });
  try {
    const calls = await perCall(hookedDir, 5 * runs + 5);
    const blade = o.blade ?? await bladeCommand();
    const env = bladeEnv(storage, {
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: "sk-ant-bench",
      BLADE_TRUST_WORKSPACE: "1",
    });
    const plain: ProcessRun[] = [];
    const hooked: ProcessRun[] = [];
    // One warm-up round, then alternating rounds so both see the same machine load.
    for (let round = 0; round <= runs; round++) {
      for (const [dir, into] of [[plainDir, plain], [hookedDir, hooked]] as const) {
        const run = await timed([...blade, "-p", "read it"], env, dir);
        if (run.code !== 0) {
          throw new Error(`blade -p failed in ${dir} (exit ${run.code}): ${run.stderr.slice(0, 400)}`);
        }
        if (round > 0) into.push(run);
      }
    }
    // The first call pays the hook modules' first use: left out of the per-call figure.
    return {
      hookMs: stats(calls.hookMs.slice(5)),
      noneUs: stats(calls.noneUs.slice(5)),
      plain,
      hooked,
    };
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/** The bench table's rows: the per-call figures, then both end-to-end runs with the difference per call. */
export async function hooksRows(blade: string[], runs: number): Promise<BenchRow[]> {
  const f = await benchHooks({ runs, blade });
  const process = (name: string, r: ProcessRun[], note?: string) => processRow("hooks", name, r, note);
  const perCall = (median(f.hooked.map((r) => r.wallMs)) - median(f.plain.map((r) => r.wallMs))) / CALLS;
  return [
    { group: "hooks", name: "PreToolUse command hook, per tool call", unit: "ms", ...f.hookMs },
    {
      group: "hooks",
      name: "no hook configured, per tool call",
      unit: "µs",
      // Each sample timed 1,000 calls in ms: the same number is µs per call.
      ...f.noneUs,
      note: "no engine, no hook point: the loop awaits nothing",
    },
    process(`blade -p, ${CALLS} Read calls, no hooks`, f.plain),
    process(
      `blade -p, ${CALLS} Read calls, a PreToolUse hook`,
      f.hooked,
      `+${perCall.toFixed(1)} ms per call end to end`,
    ),
  ];
}

if (import.meta.main) {
  const { values } = parseArgs({ args: Deno.args, options: { runs: { type: "string" } } });
  const rows = await hooksRows(await bladeCommand(), Number(values.runs ?? 7));
  for (const r of rows) {
    console.log(
      `${r.name}: median ${r.median.toFixed(3)} ${r.unit} (min ${r.min.toFixed(3)}, max ${r.max.toFixed(3)})${
        r.note === undefined ? "" : ` — ${r.note}`
      }`,
    );
  }
}
