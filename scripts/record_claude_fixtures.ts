// Re-records tests/fixtures/claude/: runs Claude Code (`claude -p`) against the loopback fake Anthropic
// server for each scripted conversation of tests/support/claude_conversations.ts and stores its json
// and stream-json output. Install Claude Code first (docs/guides/migrating-from-claude-code.md):
//   npm install @anthropic-ai/claude-code@2.1.332 (into a temp folder), `node install.cjs` in its folder
//   deno run -A scripts/record_claude_fixtures.ts --claude /tmp/cc/node_modules/.bin/claude
// Claude Code runs with a throwaway HOME, a fake key, telemetry and non-essential traffic off.

import { parseArgs } from "node:util";
import { startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { CONVERSATIONS } from "../tests/support/claude_conversations.ts";
import { runScript } from "./script_cli.ts";
import { claudeCodeEnv } from "./claude_code_env.ts";

const HELP = "Usage: deno run -A scripts/record_claude_fixtures.ts --claude <path to claude> [--only <name>]";
const FIXTURES = decodeURIComponent(new URL("../tests/fixtures/claude/", import.meta.url).pathname);

async function record(claude: string, name: string, format: "json" | "stream-json"): Promise<string> {
  const conversation = CONVERSATIONS.find((c) => c.name === name)!;
  const home = await Deno.makeTempDir({ prefix: "cc-home-" });
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "cc-ws-" }));
  for (const [file, text] of Object.entries(conversation.files)) {
    await Deno.writeTextFile(`${workspace}/${file}`, text);
  }
  await using server = startFakeAnthropicServer({ handler: conversation.handler(workspace) });
  try {
    const out = await new Deno.Command(claude, {
      args: [
        "-p",
        conversation.prompt,
        "--output-format",
        format,
        ...(format === "stream-json" ? ["--verbose"] : []),
        ...conversation.flags,
      ],
      cwd: workspace,
      clearEnv: true,
      env: claudeCodeEnv(home, server.url),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    const stderr = new TextDecoder().decode(out.stderr);
    if (stdout.trim() === "") throw new Error(`${name}/${format}: no output (exit ${out.code}): ${stderr}`);
    // Paths of the throwaway folders are normalised so the fixture does not depend on the machine.
    return stdout.replaceAll(workspace, "/WORKSPACE").replaceAll(home, "/HOME");
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(workspace, { recursive: true });
  }
}

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { claude: { type: "string" }, only: { type: "string" } } });
  if (values.claude === undefined) {
    throw new TypeError(Object.assign(new TypeError("--claude is required"), {}).message);
  }
  for (const c of CONVERSATIONS) {
    if (values.only !== undefined && values.only !== c.name) continue;
    await Deno.mkdir(`${FIXTURES}${c.name}`, { recursive: true });
    for (const format of ["json", "stream-json"] as const) {
      const text = await record(values.claude, c.name, format);
      await Deno.writeTextFile(
        `${FIXTURES}${c.name}/${format === "json" ? "json.json" : "stream.jsonl"}`,
        text,
      );
      // deno-lint-ignore no-console
      console.log(`recorded ${c.name}/${format}`);
    }
  }
  return 0;
}

await runScript(main, HELP);
