// Owns what each slash command of the interactive session does. Where a `blade …` subcommand exists,
// the slash command runs that same code with its output going to the session's log (/agents runs
// `blade agents`, /tasks list|output|resume|clean run `blade tasks`, /tasks stop is the TaskStop
// tool's own code); the rest read or steer the open session through SlashContext.

import type { App } from "../../app.ts";
import { resolveModel } from "../../config/config.ts";
import { usageError } from "../../errors.ts";
import {
  parsePermissionMode,
  PERMISSION_MODE_NAMES,
  type PermissionMode,
} from "../../protocol/permission_mode.ts";
import type { ToolContext } from "../../tools/tool.ts";
import { runAgentsCommand } from "../agents_cmd.ts";
import { runTasks } from "../tasks_cmd.ts";
import { statusCounts, statusLabel } from "../tasks_render.ts";
import type { Io } from "../io.ts";
import { TaskControl } from "../../run/task_control.ts";
import type { SubagentRuntime } from "../../run/subagents.ts";
import { type SubagentEnv, taskControlDeps } from "../../run/subagent_env.ts";
import type { ParentInfo } from "../../launch/launch_plan.ts";
import { recentSessions } from "../../session/open.ts";
import { readSessionNames } from "../../session/session_names.ts";
import { clean } from "./summary.ts";
import { readTranscript } from "../../session/transcript.ts";
import { validateSessionId } from "../../protocol/ids.ts";
import { sameProject } from "../../store/project_key.ts";
import { transcriptLines } from "./transcript_view.ts";
import { makeTheme } from "./theme.ts";
import { customHelp, SLASH_COMMANDS, type SlashLine } from "./slash.ts";
import type { CustomCommand } from "./command_input.ts";
import { contextReportOf } from "../context_wiring.ts";
import { contextText } from "../memory_render.ts";
import type { SessionView } from "./view.ts";

export interface SlashContext {
  app: App;
  view: SessionView;
  /** An Io whose output lands in the session's log. */
  io: Io;
  sessionId(): string;
  mode(): PermissionMode;
  model(): string;
  setMode(mode: PermissionMode): void;
  setModel(model: string): void;
  subagents(): { env: SubagentEnv; parent: ParentInfo; runtime: SubagentRuntime } | undefined;
  /** This folder's custom commands (.claude/commands), for /help. */
  customCommands?: () => readonly CustomCommand[];
  /** Asks one question in the editor; undefined when the person cancels (Esc, Ctrl-C). */
  ask(question: string): Promise<string | undefined>;
  /** Lets the person pick one item; undefined when cancelled (Esc, Ctrl-C). */
  choose(title: string, items: { value: string; label: string; description?: string }[]): Promise<
    string | undefined
  >;
  /** Starts a fresh session (`undefined`) or continues `resume` in place of the current one. */
  switchSession(resume: string | undefined): Promise<void>;
  /** Trusts this folder (`blade trust`) and continues the session with its project configuration. */
  trust(): Promise<void>;
  /** Compacts the session's conversation, focused by `instructions` when given. */
  compact(instructions: string): Promise<void>;
  exit(): void;
}

const KEYS = `Keys: Enter sends · Shift+Enter or a trailing \\ adds a line · ↑/↓ history
      Tab completes · Ctrl-C or Esc interrupts a turn
      Ctrl-O shows or hides finished subagents' tool calls
      Ctrl-C twice or Ctrl-D at an empty prompt leaves`;

/** Heads longer than this put their description on the next line, so it never wraps on a terminal. */
const HELP_COLUMN = 24;

export function helpText(custom: readonly CustomCommand[] = []): string {
  const row = (head: string, description: string) =>
    head.length <= HELP_COLUMN
      ? `  ${head.padEnd(HELP_COLUMN)}  ${description}`
      : `  ${head}\n  ${"".padEnd(HELP_COLUMN)}  ${description}`;
  const rows = SLASH_COMMANDS.map((c) =>
    row(`/${c.name}${c.args === "" ? "" : ` ${c.args}`}`, c.description)
  );
  const own = custom.length === 0
    ? ""
    : `\nCustom commands (.claude/commands):\n${
      custom.map((c) => row(`/${c.name}`, customHelp(c))).join("\n")
    }\n`;
  return `Commands:\n${rows.join("\n")}\n${own}\n${KEYS}\n`;
}

