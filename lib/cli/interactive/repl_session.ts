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
}

/** Opens (or resumes) a session and prints its header; the runtime is closed again if it fails. */
export async function openReplSession(
  app: App,
  flags: SessionFlags,
  view: SessionView,
  approve: Approver,
  which: { resume?: string; continueLatest?: boolean },
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
  const subagents = app.runtime(emit, {
    ...(context?.child === undefined ? {} : { childContext: context.child }),
    rules: flags.rules.texts,
    approve,
    ...(mcp === undefined ? {} : { mcp }),
  });
  const session = await openMainSession(app, {
    ...flags.prompts,
    ...which,
    approve,
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
  showHeader(app, view, session);
  return { session, subagents, context };
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
 * Ends a session's background work: children are cancelled, shells stopped, Workers ended. Returns
 * the ids of what was still running (children, then shells).
 */
export async function closeReplSession(open: OpenSession, workspace: string): Promise<string[]> {
  const owner = { parentSessionId: open.session.sessionId, parentProjectPath: workspace };
  const shells = (open.subagents.session()?.env.shells.list(owner) ?? [])
    .filter((s) => s.status === "running").map((s) => s.id);
  const cancelled = (await open.session.pending?.cancelAll("the interactive session ended")) ?? [];
  await open.subagents.close();
  await open.session.close(); // releases the lease: the session may be resumed elsewhere now
  // The session's pending work holds its shells too (run/shells.ts withShells): each id once.
  return [...new Set([...cancelled, ...shells])];
}
