// Owns the top-level session: opens or continues it (holding its lease), assembles its tool table
// (core tools, subagent tools, minus --disallowed-tools), builds the system prompt and its agent loop
// (openMainSession); `blade -p` runs one user turn through it (runMainSession), the interactive
// session many. Never prints: progress goes to the event sink.

import { profileMark } from "../sys/profile.ts";
import type { Ports } from "../sys/mod.ts";
import type { Provider } from "../protocol/provider.ts";
import type { StorageLayout } from "../config/storage.ts";
import type { ResolvedConfig } from "../config/config.ts";
import type { RuntimeEventSink } from "../protocol/events.ts";
import { emptyUsage, userText } from "../protocol/messages.ts";
import type { AgentLoop, RunResult, TurnInput } from "./loop.ts";
import type { ModelOptions } from "./loop_options.ts";
import { sessionLoop } from "./session_loop.ts";
import { openSession } from "../session/open.ts";
import { NO_RULES, type RuleSet, wholeToolsDenied } from "../protocol/tool_rule.ts";
import { toolNameMatches } from "../protocol/mcp_names.ts";
import type { McpHub } from "../mcp/hub.ts";
import type { AnyTool } from "../tools/tool.ts";
import { coreTools, mergeTools, toolSpecs } from "../tools/registry.ts";
import type { TranscriptDiagnostic } from "../session/transcript.ts";
import { rebuildHistory } from "../session/history.ts";
import { acquireLease, type SessionLease } from "../session/lease.ts";
import { runUntilSettled, type SettledRun } from "./settle.ts";
import { structuredOutputHooks, type StructuredState } from "./structured_hooks.ts";
import type { PendingWork } from "../protocol/delivery.ts";
import type { Approver } from "../protocol/approval.ts";
import type { SessionRecovery, SessionSubagents } from "./session_ports.ts";
import type { SessionContext } from "./session_context.ts";
import { expandPrompt, userBlocks } from "./prompt_expansion.ts";
import { compactCommand } from "./compaction_text.ts";
import type { BeforeToolCall } from "./tool_runner.ts";
import { type LoopHooks, mergeHooks } from "./hooks.ts";
import { webAccessOf } from "../web/lazy_web_access.ts";
import { AGENT_TOOL } from "../protocol/tool_names.ts";

export type { RecoveryOutcome, SessionRecovery, SessionSubagents } from "./session_ports.ts";

export interface MainRunOptions {
  prompt: string;
  systemPrompt?: string;
  appendSystemPrompt?: string;
  resume?: string;
  continueLatest?: boolean;
  /** The run's allow, ask and deny rules (permissions/run_rules.ts); a deny rule without specifier removes its tool. */
  rules?: RuleSet;
  /** `--session-id`: the new session's (or the fork's) id. */
  sessionId?: string;
  /** `--fork-session`: continue a copy of the resumed session. */
  fork?: boolean;
  /** `--tools`: only these built-in tools (by name); undefined keeps them all. */
  onlyTools?: readonly string[];
  /** The run's MCP servers (absent when none is configured): their tools join the session's, live. */
  mcp?: McpHub;
  emit: RuntimeEventSink;
  signal: AbortSignal;
  /** The session's subagent layer (its tools replace same-named core ones; session_ports.ts). */
  subagents?: (sessionId: string) => Promise<SessionSubagents>;
  /** Crash recovery of a continued session, before its first model request (session_ports.ts). */
  recovery?: SessionRecovery;
  /** Print mode `--background-wait`: how long to wait for background children; undefined = no limit. */
  backgroundWaitMs?: number;
  /** The interactive session's approvals (print mode has none: unapproved calls are refused). */
  approve?: Approver;
  /** Memory, skills and what they change in the session's tools (executor/session_context.ts). */
  context?: SessionContext;
  /** A further check of each of the session's calls after the permission gate (deny only). */
  beforeToolCall?: BeforeToolCall;
  /**
   * The session's hooks from settings and the Agent SDK (lib/hooks/), made once its id is known: they
   * join the context's and StructuredOutput's hook points (mergeHooks).
   */
  hooks?: ((session: { sessionId: string; transcriptPath: string }) => LoopHooks | undefined) | undefined;
  /** `--json-schema`: the StructuredOutput tool (kept whatever `--tools` says) and the loop's hooks for it. */
  structured?: StructuredState & { tool: AnyTool };
  /** The session's own model options (the Agent SDK's setMaxThinkingTokens). */
  modelOptions?: ModelOptions;
}

