// Owns the command line: parses arguments, dispatches to commands, and turns every outcome into an
// exit code (0 success, 1 failure, 2 usage, 130 interrupted). The only layer that prints.

import { parseArgs } from "./parse_args.ts";
import type { Ports } from "../sys/mod.ts";
import { usageError } from "../errors.ts";
import { parseOrUsage, RUN_OPTIONS } from "./args.ts";
import { VERSION } from "../version.ts";
import type { Io } from "./io.ts";
import { reportError } from "./report_error.ts";
import { profileMark } from "../sys/profile.ts";
import { claudeArgv } from "./claude_argv.ts";
import { nearestWord } from "./did_you_mean.ts";

/** The subcommands (`help` is not offered for a typo: "hello there" is a prompt). */
const SUBCOMMANDS = [
  "agents",
  "tasks",
  "mcp",
  "hooks",
  "trust",
  "run",
  "demo",
  "memory",
  "context",
  "worker",
] as const;

export const MAIN_HELP = `Blade ${VERSION} — a command-line coding agent with durable subagents

Usage:
  blade ["prompt"] [options]         the interactive session on a terminal (/help inside it)
  blade -p "prompt" [options]        run the agent once and print the answer (prompt may come on stdin)
  blade run <agent> "prompt"         run one subagent directly (e.g. review, verification)
  blade agents list|show|validate|create   manage subagent definitions
  blade tasks list|output|wait|cancel|clean   inspect and control subagent runs
  blade worker [status] --store <url>   take remote children's jobs from the shared store
  blade trust [path] [--revoke|--status] [--json]   Workspace Trust
  blade mcp list [--json]            MCP servers of this folder: status and tools
  blade hooks list [--json]          hooks of this folder's runs and where each comes from
  blade memory [--json]              memory files (CLAUDE.md, …), skills and commands a session loads here
  blade demo                         a complete delegation flow against the built-in scripted model

Options for the interactive session, -p and run:
  -p, --print                 print mode: run the full agent loop, print the result, exit
  --output-format <f>         text (default) | json | stream-json (Claude Code's) | blade-events (Blade's own)
  --input-format <f>          text (default) | stream-json (user messages and the Agent SDK's control
                              requests as JSON lines on stdin; docs/guides/agent-sdk.md)
  --verbose                   with --output-format json: the JSON array of every message, the result last
  --include-partial-messages  stream-json: add stream_event lines while the answer streams
  --replay-user-messages      stream-json input: echo each user message back
  --model <name>              model id or alias (sonnet, opus, haiku, fable: claude-*-5-5); env BLADE_MODEL
  --effort <level>            low | medium | high | xhigh | max (models that take it; env CLAUDE_CODE_EFFORT_LEVEL)
  --provider <name>           anthropic | openai | scripted (default: from keys and config)
  --script <file>             script for the scripted provider (env BLADE_SCRIPT)
  --permission-mode <mode>    default | dontAsk | autoEdit | auto | yolo | plan (acceptEdits, bypassPermissions,
                              manual); auto: edits and read-only commands, no classifier for the rest
  --allowed-tools <rules>     tools allowed without approval, e.g. "Edit,Bash(git diff:*)"; also
                              --allowedTools, space-separated like Claude Code: --allowedTools Read Edit
  --disallowed-tools <rules>  deny rules: "Bash" removes the tool, "Bash(rm:*)" refuses matching calls
                              (also --disallowedTools)
  --tools <names>             only these built-in tools ("Read,Grep"; "" = none; "default" = all)
  --dangerously-skip-permissions  = --permission-mode bypassPermissions; in an untrusted folder it applies
                              to this run (the repository's settings, agents and MCP still do not load)
  --allow-dangerously-skip-permissions  stream-json input: set_permission_mode may go up to
                              bypassPermissions (grants nothing by itself)
  --settings <file|json>      a Claude Code settings layer for this run
  --system-prompt <text>      replace the base system prompt
  --append-system-prompt <t>  append to the system prompt
  --output-style <name>       the output style (Explanatory, Learning, or a file's; setting outputStyle)
  --system-prompt-file <f>    replace the base system prompt with a file's text
  --append-system-prompt-file <f>  append a file's text to the system prompt
  --max-turns <n>             stop after n model requests (error max_turns_exceeded)
  -c, --continue              continue the most recent session of this folder (none: a fresh one)
  -r, --resume <id|name>      continue a session by id, or by the name --name gave it
  -n, --name <name>           the session's display name (resume lists show it)
  -w, --worktree [name]       run the session in a managed git worktree of this repository (kept if changed)
  --session-id <uuid>         the id of the new session (a UUID, as Claude Code)
  --fork-session              with --resume/--continue: continue a copy under a new id
  --max-budget-usd <usd>      stop when the run's cost passes this (subtype error_max_budget_usd)
  --agents <json>             extra subagent definitions for this run only (strict JSON)
  --mcp-config <file|json>    MCP servers ({"mcpServers": …}) for this run (repeatable)
  --strict-mcp-config         use only the --mcp-config servers (not .mcp.json or settings)
  --trust-workspace           trust this folder for this run only
  --require-sandbox           refuse commands where no OS sandbox can run (instead of one warning)
  --store <url>               nats://host:port[,…] or tls://…: records in a shared NATS JetStream store
                              (setting store; docs/guides/remote.md)
  --store-creds <file>        the store's .creds or nkey seed file (setting storeCreds)
  --remote-children           background subagents run on workers (blade worker; needs --store)
  --background-wait <sec>     how long print mode waits for background subagents (default: no limit)
  --agent <name>              run the main session as that agent (its prompt, tools, model)
  --json-schema <schema>      answer as one object matching this JSON Schema (inline or file): structured_output
  --fallback-model <model>    on an overloaded model (529), the session switches to this model (subagents too)
  --add-dir <dirs…>           folders the tools (and subagents) may also read and write, like the workspace
  --bare                      load no memory (CLAUDE.md), commands, skills, output styles or MCP servers
                              from files
  --permission-prompt-tool <t>  who approves calls that need approval: stdio (stream-json input: the Agent
                              SDK's canUseTool) or an MCP tool mcp__<server>__<tool>
  --permission-prompts <p>    host (default) | none: nobody is asked, such calls are refused
  --setting-sources <list>    which settings files are read: user,project,local (empty: none)
  --disable-slash-commands    no skills and no custom slash commands
  --betas <names…>            more anthropic-beta names for every request
  -d, --debug [filter]        log provider requests and timings to stderr (keys redacted); env BLADE_DEBUG=1
  --debug-file <path>         the --debug lines go to this file (appended) instead
  Claude Code's other flags (--include-hook-events, --plugin-dir, --no-session-persistence, …) are
  accepted with one warning line naming each; docs/guides/migrating-from-claude-code.md lists them all.
  -v, --version               print the version
  -h, --help                  this help (also: blade <command> --help)

Exit codes: 0 success, 1 failure, 2 usage error, 130 interrupted.
Environment: ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, OPENAI_API_KEY, OPENAI_BASE_URL, BLADE_STORAGE_ROOT,
  BLADE_TRUST_WORKSPACE=1 (trust the folder, e.g. in CI); Claude Code's ANTHROPIC_AUTH_TOKEN,
  ANTHROPIC_MODEL, ANTHROPIC_DEFAULT_SONNET_MODEL, ANTHROPIC_DEFAULT_OPUS_MODEL,
  ANTHROPIC_DEFAULT_HAIKU_MODEL, CLAUDE_CODE_SUBAGENT_MODEL, ANTHROPIC_CUSTOM_HEADERS,
  CLAUDE_CODE_MAX_OUTPUT_TOKENS, MAX_THINKING_TOKENS, CLAUDE_CODE_MAX_RETRIES, API_TIMEOUT_MS,
  BASH_DEFAULT_TIMEOUT_MS, BASH_MAX_TIMEOUT_MS, BASH_MAX_OUTPUT_LENGTH, MAX_STRUCTURED_OUTPUT_RETRIES,
  CLAUDE_CONFIG_DIR (instead of ~/.claude), CLAUDE_CODE_API_KEY_HELPER_TTL_MS (settings apiKeyHelper).
Settings: ~/.blade/config.json, .blade/settings.json, and Claude Code's ~/.claude/settings.json,
  .claude/settings.json, .claude/settings.local.json (Blade's win). docs/guides/migrating-from-claude-code.md
Memory: CLAUDE.md files, .claude/commands, .claude/skills and output styles load as in Claude Code (project
  ones in trusted folders); blade memory lists them. docs/guides/memory.md
`;

