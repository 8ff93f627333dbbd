// One session the REPL has open: its main session and the runtime for its subagents, opened with the
// REPL's flags (and its header printed), and closed with its background work ended.

import type { App } from "../../app.ts";
import type { Approver } from "../../protocol/approval.ts";
import { deltaRedaction } from "../redact_deltas.ts";
import type { RuntimeEvent } from "../../protocol/events.ts";
import { type MainSession, openMainSession } from "../../executor/main_runner.ts";
import type { RunRules } from "../../permissions/run_rules.ts";
import { VERSION } from "../../version.ts";
import type { PromptFlags } from "../print_inputs.ts";
import type { Runtime } from "../../runtime/runtime.ts";
import type { McpHub } from "../../mcp/hub.ts";
import type { SessionView } from "./view.ts";
import type { SessionContext } from "../../executor/session_context.ts";
import { sessionContextOf } from "../context_wiring.ts";
import { terminalSafe } from "../sanitize.ts";
import type { Io } from "../io.ts";
import { claudeModeName } from "../../protocol/permission_mode.ts";
import { HookLifetime, mainSessionHooks, runHookEngine, runHooksOf } from "../hook_wiring.ts";

/** What the flags decide for every session this REPL opens (/clear and /resume open new ones). */
export interface SessionFlags {
  prompts: PromptFlags;
  rules: RunRules;
  /** The run's MCP servers (started once; every session of this REPL shares them). */
  mcp: McpHub | undefined;
}

export interface OpenSession {
  session: MainSession;
  subagents: Runtime;
  /** Memory, skills and custom commands (cli/context_wiring.ts); undefined with --bare. */
  context: SessionContext | undefined;
  /** The session's hooks across its reopenings (SessionStart once, SessionEnd when it is left). */
  hooks: HookLifetime;
  /** Ends what the session's hooks run (after SessionEnd). */
  stopHooks: () => void;
}

/** How the session was opened, for its SessionStart hooks (`startup`, `resume`, `clear`). */
export interface OpenWhich {
  resume?: string;
  continueLatest?: boolean;
  /** SessionStart's `source` instead of `startup` / `resume` (`/clear`: `clear`). */
  source?: string;
  /** The hooks' lifetime of the session reopened (/trust): its SessionStart does not fire again. */
  hooks?: HookLifetime;
}

/** Opens (or resumes) a session and prints its header; the runtime is closed again if it fails. */
export async function openReplSession(
  app: App,
  flags: SessionFlags,
  view: SessionView,
  approve: Approver,
  which: OpenWhich,
): Promise<OpenSession> {
  // A secret split over text deltas is not shown piece by piece either (redact_deltas.ts).
  const deltas = deltaRedaction(app.secrets);
  const emit = (e: RuntimeEvent) => {
    for (const shown of deltas.map(e)) view.onEvent(shown);
  };
  const mcp = flags.mcp;
  const context = await sessionContextOf(app, {
    warn: (line) => view.print(`warning: ${terminalSafe(line)}`),
  });
  // Hooks run with the session (docs/guides/hooks.md); what they say goes to the log, never to stderr.
  const io = viewIo(view);
  // The subagents' hooks always exist (an agent file's own `hooks:`); the session's only when configured.
  const runEngine = runHookEngine(app, { io, always: true })!;
  const runHooks = runHooksOf(app, { engine: runEngine, io });
  const engine = runEngine.entries().length === 0 ? undefined : runEngine;
  const life = which.hooks ?? new HookLifetime();
  const stop = new AbortController();
  // A question left unanswered a while is a Notification moment (Claude Code's `permission_prompt`).
  const { permissionMs } = notificationDelays((name) => app.ports.env.get(name));
  const ask: Approver = async (request, signal) => {
    const cancel = app.ports.clock.timer(
      permissionMs,
      () => void life.notify(PERMISSION_PROMPT, "permission_prompt"),
    );
    try {
      return await approve(request, signal);
    } finally {
      cancel();
    }
  };
  const subagents = app.runtime(emit, {
    hooks: runHooks,
    ...(context?.child === undefined ? {} : { childContext: context.child }),
    rules: flags.rules.texts,
    approve: ask,
    ...(mcp === undefined ? {} : { mcp }),
  });
  // The hooks' permission_mode is the session's current one (/permissions changes it).
  const opened: { session?: MainSession } = {};
  const mode = () => claudeModeName(opened.session?.loop.mode ?? app.config.permissionMode);
  const session = await openMainSession(app, {
    ...flags.prompts,
    ...(which.resume === undefined ? {} : { resume: which.resume }),
    ...(which.continueLatest === undefined ? {} : { continueLatest: which.continueLatest }),
    hooks: engine === undefined ? undefined : mainSessionHooks(app, {
      engine,
      io,
      signal: stop.signal,
      mode,
      life,
      source: which.source,
      run: runHooks,
    }),
    approve: ask,
    rules: flags.rules.rules,
    emit,
    subagents: (id) => subagents.subagentsFor(id),
    recovery: subagents.recovery,
    ...(mcp === undefined ? {} : { mcp }),
    ...(context === undefined ? {} : { context }),
  }).catch(async (e) => {
    await subagents.close();
    throw e;
  });
  opened.session = session;
  showHeader(app, view, session);
  return { session, subagents, context, hooks: life, stopHooks: () => stop.abort() };
}

