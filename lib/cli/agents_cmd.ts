// Owns `blade agents list|show|validate|create`: parses the command line, asks the
// registry, prints through Io. Usage mistakes and failures are thrown as BladeError for the caller to
// render; normal outcomes return the exit code. Does not define how agents load (registry/ does).

import { resolve } from "../path.ts";
import { type OptionSpecs, parseArgs } from "./parse_args.ts";
import { parsePermissionMode } from "../protocol/permission_mode.ts";
import { capMode } from "../permissions/ceiling.ts";
import { usageError } from "../errors.ts";
import { countDiagnostics, type Diagnostic } from "../registry/diagnostic.ts";
import { agentSourceDirs } from "../registry/discover.ts";
import { configuredClaudeDir } from "../config/claude_dir.ts";
import { listAgentFiles, loadAgentFile, loadAgents, type LoadedAgents } from "../registry/load.ts";
import { createAgentFile } from "../registry/create.ts";
import { AGENT_SOURCES, type AgentSource } from "../registry/schema.ts";
import { RegistrySnapshot } from "../registry/snapshot.ts";
import type { Ports } from "../sys/mod.ts";
import {
  agentJson,
  describeCounts,
  displayPath,
  formatDiagnostic,
  type PathStyle,
  renderAgentDetail,
  renderAgentList,
} from "./agents_render.ts";
import type { Io } from "./io.ts";
import { globalOptions } from "./args.ts";
import { createApp } from "../app.ts";

export interface AgentsCommandDeps {
  ports: Ports;
  io: Io;
  /** Canonical path of the folder the user works in. */
  workspace: string;
  trusted: boolean;
  home: string | undefined;
  /** Blade storage root; user agents live in `<storageRoot>/agents`. */
  storageRoot: string;
  /** The raw `--agents` value, when given. */
  agentsJson?: string;
}

const HELP = `Usage: blade agents <command> [options]

Manage the subagents Blade can delegate to.

Commands:
  list [--json] [--source <source>]    List the agents visible from this workspace (the default)
  show <name> [--json]                 Show one agent's settings and system prompt
  validate [paths...] [--json]         Check agent files and report problems
  create <name> --description <text>   Write a new agent file

Sources, lowest precedence first: ${AGENT_SOURCES.join(", ")}.
Run \`blade agents <command> --help\` for the options of a command.
`;

const COMMAND_HELP: Readonly<Record<string, string>> = {
  list: `Usage: blade agents list [--json] [--source <source>]

List the agents visible from this workspace, grouped by source. When two sources define the same name,
the later source wins: ${AGENT_SOURCES.join(" < ")}.

Options:
  --source <source>  Only agents from this source (${AGENT_SOURCES.join(", ")})
  --json             Print {"agents": [...], "diagnostics": [...]}
  -h, --help         Show this help
`,
  show: `Usage: blade agents show <name> [--json] [--permission-mode <mode>]

Show one agent: where it comes from, its tools, model, permission mode and system prompt, and the mode
it would run in when a session in --permission-mode (default: default) starts it (the capability
ceiling: a child never runs in a wider mode than its parent).

Options:
  --json                    Print {"agent": {...}, "diagnostics": [...]}
  --permission-mode <mode>  The starting session's mode (default, dontAsk, autoEdit, yolo, plan)
  -h, --help  Show this help
`,
  validate: `Usage: blade agents validate [paths...] [--json]

Check agent files and print one line per problem: file:line: severity: message.
Without paths, checks every source visible from this workspace; a path may be a file or a folder.
Exits with 1 when any error is found.

Options:
  --json      Print {"ok": ..., "files": ..., "counts": {...}, "diagnostics": [...]}
  -h, --help  Show this help
`,
  create: `Usage: blade agents create <name> --description <text> [options]

Write a new agent file: <storage root>/agents/<name>.md (--user, the default) or
<workspace>/.blade/agents/<name>.md (--project, trusted workspaces only).

Options:
  --description <text>  When the parent should use this agent (required)
  --tools <a,b>         Comma-separated tools; leave out to inherit every tool, "" for none
  --model <model>       Model alias (sonnet, opus, haiku), model id, or inherit
  --prompt <text>       The system prompt (default: a short generic prompt to edit)
  --project             Create it in this workspace's .blade/agents
  --user                Create it in your user agents folder (default)
  --force               Overwrite an existing file
  --json                Print {"name": ..., "source": ..., "path": ..., "overwritten": ...}
  -h, --help            Show this help
`,
};

type Options = OptionSpecs;

function parse<O extends Options>(command: string, args: string[], options: O) {
  const help = { type: "boolean", short: "h" } as const;
  try {
    return parseArgs({ args, options: { ...options, help }, allowPositionals: true, strict: true });
  } catch (e) {
    const message = e instanceof Error ? e.message.split(". ")[0] ?? e.message : String(e);
    throw usageError(message, `Run \`blade agents ${command} --help\` to see its options`);
  }
}

