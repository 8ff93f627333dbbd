// Re-records the hook goldens of tests/fixtures/claude/hooks_*/ (docs/guides/hooks.md): runs Claude
// Code (`claude -p --output-format stream-json --verbose --include-hook-events`) against the loopback
// fake Anthropic server with real bash hook scripts in a throwaway, trusted project (the cases:
// tests/support/claude_hook_cases.ts), and stores per case: `stream.jsonl` (its output, ids kept, paths
// normalised), `stderr.txt`, `exit_code.txt`, `hook_inputs.jsonl` (what each hook read on stdin) and
// `requests.json` (per scripted model request: whether a subagent's, the text blocks of its last
// message and the hook lines of its system prompt; and the last request's text blocks). Claude Code
// runs with a throwaway HOME, a fake key, telemetry and non-essential traffic off, as SPEC §13 asks:
//   deno run -A scripts/record_claude_hooks.ts --claude <path to claude> [--only <case>]

import { parseArgs } from "node:util";
import { startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import {
  caseHandler,
  HOOK_CASES,
  type HookCase,
  isChild,
  systemHookLines,
  textsOf,
  writeCase,
} from "../tests/support/claude_hook_cases.ts";
import { runScript } from "./script_cli.ts";

const HELP = "Usage: deno run -A scripts/record_claude_hooks.ts --claude <path to claude> [--only <case>]";
const FIXTURES = decodeURIComponent(new URL("../tests/fixtures/claude/", import.meta.url).pathname);

async function record(claude: string, c: HookCase): Promise<Record<string, string>> {
  const home = await Deno.makeTempDir({ prefix: "cc-home-" });
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "cc-ws-" }));
  await writeCase(c, ws);
  // The folder is trusted, as a team's checkout would be (project settings and agents apply).
  await Deno.writeTextFile(
    `${home}/.claude.json`,
    JSON.stringify({ projects: { [ws]: { hasTrustDialogAccepted: true } } }),
  );
  const { handler, answered: main } = caseHandler(c);
  await using server = startFakeAnthropicServer({ handler });
  try {
    const out = await new Deno.Command(claude, {
      args: ["-p", c.prompt, "--output-format", "stream-json", "--verbose", "--include-hook-events"],
      cwd: ws,
      clearEnv: true,
      env: {
        HOME: home,
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        ANTHROPIC_BASE_URL: server.url,
        ANTHROPIC_API_KEY: "sk-ant-fake",
        DISABLE_TELEMETRY: "1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const norm = (t: string) => t.replaceAll(ws, "/WS").replaceAll(home, "/HOME");
    const inputs = await Deno.readTextFile(`${ws}/hook_inputs.jsonl`).catch(() => "");
    const last = main.at(-1);
    // Per request: what was new in it (its last message) and the hook lines of its system prompt.
    const requests = main.map((r) => ({
      child: isChild(c, r.body),
      last: textsOf((r.body.messages ?? []).slice(-1)),
      systemHookLines: systemHookLines(r.body),
    }));
    return {
      "stream.jsonl": norm(new TextDecoder().decode(out.stdout)),
      "stderr.txt": norm(new TextDecoder().decode(out.stderr)),
      "exit_code.txt": `${out.code}\n`,
      "hook_inputs.jsonl": norm(inputs),
      "requests.json": norm(
        JSON.stringify(
          { modelRequests: main.length, lastRequest: textsOf(last?.body.messages ?? []), requests },
          null,
          1,
        ),
      ) + "\n",
    };
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(ws, { recursive: true });
  }
}

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { claude: { type: "string" }, only: { type: "string" } } });
  if (values.claude === undefined) throw new TypeError("--claude is required");
  for (const c of HOOK_CASES) {
    if (values.only !== undefined && values.only !== c.name) continue;
    await Deno.mkdir(`${FIXTURES}${c.name}`, { recursive: true });
    for (const [file, text] of Object.entries(await record(values.claude, c))) {
      await Deno.writeTextFile(`${FIXTURES}${c.name}/${file}`, text);
    }
    // deno-lint-ignore no-console
    console.log(`recorded ${c.name}`);
  }
  return 0;
}

if (import.meta.main) await runScript(main, HELP);