export interface MainRunResult {
  sessionId: string;
  result: RunResult;
  transcriptDiagnostics: TranscriptDiagnostic[];
  /** What recovery of a continued session could not do (reported, never fatal). */
  recoveryWarnings: string[];
  /** Background children cancelled because `--background-wait` expired. */
  abandoned: string[];
  /** Background children cancelled because the run was interrupted (Ctrl-C) while they ran. */
  interrupted: string[];
  /** Model requests over every turn of this run (continuations included). */
  modelRequests: number;
  /** Tool calls, usage and wall time over every turn of this run. */
  totals: SettledRun["totals"];
}

/** Whether the run's whole-tool deny rules remove `name` (`mcp__server__*` covers a server's tools). */
export function deniedWhole(rules: RuleSet): (name: string) => boolean {
  const deny = [...wholeToolsDenied(rules.deny)];
  return (name) => deny.some((d) => toolNameMatches(d, name));
}

export function filterTools(tools: readonly AnyTool[], rules: RuleSet): AnyTool[] {
  const denied = deniedWhole(rules);
  return tools.filter((t) => !denied(t.name));
}

/** What a top-level session needs from the composition root (lib/app.ts's App provides it). */
export interface MainSessionDeps {
  ports: Ports;
  layout: StorageLayout;
  /** Canonical absolute path of the user's working folder. */
  workspace: string;
  /** Canonical `--add-dir` folders. */
  additionalDirs: readonly string[];
  trust: { trusted: boolean };
  /** Whether tools may write the workspace and run commands (default: `trust.trusted`; lib/app.ts). */
  workspaceGrant?: boolean;
  config: Pick<
    ResolvedConfig,
    "model" | "maxTokens" | "permissionMode" | "maxTurns" | "smallFastModel" | "compaction"
  >;
  /** Settings `env` for the commands the session's tools run. */
  claude?: { env: Record<string, string> };
  redact(text: string): string;
  provider(): Promise<Provider>;
}

/** Opening options of a top-level session (print mode and the interactive session share them). */
export type MainSessionOptions = Omit<MainRunOptions, "prompt" | "signal" | "backgroundWaitMs"> & {
  /** A fresh session's `session_created` joins its first turn's batch (lib/session/open.ts). */
  deferCreated?: boolean;
};

/**
 * One open top-level session: its loop (the conversation so far), its background work and its lease.
 * Print mode runs one prompt through it; the interactive session runs many and delivers notices
 * between them. `close()` releases the lease (call it once the last turn has ended).
 */
export interface MainSession extends AsyncDisposable {
  readonly sessionId: string;
  readonly loop: AgentLoop;
  readonly pending: PendingWork | undefined;
  /** Whether the session existed before (--resume/--continue). */
  readonly resumed: boolean;
  readonly diagnostics: TranscriptDiagnostic[];
  /** What recovery of a continued session could not do (reported, never fatal). */
  readonly recoveryWarnings: string[];
  /**
   * The next turn's input for `prompt` (its blocks, when a custom command expanded it); `typed` is the
   * prompt as the user typed it (default: `prompt` itself), which UserPromptSubmit hooks see. The first
   * one also acknowledges receipts a crash left behind.
   */
  input(prompt: string | readonly string[], typed?: string): TurnInput;
  close(): Promise<void>;
}

