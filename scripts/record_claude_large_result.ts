// Re-records tests/fixtures/claude/large_result/: runs Claude Code (`claude -p`) on the cases of
// tests/support/large_result_cases.ts (a Bash call printing 200,000 characters, then a Read of the
// file the result points to; in a session and in a subagent) and stores what the model got: the
// `<persisted-output>` block (the path as `<PATH>`), the path's shape and how many of the five lines
// asked for the Read gave back. Install Claude Code as scripts/record_claude_fixtures.ts says:
//   deno run -A scripts/record_claude_large_result.ts --claude <path to claude>

import { parseArgs } from "node:util";
import { startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import {
  bigText,
  fromLargeResultChild,
  largeResultHandler,
  largeResultRecord,
} from "../tests/support/large_result_cases.ts";
import { runScript } from "./script_cli.ts";
import { claudeCodeEnv } from "./claude_code_env.ts";

const HELP = "Usage: deno run -A scripts/record_claude_large_result.ts --claude <path to claude>";
const FIXTURES = decodeURIComponent(
  new URL("../tests/fixtures/claude/large_result/", import.meta.url).pathname,
);

async function record(claude: string, child: boolean) {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "cc-home-" }));
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "cc-ws-" }));
  await Deno.writeTextFile(`${workspace}/big.txt`, bigText());
  await using server = startFakeAnthropicServer({ handler: largeResultHandler({ workspace, child }) });
  try {
    const out = await new Deno.Command(claude, {
      args: ["-p", "Print big.txt.", "--output-format", "json", "--dangerously-skip-permissions"],
      cwd: workspace,
      clearEnv: true,
      env: claudeCodeEnv(home, server.url, { env: { IS_SANDBOX: "1" } }),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(`exit ${out.code}: ${new TextDecoder().decode(out.stderr)}`);
    const normal = (t: string) =>
      t.replaceAll(workspace, "/WORKSPACE").replaceAll(home, "/HOME")
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "SESSION")
        .replace(/-tmp-cc-ws-[0-9a-f]+/g, "-WORKSPACE");
    const bodies = server.requests.filter((r) => r.path === "/v1/messages").map((r) => r.body);
    return largeResultRecord(child ? bodies.filter(fromLargeResultChild) : bodies, normal);
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(workspace, { recursive: true });
  }
}

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { claude: { type: "string" } } });
  if (values.claude === undefined) throw new TypeError("--claude is required");
  await Deno.mkdir(FIXTURES, { recursive: true });
  for (const [name, child] of [["main", false], ["child", true]] as const) {
    const r = await record(values.claude, child);
    await Deno.writeTextFile(`${FIXTURES}${name}.json`, JSON.stringify(r, null, 1) + "\n");
    // deno-lint-ignore no-console
    console.log(`recorded large_result/${name}`);
  }
  return 0;
}

if (import.meta.main) await runScript(main, HELP);