function agentsDeps(ctx: SlashContext) {
  const { app } = ctx;
  return {
    ports: app.ports,
    io: ctx.io,
    workspace: app.workspace,
    trusted: app.trust.trusted,
    home: app.ports.env.home(),
    storageRoot: app.layout.root,
    ...(app.flags.agentsJson === undefined ? {} : { agentsJson: app.flags.agentsJson }),
  };
}

/** Loads the registry again so new or edited agent files count for the next Task call. */
async function reloadAgents(ctx: SlashContext): Promise<void> {
  const built = ctx.subagents();
  if (built === undefined) return;
  const registry = await ctx.app.registry();
  built.env.registry = registry;
  ctx.view.print(`Reloaded: ${registry.names().length} agents (${registry.names().join(", ")}).`);
}

async function guidedCreate(ctx: SlashContext): Promise<void> {
  ctx.view.print("Create a subagent (Esc cancels).");
  const name = await ctx.ask("Name (lowercase words with dashes, e.g. code-reviewer):");
  if (name === undefined) return;
  const description = await ctx.ask("When should the parent use it (description)?");
  if (description === undefined) return;
  const tools = await ctx.ask("Tools, comma-separated (empty: every tool; e.g. Read,Grep,Glob):");
  if (tools === undefined) return;
  const prompt = await ctx.ask("Its system prompt (empty: a short generic one to edit later):");
  if (prompt === undefined) return;
  const where = await ctx.ask("Where: user (~/.blade/agents, default) or project (.blade/agents)?");
  if (where === undefined) return;
  const argv = ["create", name.trim(), "--description", description];
  if (tools.trim() !== "") argv.push("--tools", tools.trim());
  if (prompt.trim() !== "") argv.push("--prompt", prompt);
  argv.push(where.trim().toLowerCase().startsWith("p") ? "--project" : "--user");
  await runAgentsCommand(argv, agentsDeps(ctx));
  await reloadAgents(ctx);
}

async function agents(ctx: SlashContext, line: SlashLine): Promise<void> {
  const [sub = "list", ...rest] = line.words;
  if (sub === "reload") return await reloadAgents(ctx);
  if (sub === "create" && rest.length === 0) return await guidedCreate(ctx);
  await runAgentsCommand([sub, ...rest], agentsDeps(ctx));
  if (sub === "create") await reloadAgents(ctx);
}

function toolContext(ctx: SlashContext, signal: AbortSignal): ToolContext {
  const { app } = ctx;
  return {
    ports: app.ports,
    sessionId: ctx.sessionId(),
    workspaceRoot: app.workspace,
    storageRoot: app.layout.root,
    trusted: app.trust.trusted,
    mode: ctx.mode(),
    callId: "slash-command",
    signal,
    emit: () => {},
  };
}

/**
 * /tasks transcript <id>: what a subagent run of this project did (as `blade tasks` selects runs: this
 * folder's, or with a shared store its project key's — store/project_key.ts), read from its transcript
 * (its prompt, its text, each tool call with its result in a few words), and where the file is. A run
 * another clone started wrote its transcript on that machine: the line says where.
 */
async function childTranscript(ctx: SlashContext, id: string): Promise<void> {
  const { app } = ctx;
  const loaded = await app.store().load(validateSessionId(id));
  const record = loaded !== null && "record" in loaded ? loaded.record : undefined;
  if (record === undefined || !sameProject(record, { path: app.workspace, key: await app.projectKey() })) {
    throw usageError(`Unknown task ID: ${id}`, "/tasks lists the runs of this session.");
  }
  const file = app.layout.transcriptPath(record.parentProjectPath, record.id);
  // A remote child's transcript is the one its worker copied to the shared store.
  const shared = record.isolation === "remote" ? app.shared : undefined;
  const path = shared === undefined ? file : `the shared store (blade_transcripts, run ${record.id})`;
  const read = shared === undefined
    ? await readTranscript(app.ports.fs, file)
    : await shared.transcriptOf(record.id);
  const missing = record.parentProjectPath === app.workspace || shared !== undefined
    ? "(no transcript yet)"
    : `(no transcript here: the run was started from ${record.parentProjectPath}` +
      `${record.machine ? ` on ${record.machine}` : ""}, and its transcript is kept there)`;
  const lines = read === null ? [missing] : transcriptLines(read.events, makeTheme(false));
  ctx.view.output(
    [
      `${statusLabel(record.status)} ${record.id} (${record.subagentType}): ${record.description}`,
      ...lines,
      `Transcript: ${path}`,
    ]
      .join("\n"),
  );
}