export async function openMainSession(app: MainSessionDeps, o: MainSessionOptions): Promise<MainSession> {
  const { ports, config } = app;
  const opened = await openSession(ports, {
    layout: app.layout,
    workspace: app.workspace,
    model: config.model,
    redact: app.redact,
    ...(o.resume === undefined ? {} : { resume: o.resume }),
    ...(o.continueLatest === undefined ? {} : { continueLatest: o.continueLatest }),
    ...(o.sessionId === undefined ? {} : { sessionId: o.sessionId }),
    ...(o.fork === true ? { fork: true } : {}),
    ...(o.deferCreated === true ? { deferCreated: true } : {}),
  });
  profileMark("session open");
  const lease = takeLease(app, opened);
  if (opened.resumed) await lease.taking;
  try {
    const session = await buildMainSession(app, o, opened, lease);
    // A fresh session's lease is taken while the session is built: held before its first turn, and
    // none of its file calls left to run in the turn that sends the first model request.
    await lease.taking;
    return session;
  } catch (e) {
    await lease.release().catch(() => {});
    throw e;
  }
}

/** A fresh session's lease names this process by its identity once the run has gone on this long. */
export const LEASE_IDENTITY_AFTER_MS = 1_000;

interface MainLease {
  taking: Promise<SessionLease>;
  release(): Promise<void>;
}

/**
 * Whoever runs a session holds its lease: a second `--resume` of a live session fails fast here,
 * before anything is read or written. A fresh id is known to nobody else, so its lease is taken
 * alongside the session's build, by PID: reading the process identity spawns a process (~6 ms of this thread on
 * the way to the first request), so it is added only to a run still going after
 * LEASE_IDENTITY_AFTER_MS (lib/session/lease.ts, `identity: "later"`). A resumed session's lease has
 * it from the start (its takeover of a dead holder's lease may be contested).
 */
function takeLease(app: MainSessionDeps, opened: OpenedSession): MainLease {
  const { ports } = app;
  const fresh = !opened.resumed;
  const taking = acquireLease(
    { fs: ports.fs, process: ports.process, clock: ports.clock, layout: app.layout },
    { projectPath: app.workspace, sessionId: opened.sessionId },
    fresh ? { identity: "later" } : {},
  );
  // Handled at once: the lease may fail (a full disk) before anyone awaits it, and an unhandled
  // rejection would end the process; close() and the catch above still see the failure.
  taking.catch(() => {});
  const stop = fresh
    ? ports.clock.timer(LEASE_IDENTITY_AFTER_MS, () => {
      // Best effort: without it the lease still excludes everyone while this process lives.
      taking.then((lease) => lease.identify()).catch(() => {});
    })
    : () => {};
  return {
    taking,
    release: () => {
      stop();
      return taking.then((lease) => lease.release());
    },
  };
}

async function buildMainSession(
  app: MainSessionDeps,
  o: MainSessionOptions,
  opened: Awaited<ReturnType<typeof openSession>>,
  lease: MainLease,
): Promise<MainSession> {
  const { ports, config } = app;
  // The provider's module loads while the subagent layer reads the registry (both wait on files).
  const [provider, extra]: [Provider, SessionSubagents] = await Promise.all([
    app.provider(),
    o.subagents === undefined ? { tools: [] } : o.subagents(opened.sessionId),
  ]);
  // A fresh session's lease finishes in the background (its id is known to nobody else yet); close()
  // waits for it, so a failure to take it is still reported.
  const { history, recoveryWarnings } = await recoverHistory(o.recovery, opened);
  const tools = sessionTools(o, extra);
  const denied = deniedWhole(o.rules ?? NO_RULES);
  const live = o.mcp === undefined
    ? undefined
    : await import("../mcp/setup.ts").then((m) => m.liveMcpTools(o.mcp!, (name) => !denied(name)));
  const delivered = new Set(history.deliveredInboxIds);
  const pending = extra.pending?.(delivered, [...history.subtasks.values()]);
  // Entries the transcript already acknowledged (a crash before the inbox was trimmed) are dropped.
  const acked = [...history.acknowledgedInboxIds];
  if (pending !== undefined && acked.length > 0) await pending.acknowledged(acked);
  const loop = sessionLoop({
    ports,
    provider,
    transcript: opened.transcript,
    tools,
    // Converted here (this module has the registry already): the loop's own lazy import of it would
    // cost the first request a module load.
    specs: toolSpecs(tools),
    live,
    sessionId: opened.sessionId,
    agentType: "main",
    depth: 0,
    model: config.model,
    maxTokens: config.maxTokens,
    modelOptions: o.modelOptions,
    platform: ports.env.platform(),
    workspaceRoot: app.workspace,
    additionalDirs: app.additionalDirs.length === 0 ? undefined : app.additionalDirs,
    storageRoot: app.layout.root,
    trusted: app.workspaceGrant ?? app.trust.trusted,
    mode: config.permissionMode,
    extraEnv: app.claude === undefined || Object.keys(app.claude.env).length === 0
      ? undefined
      : app.claude.env,
    rules: o.rules ?? NO_RULES,
    web: webAccessOf(app),
    emit: o.emit,
    context: o.context?.blocks,
    // Every check runs (the context's narrowing, the session's own, hooks); any refuses: deny wins.
    ...mergeHooks(
      { beforeToolCall: o.context?.beforeToolCall },
      { beforeToolCall: o.beforeToolCall },
      o.hooks?.({ sessionId: opened.sessionId, transcriptPath: opened.transcript.path }),
      o.structured === undefined ? undefined : structuredOutputHooks(o.structured),
    ),
    prompt: {
      agents: tools.some((t) => t.name === AGENT_TOOL) ? extra.agentsText : undefined,
      override: o.systemPrompt,
      append: o.appendSystemPrompt === undefined ? [] : [o.appendSystemPrompt],
      ...(o.context?.style === undefined ? {} : { style: o.context.style }),
    },
    announce: {
      tools: [...tools, ...live?.tools() ?? []].map((t) => t.name),
      agents: extra.agentNames ?? [],
      permissionMode: config.permissionMode,
      ...(o.mcp === undefined
        ? {}
        : { mcpServers: o.mcp.status().map((s) => ({ name: s.name, status: s.status })) }),
    },
    maxTurns: config.maxTurns,
    compaction: config.compaction,
    pending,
    approve: o.approve,
  }, { messages: history.messages, turns: history.turns });
  return sessionHandle(opened, history, { loop, pending, recoveryWarnings, lease });
}

