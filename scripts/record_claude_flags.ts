// Re-records tests/fixtures/claude/flags/: `claude --help` of the installed Claude Code (help.txt) and,
// for each case of tests/support/flag_cases.ts, Claude Code's exit code for
// `claude -p "Say hi" --output-format json <case>` against the loopback fake server, in a git checkout
// with one commit (sweep.json). tests/flag_sweep_test.ts runs the same cases through Blade.
//   deno run -A scripts/record_claude_flags.ts --claude /path/to/claude

import { parseArgs } from "node:util";
import { fakeTurn, startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { FLAG_CASES, FLAG_FILES } from "../tests/support/flag_cases.ts";
import { runScript } from "./script_cli.ts";
import { claudeCodeEnv } from "./claude_code_env.ts";

const HELP = "Usage: deno run -A scripts/record_claude_flags.ts --claude <path to claude>";
const OUT = decodeURIComponent(new URL("../tests/fixtures/claude/flags/", import.meta.url).pathname);

async function git(dir: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", {
    args: ["-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=t", ...args],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
}

async function recordCase(claude: string, args: string[]): Promise<number> {
  const home = await Deno.makeTempDir({ prefix: "cc-home-" });
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "cc-ws-" }));
  try {
    for (const [f, text] of Object.entries(FLAG_FILES)) await Deno.writeTextFile(`${ws}/${f}`, text);
    await git(ws, "init", "-q");
    await git(ws, "add", ".");
    await git(ws, "commit", "-qm", "start");
    await using server = startFakeAnthropicServer({
      handler: (req) =>
        req.path === "/v1/messages" ? fakeTurn({ text: "Hi." }) : new Response("{}", { status: 404 }),
    });
    const out = await new Deno.Command(claude, {
      args: ["-p", "Say hi", "--output-format", "json", ...args],
      cwd: ws,
      clearEnv: true,
      env: claudeCodeEnv(home, server.url, { env: { IS_SANDBOX: "1" } }),
      stdin: "null",
      stdout: "null",
      stderr: "null",
      signal: AbortSignal.timeout(120_000),
    }).output();
    return out.code;
  } finally {
    await Deno.remove(home, { recursive: true }).catch(() => {});
    await Deno.remove(ws, { recursive: true }).catch(() => {});
  }
}

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { claude: { type: "string" } } });
  if (values.claude === undefined) throw new TypeError("--claude is required");
  await Deno.mkdir(OUT, { recursive: true });
  const help = await new Deno.Command(values.claude, {
    args: ["--help"],
    env: { HOME: await Deno.makeTempDir(), COLUMNS: "80" },
    stdout: "piped",
  }).output();
  await Deno.writeTextFile(`${OUT}help.txt`, new TextDecoder().decode(help.stdout));
  const sweep: { args: string[]; claudeExit: number }[] = [];
  for (const c of FLAG_CASES) {
    const code = await recordCase(values.claude, c.args);
    sweep.push({ args: c.args, claudeExit: code });
    // deno-lint-ignore no-console
    console.log(`${code} ${c.args.join(" ")}`);
  }
  await Deno.writeTextFile(`${OUT}sweep.json`, JSON.stringify(sweep, null, 1) + "\n");
  return 0;
}

await runScript(main, HELP);
