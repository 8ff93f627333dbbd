// Re-records tests/fixtures/claude/tools/: runs Claude Code (`claude -p`) against the loopback fake
// Anthropic server for each case of tests/support/claude_tool_cases.ts and stores what its requests
// show: the tools it offers (names and input schemas), the tool results and notices each request ends
// with, and its side requests (the web search request of WebSearch). Claude Code runs with tool search
// off (ENABLE_TOOL_SEARCH=false: every tool inline, callable at once); `tool_list` also records which
// tools it defers by default. Install Claude Code first (docs/guides/migrating-from-claude-code.md):
//   deno run -A scripts/record_claude_tools.ts --claude <path to claude> [--only <case>]
// Claude Code runs with a throwaway HOME, a fake key, telemetry and non-essential traffic off.

import { parseArgs } from "node:util";
import { startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import { caseHandler, TOOL_CASES, type ToolCase } from "../tests/support/claude_tool_cases.ts";
import { runScript } from "./script_cli.ts";
import { claudeCodeEnv } from "./claude_code_env.ts";

const HELP = "Usage: deno run -A scripts/record_claude_tools.ts --claude <path to claude> [--only <case>]";
const FIXTURES = decodeURIComponent(new URL("../tests/fixtures/claude/tools/", import.meta.url).pathname);

type Json = Record<string, unknown>;

async function git(cwd: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.email=golden@example.com", "-c", "user.name=golden", ...args],
    cwd,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
}

async function prepare(c: ToolCase, workspace: string): Promise<void> {
  for (const [file, text] of Object.entries(c.files ?? {})) {
    await Deno.writeTextFile(`${workspace}/${file}`, text);
  }
  if (c.git === undefined) return;
  await git(workspace, "init", "-q");
  await git(workspace, "add", "-A");
  await git(workspace, "commit", "-q", "--allow-empty", "-m", "init");
  for (const [file, text] of Object.entries(c.git.staged)) {
    await Deno.writeTextFile(`${workspace}/${file}`, text);
    await git(workspace, "add", file);
  }
}

/** Runs Claude Code on one case; returns the request bodies its fake server received. */
async function run(
  claude: string,
  c: ToolCase,
  toolSearch: boolean,
): Promise<{ bodies: Json[]; ws: string; home: string }> {
  const home = await Deno.makeTempDir({ prefix: "cc-home-" });
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "cc-ws-" }));
  await prepare(c, ws);
  await using server = startFakeAnthropicServer({ handler: caseHandler(c, ws) });
  const out = await new Deno.Command(claude, {
    args: [
      "-p",
      "Do the task.",
      "--output-format",
      "json",
      ...(c.mode === undefined ? [] : ["--permission-mode", c.mode]),
      ...(c.flags ?? []),
    ],
    cwd: ws,
    clearEnv: true,
    env: claudeCodeEnv(home, server.url, {
      env: { ...(toolSearch ? {} : { ENABLE_TOOL_SEARCH: "false" }), ...c.env },
    }),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (out.stdout.length === 0) {
    throw new Error(`${c.name}: no output (exit ${out.code}): ${new TextDecoder().decode(out.stderr)}`);
  }
  return { bodies: server.requests.map((r) => r.body as unknown as Json), ws, home };
}

/** A request as the fixture keeps it: model, tool names, the last message's blocks; a side request whole. */
function summary(body: Json): Json {
  const tools = body.tools as Json[] | undefined ?? [];
  const names = tools.map((t) => (t.name ?? t.type) as string);
  const messages = body.messages as { role: string; content: unknown }[];
  const last = messages.at(-1)?.content;
  const blocks = typeof last === "string" ? [{ type: "text", text: last }] : (last as Json[]);
  // Tool results and background notices; the session's opening context is left out.
  const kept = blocks.filter((b) => b.type !== "text" || String(b.text).includes("<task-notification>"))
    .map(({ cache_control: _c, ...b }) => b);
  if (names.includes("Bash")) return { model: body.model, tools: names, last: kept };
  const system = (body.system as { text: string }[] | undefined ?? []).map((s) => s.text)
    .filter((t) => !t.startsWith("x-anthropic-billing-header"));
  return { model: body.model, side: { system, messages, tools, tool_choice: body.tool_choice } };
}

/** The throwaway folders, the session's output folder and ids replaced, so the file is stable. */
function normalise(text: string, ws: string, home: string): string {
  return text.replaceAll(ws, "/WORKSPACE").replaceAll(home, "/HOME")
    .replace(/\/tmp\/claude-\d+\/[^\s"<\\]*/g, "/TASK_OUTPUT");
}

async function record(claude: string, c: ToolCase): Promise<void> {
  const { bodies, ws, home } = await run(claude, c, false);
  const fixture: Json = { case: c.name, requests: bodies.map(summary) };
  if (c.name === "tool_list") {
    const first = bodies[0]!;
    fixture.tools = (first.tools as Json[]).map((t) => ({ name: t.name, input_schema: t.input_schema }));
    const deferred = await run(claude, c, true);
    const top = deferred.bodies[0]!;
    const system = JSON.stringify(top.messages);
    const list = /before calling them:\\n((?:[A-Za-z]+\\n)+)/.exec(system)?.[1] ?? "";
    fixture.deferred = {
      inline: (top.tools as Json[]).map((t) => t.name).filter((n) => n !== "DeferredToolPlaceholder"),
      deferred: list.split("\\n").filter((n) => n !== ""),
    };
    await Deno.remove(deferred.ws, { recursive: true });
    await Deno.remove(deferred.home, { recursive: true });
  }
  await Deno.writeTextFile(
    `${FIXTURES}${c.name}.json`,
    normalise(JSON.stringify(fixture, null, 1), ws, home) + "\n",
  );
  await Deno.remove(ws, { recursive: true });
  await Deno.remove(home, { recursive: true });
}

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { claude: { type: "string" }, only: { type: "string" } } });
  if (values.claude === undefined) {
    throw Object.assign(new TypeError("--claude is required"), { code: "ERR_PARSE_ARGS_MISSING" });
  }
  await Deno.mkdir(FIXTURES, { recursive: true });
  for (const c of TOOL_CASES) {
    if (values.only !== undefined && values.only !== c.name) continue;
    await record(values.claude, c);
    // deno-lint-ignore no-console
    console.log(`recorded tools/${c.name}`);
  }
  return 0;
}

await runScript(main, HELP);
