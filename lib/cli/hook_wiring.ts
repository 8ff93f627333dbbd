// Owns wiring a top-level session's hooks (docs/guides/hooks.md): the hooks of the run's settings
// layers (user, project and local only in a trusted folder — settings reading drops an untrusted
// project's — and `--settings`; none with `--bare`) and the Agent SDK's callbacks, one engine
// (lib/hooks/); their problems and failures are warnings on stderr, `--debug` logs each run with its
// timing. A run without hooks gets nothing (no engine, no hook point).

import type { App } from "../app.ts";
import type { Io } from "./io.ts";
import type { HookCallbacks } from "../protocol/hook_callbacks.ts";
import { claudeModeName } from "../protocol/permission_mode.ts";
import type { LoopHooks } from "../executor/hooks.ts";
import type { HookRunEvent } from "../protocol/events.ts";
import type { ToolContext } from "../tools/tool.ts";
import { type HookEntry, hooksOf } from "../protocol/hook_config.ts";
import { HookEngine, type HookRun } from "../hooks/hook_engine.ts";
import { hookCommandRunner } from "../hooks/hook_command.ts";
import { sessionHooks, type SessionHookSet } from "../hooks/session_hooks.ts";
import { RunHooks } from "../hooks/run_hooks.ts";
import { terminalSafe } from "./sanitize.ts";

/** The hooks of the run's settings files and `--settings` (none with `--bare`), and their problems. */
export function settingsHooks(app: App): { hooks: HookEntry[]; problems: string[] } {
  const hooks: HookEntry[] = [];
  const problems: string[] = [];
  if (app.flags.bare === true) return { hooks, problems };
  for (const layer of app.claude.hooks) {
    const read = hooksOf(layer.hooks, { source: layer.source, where: layer.where });
    hooks.push(...read.hooks);
    problems.push(...read.problems);
  }
  return { hooks, problems };
}

/** The hook engine of a run (undefined when nothing is configured), its problems said on stderr. */
export function runHookEngine(
  app: App,
  o: { io: Io; callbacks?: HookCallbacks | undefined; observe?: (run: HookRun) => void },
): HookEngine | undefined {
  const { hooks, problems } = settingsHooks(app);
  for (const p of problems) o.io.err(`blade: warning: ${terminalSafe(p)}\n`);
  if (hooks.length === 0 && o.callbacks === undefined) return undefined;
  const debug = app.config.debug
    ? (run: HookRun) => {
      if (run.phase !== "ended") return;
      o.io.err(
        `[debug] hook ${terminalSafe(run.name)} (${terminalSafe(run.where)}: ${
          terminalSafe(run.label.slice(0, 200))
        }) ${run.outcome}${run.exitCode === undefined ? "" : `, exit ${run.exitCode}`} in ${run.ms} ms\n`,
      );
    }
    : undefined;
  const observers = [debug, o.observe].filter((f) => f !== undefined);
  return new HookEngine(hooks, {
    callbacks: o.callbacks,
    clock: app.ports.clock,
    newId: () => app.ports.ids.uuid(),
    observe: observers.length === 0 ? undefined : (run) => observers.forEach((f) => f(run)),
  });
}

/**
 * The hooks of the run's subagents (lib/hooks/run_hooks.ts) for the runtime: the same engine, their
 * commands in each child's sandbox, their problems and messages said as the session's are.
 */
export function runHooksOf(app: App, o: { engine: HookEngine; io: Io }): RunHooks {
  return new RunHooks(o.engine, {
    cwd: app.workspace,
    runner: (ctx) => hookCommandRunner(ctx, { projectDir: app.workspace, redact: app.redact }),
    warn: (line) => o.io.err(`blade: warning: ${terminalSafe(app.redact(line))}\n`),
    tell: (line) => o.io.err(`${terminalSafe(app.redact(line))}\n`),
  });
}

/**
 * What a CLI run's hooks keep across its turns (an Agent SDK session runs many, each continuing the
 * session): SessionStart fires for its first turn only, and SessionEnd once, when the run ends.
 */
export class HookLifetime {
  #started = false;
  #set: Pick<SessionHookSet, "end" | "notify"> | undefined;

  /** The session's hooks were built (its SessionStart fires now, never again); `set` ends and notifies. */
  began(set: Pick<SessionHookSet, "end" | "notify">): boolean {
    const first = !this.#started;
    this.#started = true;
    this.#set = set;
    return first;
  }

  /** Fires SessionEnd with `reason` for the last session, once (nothing when no session began). */
  async end(reason: string): Promise<void> {
    const set = this.#set;
    this.#set = undefined;
    await set?.end(reason);
  }

  /** Fires Notification for the session (the interactive session's questions and idle prompt). */
  async notify(message: string, type: string): Promise<void> {
    await this.#set?.notify(message, type);
  }
}

/** A hook's run as a runtime event of the session `sessionId` serves. */
export function hookRunEvent(run: HookRun, sessionId: string): HookRunEvent {
  const base = { type: "hook_run" as const, sessionId, hookId: run.id, name: run.name, event: run.event };
  if (run.phase === "started") return { ...base, phase: "started" };
  return {
    ...base,
    phase: "ended",
    stdout: run.stdout,
    stderr: run.stderr,
    ...(run.exitCode === undefined ? {} : { exitCode: run.exitCode }),
    outcome: run.outcome,
  };
}

/** The top-level session's hook points for `engine`, made once its id is known (main_runner.ts). */
export function mainSessionHooks(
  app: App,
  o: {
    engine: HookEngine;
    io: Io;
    signal: AbortSignal;
    mode?: (() => string) | undefined;
    /** The run's hook lifetime (SessionStart once, SessionEnd at the end); default: this session's own. */
    life?: HookLifetime | undefined;
    /** SessionStart's `source` instead of `startup` / `resume` (the interactive `/clear`: `clear`). */
    source?: string | undefined;
    /** The subagents' hooks: told the session's id and transcript (their inputs name them). */
    run?: RunHooks | undefined;
  },
): (session: { sessionId: string; transcriptPath: string }) => LoopHooks {
  const life = o.life ?? new HookLifetime();
  return ({ sessionId, transcriptPath }) => {
    o.run?.bind({ sessionId, transcriptPath });
    // Events without a tool call run in the session's own sandbox, as its commands do.
    const own: ToolContext = {
      ports: app.ports,
      sessionId,
      workspaceRoot: app.workspace,
      additionalDirs: app.additionalDirs,
      storageRoot: app.layout.root,
      trusted: app.workspaceGrant,
      mode: app.config.permissionMode,
      extraEnv: app.claude.env,
      callId: "",
      signal: o.signal,
      emit: () => {},
    };
    const built: { set?: SessionHookSet } = {};
    const first = life.began({
      end: (reason) => built.set?.end(reason) ?? Promise.resolve(),
      notify: (message, type) => built.set?.notify(message, type) ?? Promise.resolve(),
    });
    const set = sessionHooks(o.engine, {
      sessionId,
      transcriptPath,
      cwd: app.workspace,
      permissionMode: o.mode ?? (() => claudeModeName(app.config.permissionMode)),
      runner: (ctx) => hookCommandRunner(ctx ?? own, { projectDir: app.workspace, redact: app.redact }),
      warn: (line) => o.io.err(`blade: warning: ${terminalSafe(app.redact(line))}\n`),
      tell: (line) => o.io.err(`${terminalSafe(app.redact(line))}\n`),
      // SessionEnd runs after the run's own signal ended it (an interrupted run still ends).
      signal: o.signal,
      started: !first,
      source: o.source,
    });
    built.set = set;
    return set.loop;
  };
}
