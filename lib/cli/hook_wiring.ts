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
import type { HookRunEvent, RuntimeEvent } from "../protocol/events.ts";
import type { ToolContext } from "../tools/tool.ts";
import { type HookEntry, hooksOf } from "../protocol/hook_config.ts";
import { HookEngine, type HookRun } from "../hooks/hook_engine.ts";
import { hookCommandRunner } from "../hooks/hook_command.ts";
import { type HookSession, sessionHooks, type SessionHookSet } from "../hooks/session_hooks.ts";
import { RunHooks } from "../hooks/run_hooks.ts";
import { providerAsk } from "../hooks/prompt_ask.ts";
import type { PromptHookAsk } from "../hooks/prompt_hook.ts";
import { resolveModel } from "../config/config.ts";
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

/**
 * The hook engine of a run (undefined when nothing is configured, unless `always`: an engine of none,
 * for the run's subagents, whose agent files may have hooks of their own), its problems said on stderr.
 */
export function runHookEngine(
  app: App,
  o: { io: Io; callbacks?: HookCallbacks | undefined; observe?: (run: HookRun) => void; always?: boolean },
): HookEngine | undefined {
  const { hooks, problems } = settingsHooks(app);
  for (const p of problems) o.io.err(`blade: warning: ${terminalSafe(p)}\n`);
  if (hooks.length === 0 && o.callbacks === undefined && o.always !== true) return undefined;
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
    ask: (sessionId) => promptAsk(app, sessionId),
    transcriptOf: (sessionId) => app.layout.transcriptPath(app.workspace, sessionId),
    warn: (line) => o.io.err(`blade: warning: ${terminalSafe(app.redact(line))}\n`),
    tell: (line) => o.io.err(`${terminalSafe(app.redact(line))}\n`),
  });
}

/** `prompt` hooks' side requests of the session `sessionId`, through the run's provider. */
function promptAsk(app: App, sessionId: string): PromptHookAsk {
  return providerAsk({
    provider: () => app.provider(),
    model: app.config.model,
    resolve: (name) => resolveModel(name, app.config.aliases),
    sessionId,
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
    /** A Stop hook blocked the session's end: its feedback (print mode's stream-json shows it). */
    feedback?: ((text: string) => void) | undefined;
    /** A `prompt` hook gave no verdict (print mode's stream-json shows it). */
    noVerdict?: HookSession["noVerdict"];
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
      ask: promptAsk(app, sessionId),
      // `agent` hooks' verifiers are the session's children (its runtime's, once it runs).
      verify: o.run?.verify,
      warn: (line) => o.io.err(`blade: warning: ${terminalSafe(app.redact(line))}\n`),
      tell: (line) => o.io.err(`${terminalSafe(app.redact(line))}\n`),
      feedback: o.feedback,
      noVerdict: o.noVerdict,
      // SessionEnd runs after the run's own signal ended it (an interrupted run still ends).
      signal: o.signal,
      started: !first,
      source: o.source,
    });
    built.set = set;
    return set.loop;
  };
}

/**
 * A print-mode turn's hooks (none when nothing is configured): the session's and its subagents'. Each
 * hook's run, and a Stop hook's feedback, is an event (stream-json shows them) until `printed()`.
 */
export function printHooks(
  app: App,
  o: {
    io: Io;
    /** The turn's SDK callbacks, hook input's permission mode and hook lifetime (print_turn.ts TurnFlags). */
    f: { sdkHooks?: HookCallbacks | undefined; hookMode?: () => string; hookLife?: HookLifetime };
    emit: (event: RuntimeEvent) => void;
    sessionId: () => string | undefined;
    signal: AbortSignal;
  },
) {
  let printing = true;
  const emit = (event: RuntimeEvent) => void (printing && o.emit(event));
  const observe = (run: HookRun) => emit(hookRunEvent(run, o.sessionId() ?? ""));
  // The subagents' hooks always exist (an agent file's own `hooks:`); the session's only when configured.
  const engine = runHookEngine(app, { io: o.io, callbacks: o.f.sdkHooks, observe, always: true })!;
  const printed = () => void (printing = false);
  const run = runHooksOf(app, { engine, io: o.io });
  if (engine.entries().length === 0) return { run, session: undefined, printed };
  const feedback = (text: string) =>
    emit({ type: "stop_hook_feedback", sessionId: o.sessionId() ?? "", text });
  const noVerdict: HookSession["noVerdict"] = (said) =>
    emit({ type: "hook_no_verdict", sessionId: o.sessionId() ?? "", ...said });
  const { hookMode: mode, hookLife: life } = o.f;
  const signal = o.signal;
  return {
    run,
    session: mainSessionHooks(app, { engine, io: o.io, signal, mode, life, run, feedback, noVerdict }),
    printed,
  };
}
