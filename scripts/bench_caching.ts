// Benchmarks prompt caching (docs/reference/limits.md "Prompt caching", docs/reference/performance.md):
// the 20-request session of tests/support/claude_caching_cases.ts (`bench_20`: 19 Reads of ~6 kB
// parts, then an answer) run by Blade and by Claude Code 2.1.332 (when installed), each with caching on
// and with DISABLE_PROMPT_CACHING=1, against a loopback fake server whose usage comes from a model of
// Anthropic's prompt cache (lib/testing/prompt_cache_sim.ts). The figure is billed input-token
// equivalents at the 5-minute cache prices (writes 1.25×, reads 0.1×), summed over the session's
// requests; the same model measures both CLIs.
//   deno run -A scripts/bench_caching.ts [--claude PATH]

import { parseArgs } from "node:util";
import { startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { billedInput, type CacheUsage, promptCacheSim } from "../lib/testing/prompt_cache_sim.ts";
import { CACHING_CASES } from "../tests/support/claude_caching_cases.ts";
import { bladeCommand, bladeEnv, type Stats } from "./bench_common.ts";
import type { BenchRow } from "./bench.ts";
import { findClaude } from "./bench_e2e.ts";
import { writeTree } from "./record_claude_context.ts";

export interface CachingFigures {
  who: "blade" | "claude code";
  caching: boolean;
  requests: number;
  usage: CacheUsage;
  billed: number;
}

const SESSION = CACHING_CASES.find((c) => c.name === "bench_20")!;

/** One session by one CLI: its requests and the usage the cache model reported, summed. */
async function session(
  cmd: string[],
  env: (url: string, home: string) => Record<string, string>,
  who: CachingFigures["who"],
  caching: boolean,
): Promise<CachingFigures> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "bench-cache-" }));
  const workspace = `${dir}/ws`;
  await Deno.mkdir(workspace);
  await writeTree(workspace, SESSION.files);
  const sim = promptCacheSim();
  const total: CacheUsage = { inputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 };
  let requests = 0;
  await using server = startFakeAnthropicServer({
    handler: SESSION.handler(workspace, (body) => {
      const u = sim.usage(body);
      requests++;
      total.inputTokens += u.inputTokens;
      total.cacheReadInputTokens += u.cacheReadInputTokens;
      total.cacheCreationInputTokens += u.cacheCreationInputTokens;
      return u;
    }),
  });
  try {
    const out = await new Deno.Command(cmd[0]!, {
      args: [...cmd.slice(1), "-p", SESSION.prompt, "--output-format", "json"],
      cwd: workspace,
      clearEnv: true,
      env: {
        ...env(server.url, `${dir}/home`),
        ANTHROPIC_BASE_URL: server.url,
        ANTHROPIC_API_KEY: "sk-ant-bench",
        ...(caching ? {} : { DISABLE_PROMPT_CACHING: "1" }),
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(`${who}: exit ${out.code}: ${new TextDecoder().decode(out.stderr)}`);
    return { who, caching, requests, usage: total, billed: billedInput(total) };
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** Blade's session with and without caching, then Claude Code's (when `claude` is given). */
export async function benchCaching(blade: string[], claude: string | undefined): Promise<CachingFigures[]> {
  const bladeEnvOf = (_url: string, home: string) => bladeEnv(home);
  const claudeEnvOf = (_url: string, home: string) => ({
    HOME: home,
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    DISABLE_TELEMETRY: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  });
  const figures: CachingFigures[] = [];
  for (const caching of [true, false]) {
    figures.push(await session(blade, bladeEnvOf, "blade", caching));
    if (claude !== undefined) figures.push(await session([claude], claudeEnvOf, "claude code", caching));
  }
  return figures;
}

/** The `caching` group's rows for `deno task bench`: one per CLI and setting, a skip line without Claude Code. */
export async function cachingRows(
  blade: string[],
  row: (group: string, name: string, unit: string, s: Stats, note?: string) => BenchRow,
): Promise<BenchRow[]> {
  const claude = await findClaude();
  const figures = await benchCaching(blade, claude);
  const rows = figures.map((f) => {
    const v = Math.round(f.billed);
    const u = f.usage;
    return row(
      "caching",
      `${f.who} 20-request session, ${f.caching ? "caching" : "DISABLE_PROMPT_CACHING=1"}`,
      "billed input tokens",
      { median: v, min: v, max: v, n: 1 },
      `${f.requests} requests; input ${u.inputTokens}, cache writes ${u.cacheCreationInputTokens}, reads ${u.cacheReadInputTokens}`,
    );
  });
  if (claude === undefined) {
    rows.push(
      row(
        "caching",
        "claude code 20-request session",
        "skipped",
        { median: NaN, min: NaN, max: NaN, n: 0 },
        "Claude Code not installed (BLADE_BENCH_CLAUDE)",
      ),
    );
  }
  return rows;
}

if (import.meta.main) {
  const { values } = parseArgs({ args: Deno.args, options: { claude: { type: "string" } } });
  const claude = values.claude ?? await findClaude();
  for (const f of await benchCaching(await bladeCommand(), claude)) {
    // deno-lint-ignore no-console
    console.log(
      `${f.who.padEnd(12)} ${f.caching ? "caching   " : "no caching"} requests ${f.requests}  billed ${
        Math.round(f.billed)
      }  (input ${f.usage.inputTokens}, writes ${f.usage.cacheCreationInputTokens}, reads ${f.usage.cacheReadInputTokens})`,
    );
  }
}