async function tasks(ctx: SlashContext, line: SlashLine): Promise<void> {
  const [sub = "list", id, ...more] = line.words;
  const built = ctx.subagents();
  const owner = { parentSessionId: ctx.sessionId(), parentProjectPath: ctx.app.workspace };
  const shells = built?.env.shells.list(owner) ?? [];
  const isShell = (x: string | undefined) => x !== undefined && shells.some((s) => s.id === x);
  switch (sub) {
    case "list": {
      await runTasks(["list", "--session", ctx.sessionId()], ctx.app.ports, ctx.io);
      if (shells.length > 0) {
        const rows = shells.map((s) => `${s.status.padEnd(9)} ${s.id}  ${s.command}`);
        ctx.view.output(
          `\nBackground commands:\n${rows.join("\n")}\n${
            statusCounts(shells.map((s) => s.status), "command")
          }`,
        );
      }
      return;
    }
    case "transcript": {
      if (id === undefined || more.length > 0) throw usageError("Usage: /tasks transcript <id>");
      return await childTranscript(ctx, id);
    }
    case "output":
    case "stop": {
      if (id === undefined || more.length > 0) throw usageError(`Usage: /tasks ${sub} <id>`);
      if (sub === "output" && !isShell(id)) {
        await runTasks(["output", id], ctx.app.ports, ctx.io);
        return;
      }
      if (built === undefined) throw usageError(`Unknown task ID: ${id}`);
      const control = new TaskControl(taskControlDeps(built.env), owner);
      const signal = new AbortController().signal;
      const result = sub === "stop"
        ? await control.stop(id, toolContext(ctx, signal))
        : await control.output({ taskId: id, block: false, timeoutMs: 0 }, toolContext(ctx, signal));
      if (result.isError) ctx.view.error(result.content);
      else ctx.view.output(sub === "output" ? shellOutput(result.content) : result.content);
      return;
    }
    case "resume": {
      const prompt = line.rest.replace(/^resume\s+\S+\s*/, "");
      if (id === undefined || prompt.trim() === "") {
        throw usageError("Usage: /tasks resume <agentId> <prompt>");
      }
      // `blade tasks resume`, with this session's provider choices; it runs until the new run ends.
      const f = ctx.app.flags;
      const pass = [
        ...(f.provider === undefined ? [] : ["--provider", f.provider]),
        ...(f.script === undefined ? [] : ["--script", f.script]),
        ...(f.trustWorkspace === true ? ["--trust-workspace"] : []),
      ];
      ctx.view.print(ctx.view.dimmed(`Resuming ${id}…`));
      await runTasks(["resume", id, prompt, ...pass], ctx.app.ports, ctx.io);
      return;
    }
    case "clean":
      await runTasks(["clean", ...line.words.slice(1)], ctx.app.ports, ctx.io);
      return;
    default:
      throw usageError(`Unknown /tasks command "${sub}".`, "Use /tasks list, output, stop, resume or clean.");
  }
}

/**
 * A background command's TaskOutput result (JSON for the model) for a person: its status label, id,
 * exit code and command, then its output.
 */
export function shellOutput(content: string): string {
  let shell: {
    task_id?: unknown;
    status?: unknown;
    command?: unknown;
    exit_code?: unknown;
    output?: unknown;
  };
  try {
    shell = JSON.parse(content);
  } catch {
    return content;
  }
  const known = ["running", "completed", "failed", "cancelled"] as const;
  const status = known.find((s) => s === shell.status);
  if (status === undefined || typeof shell.task_id !== "string") return content;
  const exit = typeof shell.exit_code === "number" ? `, exit ${shell.exit_code}` : "";
  const output = typeof shell.output === "string" && shell.output.trim() !== ""
    ? shell.output.trimEnd()
    : status === "running"
    ? "(no output yet)"
    : "(no output)";
  return `${statusLabel(status)} ${shell.task_id} (Bash${exit}): ${
    String(shell.command ?? "")
  }\n\n${output}\n`;
}

