// Re-records the hook goldens of tests/fixtures/claude/hooks_*/ (docs/guides/hooks.md): runs Claude
// Code (`claude -p --output-format stream-json --verbose --include-hook-events`) against the loopback
// fake Anthropic server with real bash hook scripts in a throwaway, trusted project (the cases:
// tests/support/claude_hook_cases.ts), and stores per case: `stream.jsonl` (its output, ids kept, paths
// normalised), `stderr.txt`, `exit_code.txt`, `hook_inputs.jsonl` (what each hook read on stdin) and
// `side_requests.json` (a `prompt` hook's side requests: sideRequest), `verifier_requests.json` and
// `verifier_wrote.txt` (an `agent` hook's verifier requests: verifierRequest; what its tools wrote) and `requests.json` (per scripted model request: whether a subagent's, the text blocks of its last
// message, the hook lines of its system prompt and its system turns carrying hook texts; and the last request's text blocks). Claude Code
// runs with a throwaway HOME, a fake key, telemetry and non-essential traffic off, as SPEC §13 asks.
// `hooks_notification` runs Claude Code's interactive session in tmux (its only Notification moments):
//   deno run -A scripts/record_claude_hooks.ts --claude <path to claude> [--only <case>]

import { parseArgs } from "node:util";
import { fakeTurn, startFakeAnthropicServer } from "../lib/testing/fake_anthropic_server.ts";
import {
  caseHandler,
  HOOK_CASES,
  type HookCase,
  isChild,
  sideRequest,
  systemHookLines,
  systemTurns,
  textsOf,
  verifierRequest,
  writeCase,
} from "../tests/support/claude_hook_cases.ts";
import { runScript } from "./script_cli.ts";
import { claudeCodeEnv } from "./claude_code_env.ts";

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
  const { handler, answered: main, sides, verifiers } = caseHandler(c, { ws });
  await using server = startFakeAnthropicServer({ handler });
  try {
    // A case with an earlier prompt runs it first; the case's prompt then continues that session.
    const run = (prompt: string, more: string[]) =>
      new Deno.Command(claude, {
        args: ["-p", prompt, ...more, "--output-format", "stream-json", "--verbose", "--include-hook-events"],
        cwd: ws,
        clearEnv: true,
        env: claudeCodeEnv(home, server.url, { env: { ANTHROPIC_API_KEY: "sk-ant-fake" } }),
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
    if (c.earlier !== undefined) await run(c.earlier, []);
    const out = await run(c.prompt, c.earlier === undefined ? [] : ["--continue"]);
    const norm = (t: string) => t.replaceAll(ws, "/WS").replaceAll(home, "/HOME");
    const inputs = await Deno.readTextFile(`${ws}/hook_inputs.jsonl`).catch(() => "");
    const last = main.at(-1);
    // Per request: what was new in it (its last message) and the hook lines of its system prompt.
    const requests = main.map((r) => ({
      child: isChild(c, r.body),
      last: textsOf((r.body.messages ?? []).slice(-1)),
      systemHookLines: systemHookLines(r.body),
      // The system turns carrying hook texts, as sent (Claude Code's environment turn without them left out).
      systemTurns: systemTurns(r.body).filter((t) => t.hooks.length > 0).map(({ text: _, ...t }) => t),
    }));
    // A `prompt` hook's side requests, as sent (the session's ids left as they were).
    const side = sides.length === 0
      ? {}
      : { "side_requests.json": norm(JSON.stringify(sides.map((r) => sideRequest(r.body)), null, 1)) + "\n" };
    // An `agent` hook's verifier requests, as sent; and whether its tools wrote in the project.
    const verifier = verifiers.length === 0 ? {} : {
      "verifier_requests.json": norm(JSON.stringify(verifiers.map((r) => verifierRequest(r.body)), null, 1)) +
        "\n",
      "verifier_wrote.txt": await Deno.readTextFile(`${ws}/verifier_wrote.txt`).catch(() => "(no file)\n"),
    };
    return {
      ...side,
      ...verifier,
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

/**
 * `hooks_notification`: Notification hooks fire only in Claude Code's interactive session, so it runs
 * in a tmux terminal: the fake key accepted, the mode cycled to manual (asking), a prompt whose Bash
 * call needs permission (`permission_prompt`), approved, then a minute idle at the prompt
 * (`idle_prompt`). Stores what the hook read on stdin. Takes about 80 seconds.
 */
async function recordNotification(claude: string): Promise<Record<string, string>> {
  const home = await Deno.makeTempDir({ prefix: "cc-home-" });
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "cc-ws-" }));
  const { tmux, screen, waitFor } = terminal(`cc-notification-${Deno.pid}`);
  await writeCase({
    name: "hooks_notification",
    prompt: "",
    scripts: { notif: "true" },
    hooks: { Notification: [{ hooks: [{ type: "command", command: "bash $WS/notif.sh" }] }] },
    allow: [],
    turns: [],
  }, ws);
  await Deno.writeTextFile(
    `${home}/.claude.json`,
    JSON.stringify({
      hasCompletedOnboarding: true,
      theme: "dark",
      projects: { [ws]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
    }),
  );
  const turns = [
    fakeTurn({ toolCalls: [{ name: "Bash", input: { command: "touch made.txt", description: "make" } }] }),
    fakeTurn({ text: "Done." }),
  ];
  await using server = startFakeAnthropicServer({
    handler: (request) => {
      const body = request.body as { tools?: unknown[] };
      if (request.path !== "/v1/messages" || (body.tools ?? []).length === 0) return fakeTurn({});
      return turns.shift() ?? fakeTurn({ text: "Out of script." });
    },
  });
  const env = [
    `HOME=${home}`,
    "PATH=/usr/bin:/bin",
    "TERM=xterm-256color",
    `ANTHROPIC_BASE_URL=${server.url}`,
    "ANTHROPIC_API_KEY=sk-ant-fake",
    "DISABLE_TELEMETRY=1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
  ];
  try {
    await tmux(
      "new-session",
      "-d",
      "-s",
      "cc",
      "-x",
      "120",
      "-y",
      "40",
      "-c",
      ws,
      "env",
      "-i",
      ...env,
      claude,
    );
    await driveNotifications({ tmux, screen, waitFor }, ws);
    const norm = (t: string) => t.replaceAll(ws, "/WS").replaceAll(home, "/HOME");
    return { "hook_inputs.jsonl": norm(await Deno.readTextFile(`${ws}/hook_inputs.jsonl`)) };
  } finally {
    await tmux("kill-server");
    await Deno.remove(home, { recursive: true });
    await Deno.remove(ws, { recursive: true });
  }
}

/** A tmux server of its own (`socket`) with one session `cc`: keys in, the screen out. */
function terminal(socket: string) {
  const tmux = (...args: string[]) =>
    new Deno.Command("tmux", { args: ["-L", socket, ...args], stdout: "piped", stderr: "null" }).output()
      .then((o) => new TextDecoder().decode(o.stdout));
  const screen = () => tmux("capture-pane", "-p", "-t", "cc");
  const waitFor = async (pattern: RegExp, ms = 20_000) => {
    for (const end = Date.now() + ms; Date.now() < end;) {
      if (pattern.test(await screen())) return;
      await new Promise((r) => setTimeout(r, 300));
    }
    throw new Error(`no ${pattern} on the screen:\n${await screen()}`);
  };
  return { tmux, screen, waitFor };
}

/** Claude Code's session to its two Notification moments: a permission question, then a minute idle. */
async function driveNotifications(term: ReturnType<typeof terminal>, ws: string): Promise<void> {
  const { tmux, screen, waitFor } = term;
  await waitFor(/Do you want to use this API key/);
  await tmux("send-keys", "-t", "cc", "Up");
  await tmux("send-keys", "-t", "cc", "Enter");
  await waitFor(/shift\+tab to cycle|for shortcuts/);
  for (let i = 0; i < 6 && !/manual mode on/.test(await screen()); i++) {
    await tmux("send-keys", "-t", "cc", "BTab");
    await new Promise((r) => setTimeout(r, 700));
  }
  await tmux("send-keys", "-t", "cc", "-l", "Make the file.");
  await tmux("send-keys", "-t", "cc", "Enter");
  await waitFor(/Do you want to proceed/);
  // Claude Code tells Notification hooks of a question only once it has waited unanswered a while.
  const asked = Date.now();
  await logged(ws, "permission_prompt", 30_000);
  // deno-lint-ignore no-console
  console.log(`permission_prompt notified ${Date.now() - asked} ms after the question showed`);
  await tmux("send-keys", "-t", "cc", "Enter");
  await waitFor(/Done\./, 30_000);
  // Claude Code says it waits for input after a minute idle.
  const done = Date.now();
  await logged(ws, "idle_prompt", 90_000);
  // deno-lint-ignore no-console
  console.log(`idle_prompt notified ${Date.now() - done} ms after the answer`);
}

/** Waits until a hook input naming `text` is logged in `ws`. */
async function logged(ws: string, text: string, ms: number): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end;) {
    const inputs = await Deno.readTextFile(`${ws}/hook_inputs.jsonl`).catch(() => "");
    if (inputs.includes(text)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no ${text} notification within ${ms} ms`);
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
  if (values.only === undefined || values.only === "hooks_notification") {
    await Deno.mkdir(`${FIXTURES}hooks_notification`, { recursive: true });
    for (const [file, text] of Object.entries(await recordNotification(values.claude))) {
      await Deno.writeTextFile(`${FIXTURES}hooks_notification/${file}`, text);
    }
    // deno-lint-ignore no-console
    console.log("recorded hooks_notification");
  }
  return 0;
}

if (import.meta.main) await runScript(main, HELP);