type OpenedSession = Awaited<ReturnType<typeof openSession>>;
type SessionHistory = OpenedSession["history"];

/** A continued session's history after recovery (rebuilt from the transcript when recovery changed it). */
async function recoverHistory(
  recovery: SessionRecovery | undefined,
  opened: OpenedSession,
): Promise<{ history: SessionHistory; recoveryWarnings: string[] }> {
  const recoveryWarnings: string[] = [];
  let history = opened.history;
  if (opened.resumed && recovery !== undefined) {
    const recovered = await recovery.recover({ sessionId: opened.sessionId, transcript: opened.transcript });
    recoveryWarnings.push(...recovered.warnings);
    if (recovered.changed) {
      history = rebuildHistory((await opened.transcript.read())?.events ?? []);
    }
  }
  return { history, recoveryWarnings };
}

/** The session's tools: core and extra tools (rules and --tools applied), then StructuredOutput. */
function sessionTools(o: MainSessionOptions, extra: SessionSubagents) {
  // The subagent layer's tools replace core tools of the same name (Bash with background support).
  const added = [...o.context?.tools ?? []];
  const all = filterTools(mergeTools(coreTools(), extra.tools, added), o.rules ?? NO_RULES);
  const only = o.onlyTools === undefined ? undefined : new Set(o.onlyTools);
  const wrap = o.context?.wrap ?? ((t: AnyTool) => t);
  return [
    ...(only === undefined ? all : all.filter((t) => only.has(t.name))).map(wrap),
    ...(o.structured === undefined ? [] : [o.structured.tool]),
  ];
}

/** The open session handed to print mode or the interactive session. */
function sessionHandle(
  opened: OpenedSession,
  history: SessionHistory,
  s: {
    loop: AgentLoop;
    pending: PendingWork | undefined;
    recoveryWarnings: string[];
    lease: MainLease;
  },
): MainSession {
  // Receipts already in the transcript but never acknowledged (a crash mid-turn) are acknowledged once.
  let unacked = [...history.deliveredInboxIds].filter((id) => !history.acknowledgedInboxIds.has(id));
  // A deferred `session_created` opens the first turn's batch.
  let prelude = opened.prelude;
  return {
    sessionId: opened.sessionId,
    loop: s.loop,
    pending: s.pending,
    resumed: opened.resumed,
    diagnostics: opened.diagnostics,
    recoveryWarnings: s.recoveryWarnings,
    input(prompt, typed) {
      const acknowledge = unacked;
      const first = prelude;
      unacked = [];
      prelude = undefined;
      const text = typed ?? (typeof prompt === "string" ? prompt : undefined);
      return {
        messages: [typeof prompt === "string" ? userText(prompt) : userBlocks(prompt)],
        ...(text === undefined ? {} : { prompt: text }),
        acknowledge,
        ...(first === undefined ? {} : { prelude: first }),
      };
    },
    close: () => s.lease.release(),
    [Symbol.asyncDispose]: () => s.lease.release(),
  };
}

