// Re-records the hook goldens of tests/fixtures/claude/hooks_*/ (docs/guides/hooks.md): runs Claude
// Code (`claude -p --output-format stream-json --verbose --include-hook-events`) against the loopback
// fake Anthropic server with real bash hook scripts in a throwaway project, and stores per case:
// `stream.jsonl` (its output, ids kept, paths normalised), `hook_inputs.jsonl` (what each hook read on
// stdin) and `requests.json` (the text blocks of the last request the model was sent). Claude Code runs
// with a throwaway HOME, a fake key, telemetry and non-essential traffic off, as SPEC §13 asks:
//   deno run -A scripts/record_claude_hooks.ts --claude <path to claude> [--only <case>]

import { parseArgs } from "node:util";
import {
  type FakeResponse,
  fakeTurn,
  type RecordedRequest,
  startFakeAnthropicServer,
} from "../lib/testing/fake_anthropic_server.ts";
import type { AnthropicRequestBody } from "../lib/provider/anthropic_wire.ts";
import { runScript } from "./script_cli.ts";

const HELP = "Usage: deno run -A scripts/record_claude_hooks.ts --claude <path to claude> [--only <case>]";
const FIXTURES = decodeURIComponent(new URL("../tests/fixtures/claude/", import.meta.url).pathname);

/** One recorded case: hook scripts (`name` → bash body reading `$input`), settings, the model's turns. */
interface HookCase {
  name: string;
  prompt: string;
  scripts: Record<string, string>;
  /** The settings `hooks` object; `$name` in a command is the path of script `name`. */
  hooks: Record<string, unknown>;
  allow: string[];
  turns: FakeResponse[];
}

const command = (script: string) => ({ type: "command", command: `bash $WS/${script}.sh` });

export const HOOK_CASES: HookCase[] = [
  {
    // UserPromptSubmit blocking by exit 2: the prompt is not sent, the reason is shown.
    name: "hooks_prompt_block",
    prompt: "Do the secret thing.",
    scripts: { ups: `echo "Prompts about secrets are refused" >&2; exit 2` },
    hooks: { UserPromptSubmit: [{ hooks: [command("ups")] }] },
    allow: [],
    turns: [fakeTurn({ text: "Should not be asked." })],
  },
  {
    // UserPromptSubmit blocking by JSON, and additionalContext from a second prompt hook.
    name: "hooks_prompt_json",
    prompt: "Hello there.",
    scripts: {
      ups:
        `echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"json prompt context"}}'`,
    },
    hooks: { UserPromptSubmit: [{ hooks: [command("ups")] }] },
    allow: [],
    turns: [fakeTurn({ text: "Hi." })],
  },
];

async function record(claude: string, c: HookCase): Promise<Record<string, string>> {
  const home = await Deno.makeTempDir({ prefix: "cc-home-" });
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "cc-ws-" }));
  for (const [name, body] of Object.entries(c.scripts)) {
    await Deno.writeTextFile(
      `${ws}/${name}.sh`,
      `input=$(cat)\nprintf '{"hook":"%s","input":%s}\\n' '${name}' "$input" >> '${ws}/hook_inputs.jsonl'\n${body}\n`,
    );
  }
  const hooks = JSON.parse(JSON.stringify(c.hooks).replaceAll("$WS", ws));
  await Deno.mkdir(`${ws}/.claude`);
  await Deno.writeTextFile(
    `${ws}/.claude/settings.json`,
    JSON.stringify({ hooks, permissions: { allow: c.allow } }),
  );
  const queue = [...c.turns];
  const main: RecordedRequest<AnthropicRequestBody>[] = [];
  await using server = startFakeAnthropicServer({
    handler: (request) => {
      // Side requests (titles, quotas) get an empty answer; the scripted turns answer the main thread's.
      const body = request.body as AnthropicRequestBody & { tools?: unknown[] };
      if (request.path !== "/v1/messages" || (body.tools ?? []).length === 0) return fakeTurn({});
      main.push(request);
      return queue.shift() ?? fakeTurn({ text: "Out of script." });
    },
  });
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
    const texts = (last?.body.messages ?? []).flatMap((m) =>
      typeof m.content === "string"
        ? [{ role: m.role, type: "text", text: m.content }]
        : (m.content as Array<{ type: string; text?: string; content?: unknown }>).map((b) => ({
          role: m.role,
          type: b.type,
          text: b.text ?? (typeof b.content === "string" ? b.content : JSON.stringify(b.content)),
        }))
    );
    return {
      "stream.jsonl": norm(new TextDecoder().decode(out.stdout)),
      "stderr.txt": norm(new TextDecoder().decode(out.stderr)),
      "exit_code.txt": `${out.code}\n`,
      "hook_inputs.jsonl": norm(inputs),
      "requests.json": norm(JSON.stringify({ modelRequests: main.length, lastRequest: texts }, null, 1)) +
        "\n",
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
