// Shared pieces of the benchmarks (scripts/bench*.ts, docs/reference/performance.md): statistics,
// running a command under /usr/bin/time (wall, peak RSS, CPU time), the `blade` command line, and the
// loopback delegation scenario every end-to-end figure uses (parent → delegation tool → child → final
// answer: three streaming requests), with the bare-Deno floor program making the same requests.

import { startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import type { FakeAnthropicServer, FakeResponse } from "../lib/testing/fake_anthropic_server.ts";

export const ROOT = new URL("..", import.meta.url).pathname;
/** Keep Deno's module cache when HOME is pointed at a temp folder (a cold cache is not start-up). */
export const DENO_DIR = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export interface Stats {
  median: number;
  min: number;
  max: number;
  n: number;
}

export function stats(xs: readonly number[]): Stats {
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs), n: xs.length };
}

/** Wall-clock instant in epoch milliseconds, comparable with the marks of lib/sys/profile.ts. */
export function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * The `blade` task's command line from deno.json (launch.ts: the dev bundle when up to date), with this
 * Deno: this checkout's, or the checkout at `root` (its own flags, e.g. V8's, with its own launch.ts).
 */
export async function bladeCommand(root = ROOT): Promise<string[]> {
  const dir = root.endsWith("/") ? root : `${root}/`;
  const config = JSON.parse(await Deno.readTextFile(`${dir}deno.json`)) as { tasks: Record<string, string> };
  const parts = config.tasks.blade!.split(/\s+/);
  return [Deno.execPath(), ...parts.slice(1, -1), `${dir}${parts.at(-1)}`];
}

export interface ProcessRun {
  code: number;
  wallMs: number;
  /** Peak resident set of the process (the largest of it and its waited children), MiB. */
  peakRssMiB: number;
  /** User + system CPU time of the process and its waited children, ms (load-independent-ish). */
  cpuMs: number;
  startedAt: number;
  endedAt: number;
  stdout: string;
  stderr: string;
}

/** Runs a command under /usr/bin/time to read its peak RSS and CPU time. */
export async function timed(cmd: string[], env: Record<string, string>, cwd: string): Promise<ProcessRun> {
  const startedAt = epochNow();
  const out = await new Deno.Command("/usr/bin/time", {
    args: ["-f", "__BENCH__ %M %U %S", ...cmd],
    env,
    clearEnv: true,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const endedAt = epochNow();
  const stderr = new TextDecoder().decode(out.stderr);
  const m = /__BENCH__ (\d+) ([\d.]+) ([\d.]+)/.exec(stderr);
  return {
    code: out.code,
    wallMs: endedAt - startedAt,
    peakRssMiB: Number(m?.[1] ?? "0") / 1024,
    cpuMs: (Number(m?.[2] ?? "0") + Number(m?.[3] ?? "0")) * 1000,
    startedAt,
    endedAt,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: stderr.replace(/^__BENCH__.*$/m, ""),
  };
}

/** The environment every Blade run of the bench gets (nothing of the user's own settings). */
export function bladeEnv(storage: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "",
    DENO_DIR,
    HOME: storage,
    BLADE_STORAGE_ROOT: storage,
    NO_COLOR: "1",
    ...extra,
  };
}

export const PARENT_MARK = "BENCH_PARENT";
export const CHILD_MARK = "BENCH_CHILD";

type Body = {
  messages?: { role: string; content: unknown }[];
  tools?: { name: string }[];
};

/** When each request of one delegation run arrived at the server and when its answer was chosen. */
export interface DelegationArrivals {
  parent: number[];
  child: number[];
  /** Any other request (a single turn's "say ok", a title request). */
  other: number[];
}

/**
 * A loopback Anthropic server playing the delegation: the parent's first request gets a call of the
 * delegation tool it offers (Blade's `Task`, Claude Code's `Agent`), the child's first request gets the
 * answer, the parent's next request gets the final answer. Anything else (a title request) gets "ok".
 */
export function delegationServer(
  options: { background?: boolean } = {},
): { server: FakeAnthropicServer; arrivals: DelegationArrivals } {
  const arrivals: DelegationArrivals = { parent: [], child: [], other: [] };
  const server = startFakeAnthropicServer({
    handler: (req) => {
      const body = req.body as Body;
      const first = JSON.stringify(body.messages?.[0]?.content ?? "");
      const turn = (body.messages ?? []).filter((m) => m.role === "assistant").length;
      const delegate = (body.tools ?? []).some((t) => t.name === "Agent") ? "Agent" : "Task";
      if (first.includes(PARENT_MARK)) {
        arrivals.parent.push(epochNow());
        if (turn > 0) return { text: "The Explore agent reports that the entry point is main.ts." };
        return {
          toolCalls: [{
            name: delegate,
            input: {
              subagent_type: "Explore",
              description: "Find the entry point",
              prompt: `${CHILD_MARK}: find the entry point of this project and report it.`,
              ...(options.background === true ? { run_in_background: true } : {}),
            },
          }],
        };
      }
      if (first.includes(CHILD_MARK)) {
        arrivals.child.push(epochNow());
        return { text: "The entry point is main.ts." };
      }
      arrivals.other.push(epochNow());
      return { text: "ok" } satisfies FakeResponse;
    },
  });
  return { server, arrivals };
}

/** The prompt of the delegation scenario. */
export const DELEGATION_PROMPT = `${PARENT_MARK}: where does this project start?`;

/**
 * The physical floor: a bare Deno program making the same streaming requests as the delegation
 * (`requests` 3) or a single turn (1) with `fetch`, reading every byte. Written to `dir`.
 */
export async function writeFloorProgram(dir: string): Promise<string> {
  const path = `${dir}/floor.ts`;
  await Deno.writeTextFile(
    path,
    `const url = Deno.args[0] + "/v1/messages";
const requests = Number(Deno.args[1] ?? "3");
const tools = [{ name: "Task", description: "delegate", input_schema: { type: "object" } }];
const user = (text) => ({ role: "user", content: [{ type: "text", text }] });
async function ask(messages) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "bench-key", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 1024, stream: true, tools, messages }),
  });
  let bytes = 0;
  for await (const chunk of res.body) bytes += chunk.length;
  return bytes;
}
const parent = [user("${DELEGATION_PROMPT}")];
await ask(parent);
if (requests > 1) {
  await ask([user("${CHILD_MARK}: find the entry point of this project and report it.")]);
  await ask([...parent, { role: "assistant", content: [{ type: "text", text: "delegating" }] },
    user("The entry point is main.ts.")]);
}
`,
  );
  return path;
}

/** A row of the bench table (scripts/bench.ts prints them; each group's module builds its own). */
export interface BenchRow {
  group: string;
  name: string;
  unit: string;
  median: number;
  min: number;
  max: number;
  n: number;
  peakRssMiB?: number;
  cpuMs?: number;
  /** Wall time and peak RSS relative to the floor / to Claude Code, where the row has one. */
  vsFloor?: { wall: number; rss: number };
  vsClaude?: { wall: number; rss: number };
  note?: string;
}

/** A row from whole-process runs: wall-time stats, median peak RSS and CPU. */
export function processRow(
  group: string,
  name: string,
  runs: readonly ProcessRun[],
  note?: string,
): BenchRow {
  const s = stats(runs.map((r) => r.wallMs));
  return {
    group,
    name,
    unit: "ms",
    ...s,
    peakRssMiB: median(runs.map((r) => r.peakRssMiB)),
    cpuMs: median(runs.map((r) => r.cpuMs)),
    ...(note === undefined ? {} : { note }),
  };
}