export async function runMainSession(app: MainSessionDeps, o: MainRunOptions): Promise<MainRunResult> {
  const started = app.ports.clock.now();
  // `/compact [instructions]` compacts the session's conversation instead of running a turn.
  const manual = compactCommand(o.prompt);
  if (manual !== undefined) return await compactSession(app, { ...o, started, ...manual });
  // Print mode's first turn follows at once: session_created goes in its batch (one fsync fewer).
  // A custom command is expanded before the session opens: one that cannot run leaves no session behind.
  const expansion = await expandPrompt(app, o, o.prompt, o.signal);
  await using session = await openMainSession(app, { ...o, deferCreated: true });
  const { loop, pending } = session;
  if (expansion?.model !== undefined) loop.configure({ model: expansion.model });
  profileMark("session ready");
  const settled = await runUntilSettled(
    loop,
    session.input(expansion?.blocks ?? o.prompt, o.prompt),
    pending,
    {
      signal: o.signal,
      sleep: (ms, signal) => app.ports.clock.sleep(ms, signal),
      ...(o.backgroundWaitMs === undefined ? {} : { waitLimitMs: o.backgroundWaitMs }),
    },
  );
  const interrupted = o.signal.aborted && pending !== undefined ? await pending.cancelAll("interrupted") : [];
  profileMark("settled");
  return {
    sessionId: session.sessionId,
    result: settled.result,
    transcriptDiagnostics: session.diagnostics,
    recoveryWarnings: session.recoveryWarnings,
    abandoned: settled.abandoned,
    interrupted,
    modelRequests: loop.modelRequests,
    totals: { ...settled.totals, durationMs: app.ports.clock.now() - started },
  };
}

/** `-p "/compact [instructions]"`: the session's conversation compacted, no turn (as Claude Code: no answer, 0 turns). */
async function compactSession(
  app: MainSessionDeps,
  o: MainRunOptions & { started: number; instructions?: string },
): Promise<MainRunResult> {
  await using session = await openMainSession(app, o);
  const { loop } = session;
  const done = await loop.compact(
    o.signal,
    o.instructions === undefined ? {} : { instructions: o.instructions },
  );
  const durationMs = app.ports.clock.now() - o.started;
  // A PreCompact hook's block is the hook's decision, not a failure (Claude Code 2.1.332 exits 0,
  // tests/fixtures/claude/hooks_precompact_block): the session is unchanged, its words a warning.
  const blocked = !done.ok && done.blocked === true;
  const result: RunResult = {
    status: done.ok || blocked ? "completed" : o.signal.aborted ? "cancelled" : "failed",
    messages: loop.messages,
    finalText: "",
    usage: emptyUsage(),
    toolCalls: 0,
    modelRequests: 0,
    durationMs,
    toolResults: [],
  };
  if (!done.ok && !blocked) {
    result.error = o.signal.aborted ? { type: "cancelled", message: "The run was cancelled." } : {
      type: "compaction_failed",
      message: `Could not compact the conversation: ${done.reason}.`,
      ...(done.error === undefined ? {} : { providerError: done.error }),
    };
  }
  return {
    sessionId: session.sessionId,
    result,
    transcriptDiagnostics: session.diagnostics,
    recoveryWarnings: blocked ? [...session.recoveryWarnings, done.reason] : session.recoveryWarnings,
    abandoned: [],
    interrupted: [],
    modelRequests: 0,
    totals: { toolCalls: 0, usage: emptyUsage(), durationMs },
  };
}