/**
 * Notification hooks' messages, Claude Code 2.1.332's word for word (tests/fixtures/claude/hooks_notification):
 * a team's hook scripts match on them, and "Claude" names the model the session talks to, not the
 * program (docs/guides/hooks.md).
 */
export const PERMISSION_PROMPT = "Claude needs your permission";
export const IDLE_PROMPT = "Claude is waiting for your input";

/**
 * When Notification hooks hear of the session (Claude Code 2.1.332's delays, recorded with
 * tests/fixtures/claude/hooks_notification): a question unanswered for 6 seconds, the prompt idle for
 * a minute after a prompt's turn. BLADE_PERMISSION_NOTIFICATION_MS and BLADE_IDLE_NOTIFICATION_MS
 * set them (milliseconds; tests shorten them).
 */
export function notificationDelays(
  env: (name: string) => string | undefined,
): { permissionMs: number; idleMs: number } {
  const ms = (name: string, otherwise: number) => {
    const n = Number(env(name));
    return env(name) !== undefined && Number.isInteger(n) && n > 0 ? n : otherwise;
  };
  return {
    permissionMs: ms("BLADE_PERMISSION_NOTIFICATION_MS", 6_000),
    idleMs: ms("BLADE_IDLE_NOTIFICATION_MS", 60_000),
  };
}

/** What hook wiring prints (problems, `systemMessage`, `--debug` timing), as notices in the log. */
function viewIo(view: SessionView): Io {
  const say = (text: string) => {
    for (const line of text.trimEnd().split("\n")) view.notice(line.replace(/^blade: (warning: )?/, ""));
  };
  return { out: say, err: say, color: false, tty: false };
}

function showHeader(app: App, view: SessionView, session: MainSession): void {
  view.header({
    version: VERSION,
    model: session.loop.model,
    mode: session.loop.mode,
    workspace: app.workspace,
    trusted: app.trust.trusted,
    sessionId: session.sessionId,
    resumed: session.resumed,
    warnings: [
      ...session.diagnostics.map((d) => `transcript of ${session.sessionId}: ${d.message}`),
      ...session.recoveryWarnings,
    ],
    messages: session.loop.messages,
  });
}

/**
 * Ends a session's background work: children are cancelled, shells stopped, Workers ended; with an
 * `end` reason (Claude Code's: `prompt_input_exit`, `clear`, `other`) its SessionEnd hooks run first
 * (a session closed to be reopened at once, /trust, has none). Returns the ids of what was still
 * running (children, then shells).
 */
export async function closeReplSession(
  open: OpenSession,
  o: { workspace: string; end?: string },
): Promise<string[]> {
  if (o.end !== undefined) await open.hooks.end(o.end);
  open.stopHooks();
  const workspace = o.workspace;
  const owner = { parentSessionId: open.session.sessionId, parentProjectPath: workspace };
  const shells = (open.subagents.session()?.env.shells.list(owner) ?? [])
    .filter((s) => s.status === "running").map((s) => s.id);
  const cancelled = (await open.session.pending?.cancelAll("the interactive session ended")) ?? [];
  await open.subagents.close();
  await open.session.close(); // releases the lease: the session may be resumed elsewhere now
  // The session's pending work holds its shells too (run/shells.ts withShells): each id once.
  return [...new Set([...cancelled, ...shells])];
}