function status(ctx: SlashContext): void {
  const { app, view } = ctx;
  const running = view.runningChildren();
  const lines = [
    `Session   ${ctx.sessionId()}`,
    `Folder    ${app.workspace} (${
      app.trust.trusted ? "trusted" : "not trusted: Bash and writes are refused"
    })`,
    `Model     ${ctx.model()}`,
    `Mode      ${ctx.mode()}`,
    `Children  ${
      running.length === 0
        ? "none running"
        : running.map((c) => `${c.subagent_type} ${c.session_id}${c.background ? " [bg]" : ""}`).join(", ")
    }`,
  ];
  view.output(lines.join("\n"));
}

/** Runs one slash command; unknown names and usage mistakes are BladeErrors for the caller to show. */
export async function runSlash(ctx: SlashContext, line: SlashLine): Promise<void> {
  switch (line.name) {
    case "help":
      return ctx.view.print(helpText(ctx.customCommands?.() ?? []));
    case "memory":
      return ctx.view.output(contextText(await contextReportOf(ctx.app)));
    case "agents":
      return await agents(ctx, line);
    case "tasks":
      return await tasks(ctx, line);
    case "status":
      return status(ctx);
    case "permissions": {
      if (line.words.length === 0) {
        return ctx.view.print(
          `Permission mode: ${ctx.mode()}. Change it with /permissions <mode>: default, autoEdit, yolo, plan.`,
        );
      }
      const mode = parsePermissionMode(line.words[0]!);
      if (mode === undefined) {
        throw usageError(
          `Unknown permission mode "${line.words[0]}".`,
          `Use one of: ${PERMISSION_MODE_NAMES.join(", ")}.`,
        );
      }
      ctx.setMode(mode);
      return ctx.view.print(`Permission mode is now ${mode} for this session.`);
    }
    case "model": {
      if (line.words.length === 0) {
        const aliases = Object.entries(ctx.app.config.aliases).map(([a, m]) => `${a} → ${m}`).join(", ");
        return ctx.view.output(`Model: ${ctx.model()}. Change it with /model <name>; aliases: ${aliases}.`);
      }
      const model = resolveModel(line.words[0]!, ctx.app.config.aliases);
      ctx.setModel(model);
      return ctx.view.output(`Model is now ${model} for this session.`);
    }
    case "trust":
      return await ctx.trust();
    case "compact":
      return await ctx.compact(line.rest);
    case "clear":
      return await ctx.switchSession(undefined);
    case "resume": {
      const id = line.words[0] ?? await pickSession(ctx);
      if (id !== undefined) await ctx.switchSession(id);
      return;
    }
    case "exit":
    case "quit":
      return ctx.exit();
    default:
      throw usageError(`Unknown command /${line.name}.`, "Type /help for the commands.");
  }
}

/** /resume without an id: pick one of this folder's recent sessions (newest first), or none. */
async function pickSession(ctx: SlashContext): Promise<string | undefined> {
  const { app } = ctx;
  const all = await recentSessions(app.ports, app.layout.projectDir(app.workspace));
  const recent = all.filter((e) => e.id !== ctx.sessionId()).slice(0, 10);
  if (recent.length === 0) {
    ctx.view.print("No earlier sessions in this folder.");
    return undefined;
  }
  const when = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace("T", " ");
  // A session started with `--name` is listed by its name (session/session_names.ts).
  const names = await readSessionNames(app.ports.fs, app.layout.projectDir(app.workspace));
  return await ctx.choose(
    "Continue which session? (↑/↓, Enter; Esc cancels)",
    recent.map((e) => ({
      value: e.id,
      label: names[e.id] === undefined ? e.id : `${clean(names[e.id]!)} (${e.id})`,
      description: when(e.mtimeMs),
    })),
  );
}
