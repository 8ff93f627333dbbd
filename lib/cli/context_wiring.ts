// Owns assembling a run's project context from the command line's view (docs/guides/memory.md): the
// memory files (lib/memory) for the session's first user message and nested memory after file tools;
// nothing of it with --bare. Loaded once per run (every stream-json turn shares it).

import type { App } from "../app.ts";
import type { SessionContext } from "../executor/session_context.ts";
import { claudeUserDir, managedDir } from "../config/claude_dir.ts";
import { type LoadedMemory, loadMemory, type MemoryRoots } from "../memory/load_memory.ts";
import { memoryReminder } from "../memory/memory_context.ts";
import { NestedMemory, withNestedMemory } from "../memory/nested_memory.ts";
import type { ContextReport } from "./memory_render.ts";

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

/** What `blade memory` and /memory show: the files a session loads here (nothing with --bare). */
export async function contextReportOf(app: App): Promise<ContextReport> {
  const bare = app.flags.bare === true;
  const memory: LoadedMemory = bare
    ? { value: [], diagnostics: [] }
    : await loadMemory(app.ports.fs, memoryRootsOf(app));
  return {
    workspace: app.workspace,
    trusted: app.trust.trusted,
    bare,
    memory: { files: memory.value, diagnostics: memory.diagnostics },
  };
}

const loaded = new WeakMap<App, Promise<SessionContext | undefined>>();

/** The run's session context, read on first use; undefined with --bare or when there is nothing. */
export function sessionContextOf(app: App): Promise<SessionContext | undefined> {
  let context = loaded.get(app);
  if (context === undefined) loaded.set(app, context = buildContext(app));
  return context;
}

async function buildContext(app: App): Promise<SessionContext | undefined> {
  if (app.flags.bare === true) return undefined;
  const memory = await loadMemory(app.ports.fs, memoryRootsOf(app));
  const reminder = memoryReminder(memory.value);
  const nested = app.trust.trusted ? new NestedMemory(memory.reader, app.workspace) : undefined;
  return {
    blocks: reminder === undefined ? [] : [reminder],
    ...(nested === undefined ? {} : { wrap: (tool) => withNestedMemory(tool, nested) }),
  };
}
