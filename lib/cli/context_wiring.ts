// Owns assembling a run's project context from the command line's view (docs/guides/memory.md): the
// memory files (lib/memory) and the skills listing (lib/skills) for the session's first user message,
// nested memory after file tools, the Skill tool, custom slash commands (lib/commands) expanded when a
// prompt names one, and the narrowing their `allowed-tools` put on a turn. Nothing of it with --bare.
// Loaded once per run (every stream-json turn shares it); commands are read only when named.

import type { App } from "../app.ts";
import { BladeError } from "../errors.ts";
import { resolve } from "../path.ts";
import type { PromptExpansion, SessionContext, ToolCaller } from "../executor/session_context.ts";
import { NarrowingGate } from "../executor/narrowing_gate.ts";
import type { ChildContext } from "../executor/child_context.ts";
import { narrowingOf } from "../permissions/narrowing.ts";
import { resolveModel } from "../config/config.ts";
import { claudeUserDir, managedDir } from "../config/claude_dir.ts";
import { type LoadedMemory, loadMemory, type MemoryRoots } from "../memory/load_memory.ts";
import { memoryReminder } from "../memory/memory_context.ts";
import { NestedMemory, withNestedMemory } from "../memory/nested_memory.ts";
import { listSkills, skillBody, skillDirs, type SkillFile } from "../skills/skill_file.ts";
import { skillInstructions, skillsReminder } from "../skills/skills_context.ts";
import { type SkillCatalog, skillTool } from "../tools/skill.ts";
import { BASH_NO_OUTPUT } from "../tools/bash.ts";
import { type CommandDir, commandDirs, findCommand, listCommands } from "../commands/command_file.ts";
import {
  expandCommand,
  type ExpandEffects,
  slashPrompt,
  substituteArguments,
} from "../commands/expand_command.ts";
import { BUILT_IN_SLASH_NAMES } from "../commands/reserved.ts";
import { findOutputStyle, type OutputStyle, styleDirs } from "../styles/output_style.ts";
import type { ContextReport } from "./memory_render.ts";
import type { Io } from "./io.ts";
import { terminalSafe } from "./sanitize.ts";

/** Where this run's memory comes from: the working folder, trust, the user and managed folders. */
export function memoryRootsOf(app: Pick<App, "ports" | "workspace" | "trust">): MemoryRoots {
  const { env } = app.ports;
  const managed = managedDir(env);
  return {
    workspace: app.workspace,
    trusted: app.trust.trusted,
    home: env.home(),
    userDir: claudeUserDir(env),
    ...(managed === undefined ? {} : { managedDir: managed }),
  };
}

function foldersOf(app: App) {
  return { workspace: app.workspace, trusted: app.trust.trusted, userDir: claudeUserDir(app.ports.env) };
}

/** What `blade memory` and /memory show: the files a session loads here (nothing with --bare). */
export async function contextReportOf(app: App): Promise<ContextReport> {
  const bare = app.flags.bare === true;
  const memory: LoadedMemory = bare
    ? { value: [], diagnostics: [] }
    : await loadMemory(app.ports.fs, memoryRootsOf(app));
  const skills = bare ? [] : (await listSkills(app.ports.fs, skillDirs(foldersOf(app)))).value;
  const commands = bare ? [] : await listCommands(app.ports.fs, commandDirs(foldersOf(app)));
  return {
    workspace: app.workspace,
    trusted: app.trust.trusted,
    bare,
    memory: { files: memory.value, diagnostics: memory.diagnostics },
    skills: skills.map((s) => ({ name: s.name, path: s.path, description: s.description })),
    commands: commands.map((c) => ({
      name: c.name,
      path: c.path,
      ...(c.description === undefined ? {} : { description: c.description }),
    })),
  };
}

/** Where the context's notes go: --debug lines and warnings (stderr). */
export interface ContextSinks {
  debug?: (line: string) => void;
  warn?: (line: string) => void;
}

/** --debug lines and warnings on stderr, file-controlled text made terminal-safe. */
export function contextSinks(app: App, io: Io): ContextSinks {
  const line = (prefix: string) => (text: string) => io.err(`${prefix}${terminalSafe(app.redact(text))}\n`);
  return { ...(app.config.debug ? { debug: line("[debug] ") } : {}), warn: line("blade: warning: ") };
}

/** The runtime option giving subagents the run's memory and skills (a direct `blade run` child too). */
export async function childContextOf(app: App, io: Io): Promise<{ childContext?: ChildContext }> {
  const child = (await sessionContextOf(app, contextSinks(app, io)))?.child;
  return child === undefined ? {} : { childContext: child };
}

const loaded = new WeakMap<App, Promise<SessionContext | undefined>>();

/** The run's session context, read on first use; undefined with --bare. */
export function sessionContextOf(app: App, sinks: ContextSinks = {}): Promise<SessionContext | undefined> {
  let context = loaded.get(app);
  if (context === undefined) loaded.set(app, context = buildContext(app, sinks));
  return context;
}