/** `blade agents …` from the command line: global options, then the app for this folder. */
export async function runAgents(argv: string[], ports: Ports, io: Io): Promise<number> {
  const g = globalOptions(argv);
  const readOnly = ["list", "show", "validate"].includes(g.rest[0] ?? "");
  const app = await createApp(ports, {
    ...(g.trustWorkspace ? { trustWorkspace: true } : {}),
  }, { storage: readOnly ? "read" : "write" });
  return await runAgentsCommand(g.rest, {
    ports,
    io,
    workspace: app.workspace,
    trusted: app.trust.trusted,
    home: ports.env.home(),
    storageRoot: app.layout.root,
    ...(g.agentsJson === undefined ? {} : { agentsJson: g.agentsJson }),
  });
}

export async function runAgentsCommand(argv: string[], deps: AgentsCommandDeps): Promise<number> {
  const [command = "list", ...rest] = argv;
  if (command === "--help" || command === "-h" || command === "help") {
    deps.io.out(HELP);
    return 0;
  }
  const run = COMMANDS[command];
  if (run === undefined || !Object.hasOwn(COMMANDS, command)) {
    throw usageError(
      `Unknown command "blade agents ${command}"`,
      "Run `blade agents --help` to see the commands",
    );
  }
  return await run(command === argv[0] ? rest : argv, deps);
}

const COMMANDS: Readonly<Record<string, (args: string[], deps: AgentsCommandDeps) => Promise<number>>> = {
  list: listCommand,
  show: showCommand,
  validate: validateCommand,
  create: createCommand,
};

function helpRequested(command: string, values: { help?: unknown }, deps: AgentsCommandDeps): boolean {
  if (values.help !== true) return false;
  deps.io.out(COMMAND_HELP[command] ?? HELP);
  return true;
}

function noExtraArgs(command: string, positionals: string[]): void {
  if (positionals.length > 0) {
    throw usageError(`Unexpected argument "${positionals[0]}"`, `Run \`blade agents ${command} --help\``);
  }
}

function load(deps: AgentsCommandDeps): Promise<LoadedAgents> {
  return loadAgents({
    fs: deps.ports.fs,
    home: deps.home,
    claudeDir: configuredClaudeDir(deps.ports.env),
    workspace: deps.workspace,
    trusted: deps.trusted,
    bladeHome: deps.storageRoot,
    agentsJson: deps.agentsJson,
  });
}

function styleOf(deps: AgentsCommandDeps): PathStyle {
  return { workspace: deps.workspace, home: deps.home };
}

function bolder(io: Io): (s: string) => string {
  return io.color ? (s) => `\x1b[1m${s}\x1b[22m` : (s) => s;
}

function printJson(io: Io, value: unknown): void {
  io.out(`${JSON.stringify(value, null, 2)}\n`);
}

async function listCommand(args: string[], deps: AgentsCommandDeps): Promise<number> {
  const { values, positionals } = parse("list", args, {
    json: { type: "boolean" },
    source: { type: "string" },
  });
  if (helpRequested("list", values, deps)) return 0;
  noExtraArgs("list", positionals);
  const source = values.source;
  if (source !== undefined && !(AGENT_SOURCES as readonly string[]).includes(source)) {
    throw usageError(`Unknown source "${source}"`, `Use one of: ${AGENT_SOURCES.join(", ")}`);
  }
  const loaded = await load(deps);
  const snapshot = new RegistrySnapshot(deps.workspace, loaded.agents);
  const agents = snapshot.list().filter((a) => source === undefined || a.source === source);
  if (values.json === true) {
    printJson(deps.io, {
      agents: agents.map((a) => agentJson(a, { prompt: false })),
      diagnostics: loaded.diagnostics,
    });
    return 0;
  }
  const style = styleOf(deps);
  const lines: string[] = [];
  if (agents.length === 0) {
    lines.push(source === undefined ? "No agents." : `No agents from source "${source}".`);
  } else {
    const sources = source === undefined ? AGENT_SOURCES : [source as AgentSource];
    lines.push(
      renderAgentList(agents, {
        sources,
        overridden: loaded.overridden,
        style,
        bold: bolder(deps.io),
      }),
      "",
    );
    lines.push(`${agents.length} agent${agents.length === 1 ? "" : "s"}.`);
  }
  const counts = countDiagnostics(loaded.diagnostics);
  if (counts.error + counts.warning > 0) {
    const problems = describeCounts({ ...counts, info: 0 });
    lines.push(`${problems} in agent files; run \`blade agents validate\` for details.`);
  }
  const untrustedDirs = new Set(
    agentSourceDirs({ ...deps, bladeHome: deps.storageRoot, claudeDir: configuredClaudeDir(deps.ports.env) })
      .untrusted.map((d) => d.dir),
  );
  const skipped = loaded.diagnostics.filter((d) => untrustedDirs.has(d.file)).map((d) =>
    displayPath(d.file, style)
  );
  if (skipped.length > 0) {
    lines.push(
      `Project agents in ${skipped.join(" and ")} are not loaded: this workspace is not trusted.`,
      "Run `blade trust` to load them.",
    );
  }
  deps.io.out(`${lines.join("\n")}\n`);
  return 0;
}

