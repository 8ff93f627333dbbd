// Owns the hooks of a run's subagents (docs/guides/hooks.md "Subagents"), in the main thread: a
// child's hooks are the run's (settings, `--settings`, the Agent SDK's callbacks) plus the agent hooks
// frozen in its snapshot (every agent above it and its own: a child never has fewer hooks than its
// parent, and an agent file can add hooks, never remove one), fired with its root session's id and
// transcript and its own id, type and transcript. SubagentStart fires here before a child runs; its
// context opens the child's first turn. Every command runs in the child's own sandbox (its
// ToolContext, computed by the runtime from its spec), whatever thread the child's loop runs in: a
// Worker child asks (child_hooks.ts) and `SessionHookSet.answer` answers.

import type { AgentHookVerify } from "./agent_hook.ts";
import type { ChildSpec } from "../executor/child.ts";
import { claudeModeName } from "../protocol/permission_mode.ts";
import { type HookEntry, hooksOf } from "../protocol/hook_config.ts";
import type { ToolContext } from "../tools/tool.ts";
import type { HookCommandRunner, HookEngine } from "./hook_engine.ts";
import type { PromptHookAsk } from "./prompt_hook.ts";
import { hookInputBase, type HookSession, sessionHooks, type SessionHookSet } from "./session_hooks.ts";

/** What the run's hooks need from the CLI that built them. */
export interface RunHooksOptions {
  cwd: string;
  /** Starts command hooks in the sandbox of `ctx`'s session (hook_command.ts). */
  runner: (ctx: ToolContext) => HookCommandRunner;
  /** Asks the model for `prompt` hooks, on behalf of the session named (prompt_ask.ts). */
  ask?: ((sessionId: string) => PromptHookAsk) | undefined;
  /** A session's transcript (the root's, when no session bound it: its own hooks are not configured). */
  transcriptOf?: ((sessionId: string) => string) | undefined;
  /** A non-blocking hook problem: reported, never fatal. */
  warn: (line: string) => void;
  /** Said to the user (`systemMessage`, `stopReason`). */
  tell?: ((line: string) => void) | undefined;
}

/** A child's run as its hooks see it: its spec, its own transcript, its tool context per call. */
export interface HookedChild {
  spec: ChildSpec;
  transcriptPath: string;
  /** The child's ToolContext for a call (`""`: its own session's events), as its tools get it. */
  ctx: (callId: string) => ToolContext;
  signal: AbortSignal;
}

/** Events a child's own loop fires (its tool calls and its end). */
const CHILD_EVENTS = ["PreToolUse", "PostToolUse", "SubagentStop"] as const;

export class RunHooks {
  readonly #engine: HookEngine;
  readonly #o: RunHooksOptions;
  #root: { sessionId: string; transcriptPath: string } | undefined;
  #verifier: AgentHookVerify | undefined;

  constructor(engine: HookEngine, options: RunHooksOptions) {
    this.#engine = engine;
    this.#o = options;
  }

  /** The top-level session whose children these are (its id and transcript name them in every input). */
  bind(root: { sessionId: string; transcriptPath: string }): void {
    this.#root = root;
  }

  /** How the top-level session runs `agent` hooks' verifiers as its children (its runtime, once it runs). */
  verifyWith(verifier: AgentHookVerify): void {
    this.#verifier = verifier;
  }

  /** Runs an `agent` hook's verifier of the top-level session (none before its runtime runs: no verdict). */
  readonly verify: AgentHookVerify = async (request, o) =>
    this.#verifier === undefined
      ? { failed: "no subagent runtime runs for this session" }
      : await this.#verifier(request, o);

  /** The hooks of a child's loop (undefined when no hook listens to its events: it pays nothing). */
  forChild(child: HookedChild): SessionHookSet | undefined {
    const engine = this.#engineOf(child.spec, { warn: true });
    if (!CHILD_EVENTS.some((e) => engine.has(e))) return undefined;
    return sessionHooks(engine, this.#session(child));
  }

  /**
   * SubagentStart before `child` runs (matched by its type): the context its hooks add, as Claude Code
   * words it, for the child's first turn. Its commands run in the child's sandbox (never wider than
   * its parent's).
   */
  async subagentStart(child: HookedChild): Promise<string[]> {
    const engine = this.#engineOf(child.spec, { warn: false });
    if (!engine.has("SubagentStart")) return [];
    const session = this.#session(child);
    const ctx = child.ctx("");
    const v = await engine.fire("SubagentStart", hookInputBase(session, "SubagentStart"), {
      match: child.spec.subagentType,
      signal: child.signal,
      run: this.#o.runner(ctx),
      ask: session.ask,
    });
    if (v.error !== undefined) this.#o.warn(`SubagentStart hook error: ${v.error}`);
    if (v.message !== undefined) this.#o.tell?.(v.message);
    return (v.context ?? []).map((c) => `SubagentStart hook additional context: ${c}`);
  }

  /**
   * The run's hooks and the child's agent hooks; `warn` says their problems (the registry refused
   * malformed files already: these come from a record written by an older Blade).
   */
  #engineOf(spec: ChildSpec, o: { warn: boolean }): HookEngine {
    const own: HookEntry[] = [];
    for (const agent of spec.config.hooks ?? []) {
      const read = hooksOf(agent.hooks, { source: "agent", where: agent.where });
      own.push(...read.hooks);
      if (o.warn) { for (const p of read.problems) this.#o.warn(p); }
    }
    return this.#engine.with(own);
  }

  #session(child: HookedChild): HookSession {
    const { spec } = child;
    const root = this.#root ??
      { sessionId: spec.parentSessionId, transcriptPath: this.#o.transcriptOf?.(spec.parentSessionId) ?? "" };
    return {
      sessionId: root.sessionId,
      transcriptPath: root.transcriptPath,
      cwd: this.#o.cwd,
      permissionMode: () => claudeModeName(spec.config.permissionMode),
      agent: { id: spec.id, type: spec.subagentType, transcriptPath: child.transcriptPath },
      // Tool events run in the call's context; the child's own events in its session's.
      runner: (ctx) => this.#o.runner(ctx ?? child.ctx("")),
      ask: this.#o.ask?.(root.sessionId),
      // An `agent` hook's verifier is a read-only child of the top-level session (agent_hook.ts).
      verify: this.verify,
      warn: this.#o.warn,
      tell: this.#o.tell,
      signal: child.signal,
    };
  }
}