/** `blade memory` and its alias `blade context` (cli/memory_cmd.ts). */
const MEMORY = ["memory", "context"];

/**
 * A first word that is a few letters off a subcommand ("blade tsaks list") is a usage error naming
 * it, not a prompt for the model: a prompt of bare words never starts with a near-command by chance
 * often enough to be worth a paid request (quote it to send it: `blade "tsaks list"`).
 */
function mistypedSubcommand(first: string | undefined): void {
  if (first === undefined || !/^[A-Za-z][A-Za-z-]*$/.test(first)) return;
  const near = nearestWord(first, SUBCOMMANDS);
  if (near === undefined) return;
  throw usageError(
    `Unknown command "${first}". Did you mean "${near}"?`,
    `Run \`blade ${near} --help\`. To send the words as a prompt, quote them: blade "${first} …".`,
  );
}

/** `blade <subcommand> …`: its exit code, or undefined when the first word names none (a prompt, flags). */
async function runSubcommand(argv: string[], o: { ports: Ports; io: Io }): Promise<number | undefined> {
  const { ports, io } = o;
  const first = argv[0];
  switch (first) {
    case "agents": {
      const { runAgents } = await import("./agents_cmd.ts");
      return await runAgents(argv.slice(1), ports, io);
    }
    case "tasks": {
      const { runTasks } = await import("./tasks_cmd.ts");
      return await runTasks(argv.slice(1), ports, io);
    }
    case "mcp": {
      const { runMcp } = await import("./mcp_cmd.ts");
      return await runMcp(argv.slice(1), ports, io);
    }
    case "hooks": {
      const { runHooks } = await import("./hooks_cmd.ts");
      return await runHooks(argv.slice(1), ports, io);
    }
    case "trust": {
      const { runTrust } = await import("./trust_cmd.ts");
      return await runTrust(argv.slice(1), ports, io);
    }
    case "run": {
      const { runAgentCommand } = await import("./run_cmd.ts");
      return await runAgentCommand(argv.slice(1), ports, io);
    }
    case "worker": {
      const { runWorkerCommand } = await import("./worker_cmd.ts");
      return await runWorkerCommand(argv.slice(1), ports, io);
    }
    case "demo": {
      const { runDemo } = await import("./demo_cmd.ts");
      return await runDemo(argv.slice(1), ports, io);
    }
    case "help":
      io.out(MAIN_HELP);
      return 0;
  }
  if (MEMORY.includes(first ?? "")) {
    return await (await import("./memory_cmd.ts")).runMemory(argv, ports, io);
  }
  return undefined;
}