async function buildContext(app: App, sinks: ContextSinks): Promise<SessionContext | undefined> {
  if (app.flags.bare === true) return undefined;
  const { fs } = app.ports;
  // `--disable-slash-commands`: no skills and no custom commands (memory and styles stay).
  const off = app.flags.disableSlashCommands === true;
  const [memory, skills, style] = await Promise.all([
    loadMemory(fs, memoryRootsOf(app)),
    off ? Promise.resolve({ value: [], diagnostics: [] }) : listSkills(fs, skillDirs(foldersOf(app))),
    outputStyleOf(app, sinks),
  ]);
  for (const d of skills.diagnostics) sinks.debug?.(`skills: ${d.message}`);
  const nested = app.trust.trusted ? new NestedMemory(memory.reader, app.workspace) : undefined;
  const gate = new NarrowingGate();
  const catalog = skillCatalog(app, skills.value, gate);
  const [reminder, listing] = [memoryReminder(memory.value), skillsReminder(skills.value)];
  return {
    blocks: [reminder, listing].filter((b) => b !== undefined),
    child: {
      ...(reminder === undefined ? {} : { memory: reminder }),
      ...(listing === undefined ? {} : { listing }),
      skills: skills.value,
    },
    tools: catalog.names().length === 0 ? [] : [skillTool(catalog)],
    ...(nested === undefined ? {} : { wrap: (tool) => withNestedMemory(tool, nested) }),
    beforeToolCall: gate.check,
    ...(style === undefined ? {} : { style }),
    expand: (prompt, call, signal) => {
      gate.reset();
      return off ? Promise.resolve(undefined) : expandSlash(app, { prompt, call, signal, gate, sinks });
    },
  };
}

/** The chosen output style (`--output-style`, else the `outputStyle` setting); a missing one is a warning. */
async function outputStyleOf(app: App, sinks: ContextSinks): Promise<OutputStyle | undefined> {
  const name = app.flags.outputStyle ?? app.claude.outputStyle;
  if (name === undefined) return undefined;
  const dirs = styleDirs(foldersOf(app));
  const style = await findOutputStyle(app.ports.fs, dirs, name);
  if (style !== "missing") return style;
  sinks.warn?.(
    `output style "${name}" is not built in (Explanatory, Learning) nor found in ${
      dirs.join(", ") || "any folder"
    }; the default style is used`,
  );
  return undefined;
}

/** The skills the model may load, read on a Skill call; their allowed-tools narrow the turn. */
function skillCatalog(app: App, skills: readonly SkillFile[], gate: NarrowingGate): SkillCatalog {
  const listed = skills.filter((s) => !s.userOnly);
  return {
    names: () => listed.map((s) => s.name),
    folders: () => listed.map((s) => s.dir),
    load: async (name, args) => {
      const skill = listed.find((s) => s.name === name)!;
      const body = await skillBody(app.ports.fs, skill).catch(() => undefined);
      if (body === undefined) return `Cannot read the skill ${name} (${skill.path}).`;
      const text = skillInstructions(skill, substituteArguments(body, args));
      return skill.allowedTools === undefined ? { text } : { text, allowedTools: skill.allowedTools };
    },
    narrow: (name, tools) => gate.add(narrowingOf(`the skill ${name}`, tools)),
  };
}

interface SlashTurn {
  prompt: string;
  call: ToolCaller;
  signal: AbortSignal;
  gate: NarrowingGate;
  sinks: ContextSinks;
}

/** `/name args` naming a custom command: its expansion; undefined sends the prompt as typed. */
async function expandSlash(app: App, t: SlashTurn): Promise<PromptExpansion | undefined> {
  const slash = slashPrompt(t.prompt);
  if (slash === undefined) return undefined;
  const dirs: CommandDir[] = commandDirs(foldersOf(app));
  const found = await findCommand(app.ports.fs, dirs, slash.name);
  if (BUILT_IN_SLASH_NAMES.includes(slash.name)) {
    if (found !== undefined) {
      t.sinks.warn?.(`/${slash.name} is Blade's own; the custom command ${found.path} is not used`);
    }
    return undefined;
  }
  if (found !== undefined && "refused" in found) {
    throw new BladeError(
      "command_refused",
      `The command /${found.name} was not run: ${found.path}: ${found.refused}.`,
      {
        hint: "A command is a Markdown file of at most 256 KiB; a project's must be inside the project " +
          "(not a link leading out of it). See docs/guides/memory.md.",
      },
    );
  }
  const cmd = found;
  if (cmd === undefined) {
    const where = dirs.map((d) => d.dir).join(", ") || "no folder (untrusted, no home)";
    t.sinks.debug?.(
      `/${slash.name}: no custom command of that name in ${where}; the prompt is sent as typed`,
    );
    return undefined;
  }
  if (cmd.allowedTools !== undefined) t.gate.reset(narrowingOf(`/${cmd.name}`, cmd.allowedTools));
  const expansion = await expandCommand(cmd, slash.args, effects(app, t));
  if (!expansion.ok) {
    throw new BladeError("command_refused", expansion.message, {
      hint: 'Allow it for this run (e.g. --allowed-tools "Bash(<command>:*)"), or change the command file ' +
        `${cmd.path}. See docs/guides/memory.md.`,
    });
  }
  t.sinks.debug?.(`/${cmd.name}: expanded from ${cmd.path}`);
  const model = cmd.model === undefined || cmd.model === "inherit"
    ? undefined
    : resolveModel(cmd.model, app.config.aliases);
  return { blocks: expansion.blocks, ...(model === undefined ? {} : { model }) };
}

/** `!`command`` through the session's Bash and gate; `@file` through the Read gate, then read whole. */
function effects(app: App, t: SlashTurn): ExpandEffects {
  const home = app.ports.env.home();
  return {
    run: async (command) => {
      const r = await t.call("Bash", { command }, t.signal);
      if (r.isError) return { ok: false, message: r.content };
      return { ok: true, output: r.content === BASH_NO_OUTPUT ? "" : r.content };
    },
    read: async (ref) => {
      const path = ref.startsWith("~/") && home !== undefined
        ? resolve(home, ref.slice(2))
        : resolve(app.workspace, ref);
      const info = await app.ports.fs.stat(path).catch(() => null);
      if (info?.isFile !== true) return undefined;
      const gated = await t.call("Read", { file_path: path }, t.signal);
      if (gated.isError) return undefined;
      const text = await app.ports.fs.readText(path).catch(() => undefined);
      return text === undefined ? undefined : { path, text };
    },
  };
}
