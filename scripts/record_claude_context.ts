// Re-records tests/fixtures/claude/context_*/: runs Claude Code (`claude -p`) on each case of
// tests/support/claude_context_cases.ts (memory files, commands, skills, agents, output styles) against
// the loopback fake Anthropic server and stores what reached the model: each request's messages, its
// tool names and the Skill tool's schema (and, for output styles, the system prompt). Paths of the
// throwaway folders become /ROOT and /HOME. Install Claude Code as scripts/record_claude_fixtures.ts says:
//   deno run -A scripts/record_claude_context.ts --claude <path to claude> [--only <case>]

import { parseArgs } from "node:util";
import { startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { CONTEXT_CASES, type ContextCase } from "../tests/support/claude_context_cases.ts";
import { runScript } from "./script_cli.ts";
import { claudeCodeEnv } from "./claude_code_env.ts";

const HELP = "Usage: deno run -A scripts/record_claude_context.ts --claude <path to claude> [--only <case>]";
const FIXTURES = decodeURIComponent(new URL("../tests/fixtures/claude/", import.meta.url).pathname);

/** Writes `files` under `root`, making folders as needed. */
export async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    const full = `${root}/${path}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(full, text);
  }
}

interface Recorded {
  messages: unknown[];
  tools: string[];
  skillTool?: unknown;
  system?: string;
}

async function record(claude: string, c: ContextCase): Promise<Recorded[]> {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "cc-home-" }));
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "cc-root-" }));
  await writeTree(root, c.files);
  await writeTree(home, c.homeFiles);
  await Deno.mkdir(`${root}/${c.cwd}`, { recursive: true });
  await using server = startFakeAnthropicServer({ handler: c.handler(root) });
  try {
    const out = await new Deno.Command(claude, {
      args: ["-p", c.prompt, "--output-format", "json", ...c.flags],
      cwd: `${root}/${c.cwd}`,
      clearEnv: true,
      env: claudeCodeEnv(home, server.url),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) {
      throw new Error(`${c.name}: exit ${out.code}: ${new TextDecoder().decode(out.stderr)}`);
    }
    const normal = (v: unknown) =>
      JSON.parse(JSON.stringify(v).replaceAll(root, "/ROOT").replaceAll(home, "/HOME")) as unknown;
    return server.requests.filter((r) => r.path === "/v1/messages").map((r) => {
      const body = r.body as unknown as {
        messages: unknown[];
        tools?: { name: string }[];
        system?: { text: string }[];
      };
      const skill = body.tools?.find((t) => t.name === "Skill");
      return {
        messages: normal(body.messages) as unknown[],
        tools: (body.tools ?? []).map((t) => t.name),
        ...(skill === undefined ? {} : { skillTool: normal(skill) }),
        ...(c.name === "output_style"
          ? { system: normal((body.system ?? []).map((s) => s.text).join("\n")) as string }
          : {}),
      };
    });
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(root, { recursive: true });
  }
}

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { claude: { type: "string" }, only: { type: "string" } } });
  if (values.claude === undefined) throw new TypeError("--claude is required");
  for (const c of CONTEXT_CASES) {
    if (values.only !== undefined && values.only !== c.name) continue;
    const dir = `${FIXTURES}context_${c.name}`;
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(
      `${dir}/requests.json`,
      JSON.stringify(await record(values.claude, c), null, 1) + "\n",
    );
    // deno-lint-ignore no-console
    console.log(`recorded context_${c.name}`);
  }
  return 0;
}

if (import.meta.main) await runScript(main, HELP);