export async function runCli(argv: string[], ports: Ports, io: Io): Promise<number> {
  const formatFlag = argv.find((a, i) =>
    argv[i - 1] === "--output-format" || a.startsWith("--output-format=")
  )
    ?.replace(/^--output-format=/, "");
  const management = ["agents", "tasks", "trust", "demo", "help", "worker", ...MEMORY].includes(
    argv[0] ?? "",
  );
  const errorFormat = !management && (formatFlag === "json" || formatFlag === "stream-json")
    ? "result"
    : argv.includes("--json") || formatFlag === "json"
    ? "json"
    : "text";
  try {
    const first = argv[0];
    const ran = await runSubcommand(argv, { ports, io });
    if (ran !== undefined) return ran;
    mistypedSubcommand(first);
    const { values, positionals } = parseOrUsage(
      () => parseArgs({ args: claudeArgv(argv), options: RUN_OPTIONS, allowPositionals: true, strict: true }),
      "blade",
    );
    if (values.version === true) {
      io.out(`blade ${VERSION}\n`);
      return 0;
    }
    if (values.help === true) {
      io.out(MAIN_HELP);
      return 0;
    }
    // Stream-json input is print mode without -p, as in Claude Code (the Agent SDK passes no -p).
    if (values.print !== true && values["input-format"] !== "stream-json") {
      if (positionals.length === 1 && /^[a-z][a-z-]*$/.test(positionals[0]!)) {
        throw usageError(`Unknown command "${positionals[0]}".`, "See `blade --help` for the commands.");
      }
      // The interactive session needs a terminal on both ends; scripts use print mode.
      if (!ports.env.stdinIsTerminal() || !ports.env.stdoutIsTerminal()) {
        throw usageError(
          "Not on a terminal: the interactive session needs one. Use print mode (-p) in scripts and pipes.",
          'Example: blade -p "explain this repository" (the prompt may also come on stdin). See `blade --help`.',
        );
      }
      const { runInteractive } = await import("./interactive/repl.ts");
      return await runInteractive(values, positionals, ports, io);
    }
    const { runPrint } = await import("./print_cmd.ts");
    profileMark("print command loaded");
    return await runPrint(values, positionals, ports, io);
  } catch (e) {
    return reportError(io, e, { format: errorFormat, echoToStdout: !management, ids: ports.ids });
  }
}
