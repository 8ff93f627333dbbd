// Re-records tests/fixtures/claude/caching/: runs Claude Code (`claude -p`) on the prompt-caching cases
// of tests/support/claude_caching_cases.ts (a main session reading files, a subagent doing the same)
// against the loopback fake Anthropic server, and stores each request's shape: which system blocks,
// tools and message blocks carry `cache_control` (no text). Install Claude Code as
// scripts/record_claude_fixtures.ts says:
//   deno run -A scripts/record_claude_caching.ts --claude <path to claude>

import { parseArgs } from "node:util";
import { startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { CACHING_CASES, type CachingCase, requestShape } from "../tests/support/claude_caching_cases.ts";
import { writeTree } from "./record_claude_context.ts";
import { runScript } from "./script_cli.ts";
import { claudeCodeEnv } from "./claude_code_env.ts";

const HELP = "Usage: deno run -A scripts/record_claude_caching.ts --claude <path to claude>";
const FIXTURES = decodeURIComponent(new URL("../tests/fixtures/claude/caching/", import.meta.url).pathname);

/** The cases the golden holds (the bench's session is measured by scripts/bench_caching.ts instead). */
export const GOLDEN_CASES = ["main", "subagent"];

async function record(claude: string, c: CachingCase): Promise<unknown[]> {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "cc-home-" }));
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "cc-ws-" }));
  await writeTree(workspace, c.files);
  await using server = startFakeAnthropicServer({ handler: c.handler(workspace) });
  try {
    const out = await new Deno.Command(claude, {
      args: ["-p", c.prompt, "--output-format", "json"],
      cwd: workspace,
      clearEnv: true,
      env: claudeCodeEnv(home, server.url),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(`${c.name}: exit ${out.code}: ${new TextDecoder().decode(out.stderr)}`);
    return server.requests.filter((r) => r.path === "/v1/messages").map((r) => requestShape(r.body));
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(workspace, { recursive: true });
  }
}

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { claude: { type: "string" } } });
  if (values.claude === undefined) throw new TypeError("--claude is required");
  await Deno.mkdir(FIXTURES, { recursive: true });
  for (const c of CACHING_CASES.filter((c) => GOLDEN_CASES.includes(c.name))) {
    const shapes = await record(values.claude, c);
    await Deno.writeTextFile(`${FIXTURES}${c.name}.json`, JSON.stringify(shapes, null, 1) + "\n");
    // deno-lint-ignore no-console
    console.log(`recorded caching/${c.name}: ${shapes.length} requests`);
  }
  return 0;
}

if (import.meta.main) await runScript(main, HELP);
