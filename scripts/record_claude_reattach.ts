// Re-records tests/fixtures/claude/compaction/reattach.json: runs Claude Code (`claude -p`) on the
// session of tests/support/reattach_cases.ts (seven Reads, `/compact`, a new prompt) and stores which
// files its first request after the compaction re-attaches and how. Install Claude Code as
// scripts/record_claude_fixtures.ts says:
//   deno run -A scripts/record_claude_reattach.ts --claude <path to claude>

import { parseArgs } from "node:util";
import { startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import {
  REATTACH_RUNS,
  reattachFiles,
  reattachHandler,
  reattachRecord,
} from "../tests/support/reattach_cases.ts";
import { writeTree } from "./record_claude_context.ts";
import { runScript } from "./script_cli.ts";
import { claudeCodeEnv } from "./claude_code_env.ts";

const HELP = "Usage: deno run -A scripts/record_claude_reattach.ts --claude <path to claude>";
const FIXTURE = decodeURIComponent(
  new URL("../tests/fixtures/claude/compaction/reattach.json", import.meta.url).pathname,
);

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { claude: { type: "string" } } });
  if (values.claude === undefined) throw new TypeError("--claude is required");
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "cc-home-" }));
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "cc-ws-" }));
  await writeTree(workspace, reattachFiles());
  await using server = startFakeAnthropicServer({ handler: reattachHandler(workspace) });
  try {
    for (const run of REATTACH_RUNS) {
      const out = await new Deno.Command(values.claude, {
        args: [...run, "--output-format", "json", "--dangerously-skip-permissions"],
        cwd: workspace,
        clearEnv: true,
        env: claudeCodeEnv(home, server.url, { env: { IS_SANDBOX: "1" } }),
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      if (!out.success) throw new Error(`exit ${out.code}: ${new TextDecoder().decode(out.stderr)}`);
    }
    const last = server.requests.filter((r) => r.path === "/v1/messages").at(-1)!.body;
    await Deno.writeTextFile(FIXTURE, JSON.stringify(reattachRecord(last, workspace), null, 1) + "\n");
    // deno-lint-ignore no-console
    console.log("recorded compaction/reattach");
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(workspace, { recursive: true });
  }
  return 0;
}

if (import.meta.main) await runScript(main, HELP);