async function showCommand(args: string[], deps: AgentsCommandDeps): Promise<number> {
  const { values, positionals } = parse("show", args, {
    json: { type: "boolean" },
    "permission-mode": { type: "string" },
  });
  if (helpRequested("show", values, deps)) return 0;
  const [name, ...extra] = positionals;
  if (name === undefined) throw usageError("Missing agent name", "Usage: blade agents show <name>");
  noExtraArgs("show", extra);
  const loaded = await load(deps);
  const agent = new RegistrySnapshot(deps.workspace, loaded.agents).require(name);
  const diagnostics = loaded.diagnostics.filter((d) => d.file === agent.path);
  const modeName = values["permission-mode"] ?? "default";
  const parentMode = parsePermissionMode(modeName);
  if (parentMode === undefined) {
    throw usageError(`Unknown permission mode "${modeName}"`, "Use default, dontAsk, autoEdit, yolo or plan");
  }
  const ceiling = capMode(agent.permissionMode, parentMode);
  if (values.json === true) {
    printJson(deps.io, {
      agent: { ...agentJson(agent, { prompt: true }), effectivePermissionMode: ceiling.mode },
      ...(ceiling.capped === undefined ? {} : { capped: [ceiling.capped] }),
      diagnostics,
    });
  } else {
    deps.io.out(
      `${
        renderAgentDetail(agent, {
          style: styleOf(deps),
          bold: bolder(deps.io),
          diagnostics,
          ceiling,
          parentMode,
        })
      }\n`,
    );
  }
  return 0;
}

async function validateCommand(args: string[], deps: AgentsCommandDeps): Promise<number> {
  const { values, positionals } = parse("validate", args, { json: { type: "boolean" } });
  if (helpRequested("validate", values, deps)) return 0;
  const { files, diagnostics } = positionals.length === 0
    ? await load(deps)
    : await validatePaths(positionals.map((p) => resolve(deps.workspace, p)), deps);
  const counts = countDiagnostics(diagnostics);
  if (values.json === true) {
    printJson(deps.io, { ok: counts.error === 0, files, counts, diagnostics });
  } else {
    const style = styleOf(deps);
    const lines = diagnostics.map((d) => formatDiagnostic(d, style));
    if (lines.length > 0) lines.push("");
    const summary = describeCounts(counts);
    const checked = `Checked ${files} agent file${files === 1 ? "" : "s"}`;
    lines.push(summary === "" ? `${checked}: no problems found.` : `${checked}: ${summary}.`);
    deps.io.out(`${lines.join("\n")}\n`);
  }
  return counts.error > 0 ? 1 : 0;
}

async function validatePaths(paths: string[], deps: AgentsCommandDeps): Promise<{
  files: number;
  diagnostics: Diagnostic[];
}> {
  const fs = deps.ports.fs;
  const diagnostics: Diagnostic[] = [];
  let files = 0;
  for (const path of paths) {
    const info = await fs.stat(path);
    const targets = info?.isDirectory ? await listAgentFiles(fs, path, diagnostics) : [path];
    for (const file of targets) {
      files++;
      diagnostics.push(...(await loadAgentFile(fs, file, "user")).diagnostics);
    }
  }
  return { files, diagnostics };
}

async function createCommand(args: string[], deps: AgentsCommandDeps): Promise<number> {
  const { values, positionals } = parse("create", args, {
    description: { type: "string" },
    tools: { type: "string" },
    model: { type: "string" },
    prompt: { type: "string" },
    project: { type: "boolean" },
    user: { type: "boolean" },
    force: { type: "boolean" },
    json: { type: "boolean" },
  });
  if (helpRequested("create", values, deps)) return 0;
  const [name, ...extra] = positionals;
  if (name === undefined) {
    throw usageError("Missing agent name", "Usage: blade agents create <name> --description <text>");
  }
  noExtraArgs("create", extra);
  if (values.project === true && values.user === true) {
    throw usageError("Use either --project or --user, not both");
  }
  const { source, path, overwritten: existed } = await createAgentFile(deps.ports.fs, {
    name,
    description: values.description,
    tools: values.tools,
    model: values.model,
    prompt: values.prompt,
    project: values.project === true,
    force: values.force === true,
  }, { workspace: deps.workspace, trusted: deps.trusted, storageRoot: deps.storageRoot });

  if (values.json === true) {
    printJson(deps.io, { name, source, path, overwritten: existed });
    return 0;
  }
  const style = styleOf(deps);
  const lines = [
    `${existed ? "Overwrote" : "Created"} ${source} agent "${name}" at ${displayPath(path, style)}`,
  ];
  const winner = new RegistrySnapshot(deps.workspace, (await load(deps)).agents).get(name);
  if (winner !== undefined && winner.path !== path) {
    lines.push(
      `Note: "${name}" from ${winner.source} (${
        displayPath(winner.path, style)
      }) takes precedence over this file.`,
    );
  }
  lines.push(`Edit the file to refine its system prompt; check it with \`blade agents show ${name}\`.`);
  deps.io.out(`${lines.join("\n")}\n`);
  return 0;
}
