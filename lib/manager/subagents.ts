// Owns launching child runs for one parent session (docs/reference/task-tool.md, docs/reference/sidecars.md): applies the pure launch plan
// (launch_plan.ts) — records the sidecar (owner, lineage, process identity) before the child
// starts —, runs the child through the executor with a shared concurrency limit, commits the
// terminal sidecar, and returns the canonical Task result. Background runs and delivery live in
// background.ts, record projections in projections.ts.

import type { Approver } from "../protocol/approval.ts";
import type { Ports } from "../sys/mod.ts";
import type { RuntimeEvent, RuntimeEventSink, SubtaskRefPart } from "../protocol/events.ts";
import type { StorageLayout } from "../config/storage.ts";
import type { RuleTexts } from "../permissions/run_rules.ts";
import type { SidecarStore } from "../store/store.ts";
import type { SidecarRecord } from "../store/schema.ts";
import type { AnyTool, ToolContext, ToolResult } from "../tools/tool.ts";
import { type SubagentLauncher, type TaskRequest, taskTool } from "../tools/task.ts";
import { type ChildOutcome, type ChildSpec, childTools } from "../executor/child.ts";
import type { DelegationCall } from "../executor/child_protocol.ts";
import type { ChildHost, ChildRunner } from "./child_runner.ts";
import type { ChildMcp } from "./child_mcp.ts";
import { mcpTool, type McpToolShape } from "../mcp/tool_adapter.ts";
import { canonicalResult, recordNotes, summarize } from "./result.ts";
import { findingsOf } from "./child_findings.ts";
import { abandon, isolate, settleWorktree, worktreeDeps } from "./isolation.ts";
import { minimalCommandEnv } from "../permissions/child_env.ts";
import { worktreeView } from "../worktree/view.ts";
import type { Semaphore } from "./semaphore.ts";
import { describeError } from "../errors.ts";
import type { BackgroundRuns } from "./background.ts";
import type { Heartbeat } from "../store/heartbeat.ts";
import type { SidecarOwner } from "../store/store.ts";
import { buildCompletionNotice } from "./notice.ts";
import { taskOutputTool, taskStopTool } from "../tools/task_control.ts";
import { mergeTools } from "../tools/registry.ts";
import { TaskControl, type TaskControlDeps } from "./task_control.ts";
import { backgroundCapableBash, type ShellTasks } from "./shells.ts";
import { lineageOf, subagentInfo, subtaskRef } from "./projections.ts";
import { sessionInUse, SessionLease, tryAcquireLease } from "../session/lease.ts";
import {
  type LaunchParent,
  type OwnProcess,
  type ParentInfo,
  planLaunch,
  type RegistryView,
  type ResumeLookup,
  resumeSourceOf,
  runningRef,
  warmSpec,
} from "./launch_plan.ts";

/** Shared by every session of one root run. */
export interface SubagentEnv {
  ports: Ports;
  layout: StorageLayout;
  store: SidecarStore;
  registry: RegistryView;
  /** Alias table for agent `model` fields. */
  aliases: Record<string, string>;
  trusted: boolean;
  maxDepth: number;
  /** Limits children running at once per root session; beyond it they queue. */
  slots: Semaphore;
  /** Core tools available to every child (before its own filter). */
  coreTools: () => AnyTool[];
  /** The root session's event sink; child events arrive wrapped as `subagent_event`. */
  emit: RuntimeEventSink;
  /** Background runs of this process. */
  background: BackgroundRuns;
  /** Bumps a background run's lastActiveAt at most once per second. */
  heartbeat: Heartbeat;
  /** Background Bash commands of this process. */
  shells: ShellTasks;
  /** The run's rules (--allowed-tools, --disallowed-tools, settings); they apply to every child too. */
  rules?: RuleTexts;
  /** Where children run: a Worker under their own permission set (the default), or this thread. */
  runner: ChildRunner;
  /** The interactive session's approvals; foreground children ask through it. Unset: they refuse. */
  approve?: Approver;
  /** The run's MCP servers as children see them (absent when none is configured). */
  mcp?: ChildMcp;
  /** The PID and identity of this process, recorded in each sidecar (read once per runtime). */
  ownProcess: () => Promise<OwnProcess>;
}

/** TaskOutput / TaskStop's view of the runtime. */
export function taskControlDeps(env: SubagentEnv): TaskControlDeps {
  return {
    store: env.store,
    background: env.background,
    shells: env.shells,
    clock: env.ports.clock,
    sessionsDir: env.layout.sessionsDir,
  };
}

export class SubagentRuntime implements SubagentLauncher {
  #env: SubagentEnv;
  #parent: ParentInfo;

  /** Whether this runtime's own session may ask the person (false below a background run). */
  #canAsk: boolean;

  constructor(env: SubagentEnv, parent: ParentInfo, options: { canAsk?: boolean } = {}) {
    this.#env = env;
    this.#parent = parent;
    this.#canAsk = options.canAsk ?? true;
  }

  /** The tools this session gets for delegation. */
  tools(): AnyTool[] {
    const control = new TaskControl(taskControlDeps(this.#env), this.owner);
    return [taskTool(this), taskOutputTool(control), taskStopTool(control)];
  }

  /** The core tools with Bash able to run commands in the background as this session's tasks. */
  coreTools(): AnyTool[] {
    return this.#env.coreTools().map((t) =>
      t.name === "Bash" ? backgroundCapableBash(t, this.#env.shells, this.owner) : t
    );
  }

  get owner(): SidecarOwner {
    return { parentSessionId: this.#parent.sessionId, parentProjectPath: this.#parent.projectPath };
  }

  agentTypes(): string[] {
    return this.#env.registry.names();
  }

  #launchParent(): Omit<LaunchParent, "process"> {
    const env = this.#env;
    return {
      ...this.#parent,
      trusted: env.trusted,
      maxDepth: env.maxDepth,
      aliases: env.aliases,
      ...(env.rules === undefined ? {} : { rules: env.rules }),
      auditEnv: minimalCommandEnv(env.ports.env),
    };
  }

  /** Starts the Worker a child of this type would run in, while the parent's answer still streams. */
  warm(subagentType: string): void {
    const env = this.#env;
    const spec = warmSpec(subagentType, env.registry, this.#launchParent());
    if (spec === undefined) return;
    env.runner.warm(spec, this.#hostFor(spec, () => {}, new AbortController().signal));
  }

  async plan(input: TaskRequest): Promise<SubtaskRefPart | undefined> {
    const from = resumeSourceOf(input);
    if (from === undefined) return runningRef(input, this.#env.registry);
    const source = (await this.#resumeLookup(from, input.subagent_session_id)).source;
    if (source === null || !("record" in source) || !this.#sees(source.record)) return undefined;
    return runningRef(input, this.#env.registry, source.record);
  }

  #sees(record: SidecarRecord): boolean {
    return record.parentSessionId === this.#parent.sessionId &&
      record.parentProjectPath === this.#parent.projectPath;
  }

  /** The resume source as stored and whether the new id is taken (planLaunch decides the rest). */
  async #resumeLookup(from: string, newId: string): Promise<ResumeLookup> {
    const store = this.#env.store;
    const load = (id: string) => store.load(id).catch(() => null);
    return { source: await load(from), newIdTaken: (await load(newId)) !== null };
  }

  async launch(input: TaskRequest, ctx: ToolContext): Promise<ToolResult> {
    const env = this.#env;
    const id = input.subagent_session_id;
    const parent = { ...this.#launchParent(), process: await env.ownProcess() };
    const from = resumeSourceOf(input);
    const lookup = from === undefined ? undefined : await this.#resumeLookup(from, id);
    const planned = planLaunch(input, env.registry, parent, env.ports.clock.now(), lookup);
    if (!planned.ok) return fail(planned.refusal, id);
    const worktrees = worktreeDeps(env.ports, env.layout);
    const plan = await isolate(worktrees, planned, this.#parent.workspaceRoot);
    if ("refusal" in plan) return fail(plan.refusal, id);
    const { record, spec } = plan;
    try {
      await env.store.create(record);
    } catch (e) {
      await abandon(worktrees, record.worktree);
      return fail(describeError(e), id);
    }
    env.emit({
      type: "subagent_spawned",
      parentSessionId: this.#parent.sessionId,
      callId: ctx.callId,
      subagent: subagentInfo(record),
    });
    if (record.background) return this.#startBackground(record, spec, ctx.callId);
    const outcome = await this.#run(spec, ctx.signal, undefined, true);
    const done = await this.#finish(id, outcome, ctx.signal.aborted, record);
    const { status, summary } = this.#completed(ctx.callId, done, outcome);
    return {
      content: canonicalResult(id, outcome, { lineage: lineageOf(done), notes: recordNotes(done) }),
      isError: !outcome.success,
      metadata: {
        agentId: id,
        lineage: lineageOf(done),
        status,
        summary,
        stats: outcome.stats,
        subagentType: record.subagentType,
        ...findingsMetadata(done),
      },
      parts: [subtaskRef(ctx.callId, done, status)],
    };
  }

  #startBackground(record: SidecarRecord, spec: ChildSpec, callId: string): ToolResult {
    const env = this.#env;
    const id = record.id;
    const owner = this.owner;
    env.background.start({ agentId: id, callId, owner }, async (signal) => {
      const outcome = await this.#run(spec, signal, () => void env.heartbeat.beat(id).catch(() => {}));
      env.heartbeat.forget(id);
      const done = await this.#finish(id, outcome, signal.aborted, record);
      await this.#deliver(done, owner);
      this.#completed(callId, done, outcome);
    });
    return {
      content: JSON.stringify({
        agent_id: id,
        status: "running",
        ...(record.resumedFrom === undefined ? {} : { resumed_from: record.resumedFrom }),
        message: `Started ${record.subagentType} in the background. You will receive a completion notice ` +
          `when it finishes; do not poll for it. Continue with other work, or end your turn to wait.`,
      }),
      isError: false,
      metadata: {
        agentId: id,
        lineage: lineageOf(record),
        status: "running",
        subagentType: record.subagentType,
        background: true,
      },
    };
  }

  /** Commits the terminal sidecar (the first terminal state wins: a stopped run stays cancelled). */
  async #finish(
    id: string,
    outcome: ChildOutcome,
    aborted: boolean,
    fallback: SidecarRecord,
  ): Promise<SidecarRecord> {
    const env = this.#env;
    const status = outcome.cancelled || aborted ? "cancelled" : outcome.success ? "completed" : "failed";
    const worktree = fallback.worktree === undefined
      ? undefined
      : await settleWorktree(worktreeDeps(env.ports, env.layout), fallback.worktree, status === "completed");
    const result = {
      success: status === "completed",
      message: outcome.message,
      ...(outcome.error === undefined ? {} : { error: outcome.error }),
      ...findingsOf(fallback.configSnapshot.name, outcome, fallback.workspaceRoot),
    };
    try {
      await env.store.markCompleted(id, { status, result, completedAt: env.ports.clock.now() });
      return await env.store.update(id, (r) => {
        const { processId: _p, processIdentity: _i, ...rest } = r;
        // A run that never started keeps the messages it was given (a resumed source's history).
        const messages = outcome.messages.length === 0 ? rest.messages : outcome.messages;
        return { ...rest, messages, stats: outcome.stats, ...(worktree === undefined ? {} : { worktree }) };
      });
    } catch {
      return { ...fallback, status, result, ...(worktree === undefined ? {} : { worktree }) };
    }
  }

  /** Puts the completion notice into the owner's durable inbox and wakes the owner. */
  async #deliver(record: SidecarRecord, owner: SidecarOwner): Promise<void> {
    const env = this.#env;
    const source = record.resumedFrom === undefined ? undefined : await env.store.load(record.resumedFrom)
      .then((l) => (l !== null && "record" in l ? l.record : null)).catch(() => null);
    const notice = buildCompletionNotice({
      child: record,
      owner,
      ...(source === undefined ? {} : { source }),
    });
    if (notice.ok) {
      await env.background.inboxFor(owner).enqueue({
        inboxId: notice.inboxId,
        kind: "completion",
        text: notice.text,
        createdAt: env.ports.clock.now(),
        agentId: record.id,
      }).catch(() => {});
    }
    env.background.notify(owner);
  }

  #completed(callId: string, record: SidecarRecord, outcome: ChildOutcome) {
    const status = record.status === "running" ? "failed" : record.status;
    const summary = status === "cancelled" ? "cancelled" : summarize(outcome);
    this.#env.emit({
      type: "subagent_completed",
      parentSessionId: this.#parent.sessionId,
      callId,
      subagent: subagentInfo(record),
      state: status,
      success: status === "completed",
      summary,
      ...(record.result.verificationVerdict === undefined
        ? {}
        : { verdict: record.result.verificationVerdict }),
      ...(record.worktree === undefined ? {} : { worktree: worktreeView(record.worktree) }),
    });
    return { status, summary };
  }

  /** `foreground`: the parent waits for this run, so it may ask the person (interactive sessions). */
  async #run(
    spec: ChildSpec,
    signal: AbortSignal,
    onActivity?: () => void,
    foreground = false,
  ): Promise<ChildOutcome> {
    const env = this.#env;
    // Whoever runs a session holds its lease, so recovery and a second runner keep their hands off.
    const lease = await tryAcquireLease(
      { fs: env.ports.fs, process: env.ports.process, clock: env.ports.clock, layout: env.layout },
      { projectPath: spec.parentProjectPath, sessionId: spec.id },
    ).catch((e) => ({ error: describeError(e) }));
    if (!(lease instanceof SessionLease)) {
      const why = "busy" in lease ? sessionInUse(spec.id, lease.busy).message : `its lease: ${lease.error}`;
      return failedBeforeStart(`Cannot run ${spec.id}: ${why}`);
    }
    await using _lease = lease;
    return await this.#runLeased(spec, signal, onActivity, foreground);
  }

  async #runLeased(
    spec: ChildSpec,
    signal: AbortSignal,
    onActivity: (() => void) | undefined,
    foreground: boolean,
  ): Promise<ChildOutcome> {
    const env = this.#env;
    // A child that must wait for a slot says so in its sidecar (`queuedAt`), so listings show QUEUED.
    const queued = env.slots.free === 0;
    if (queued) await env.store.update(spec.id, { queuedAt: env.ports.clock.now() }).catch(() => {});
    let slot: Disposable;
    try {
      slot = await env.slots.acquire(signal);
    } catch {
      return cancelledWhileQueued();
    }
    using _slot = slot;
    if (queued) {
      await env.store.update(spec.id, (r) => {
        const { queuedAt: _q, ...rest } = r;
        return rest;
      }).catch(() => {});
    }
    const emit = (event: RuntimeEvent) => {
      onActivity?.();
      env.emit({ type: "subagent_event", parentSessionId: this.#parent.sessionId, agentId: spec.id, event });
    };
    await env.mcp?.prepare(spec.id, spec.config, this.#parent.mcpTools);
    try {
      return await env.runner.run(spec, this.#hostFor(spec, emit, signal, foreground), signal);
    } finally {
      env.mcp?.release(spec.id);
    }
  }

  /** The child's view of this runtime: its tools, and answers to the calls it makes from a Worker. */
  #hostFor(spec: ChildSpec, emit: RuntimeEventSink, signal: AbortSignal, foreground = false): ChildHost {
    const env = this.#env;
    // Only a chain of foreground runs up to an interactive session may ask; the rest refuse.
    const ask = foreground && this.#canAsk ? env.approve : undefined;
    const nested = this.#nestedFor(spec, ask !== undefined);
    // The child's own identity, not what its Worker claims.
    const approve: Approver | undefined = ask === undefined
      ? undefined
      : (request, s) => ask({ ...request, sessionId: spec.id, agentType: spec.subagentType }, s);
    const delegation = spec.depth < env.maxDepth;
    const ctxFor = (callId: string): ToolContext => ({
      ports: env.ports,
      sessionId: spec.id,
      workspaceRoot: spec.workspaceRoot,
      storageRoot: env.layout.root,
      trusted: spec.trusted,
      mode: spec.config.permissionMode,
      callId,
      signal,
      emit,
    });
    const mcp = this.#mcpToolsFor(spec);
    const tools = () => mergeTools(nested.coreTools(), delegation ? nested.tools() : [], mcp.tools);
    return {
      emit,
      delegation,
      tools,
      mcp: mcp.shapes,
      answer: (call) => {
        if (call.method !== "mcp") return nested.#answer(call, ctxFor, approve, signal);
        // The child's final tool list decides, not what the Worker asks for.
        const granted = childTools(spec, tools()).map((t) => t.name);
        return env.mcp === undefined
          ? Promise.reject(new Error("no MCP servers in this run"))
          : env.mcp.call(spec.id, granted, call.name, call.input, signal);
      },
      ...(approve === undefined ? {} : { approve }),
    };
  }

  /** The MCP tools `child` may have (before its own tools/disallowedTools), calling the main thread's hubs. */
  #mcpToolsFor(child: ChildSpec): { tools: AnyTool[]; shapes: McpToolShape[] } {
    const mcp = this.#env.mcp;
    if (mcp === undefined) return { tools: [], shapes: [] };
    const shapes = mcp.toolsFor(child.id);
    const names = shapes.map((t) => t.bladeName);
    return {
      tools: shapes.map((t) =>
        mcpTool(t, (name, input, signal) => mcp.call(child.id, names, name, input, signal))
      ),
      shapes,
    };
  }

  /** Answers a delegation call of this session's own child running in a Worker. */
  #answer(
    call: DelegationCall,
    ctxFor: (callId: string) => ToolContext,
    approve: Approver | undefined,
    signal: AbortSignal,
  ): Promise<unknown> {
    const control = new TaskControl(taskControlDeps(this.#env), this.owner);
    switch (call.method) {
      case "plan":
        return this.plan(call.input);
      case "launch":
        return this.launch(call.input, ctxFor(call.callId));
      case "output":
        return control.output(call.input, ctxFor(""));
      case "stop":
        return control.stop(call.taskId, ctxFor(""));
      case "approve":
        return approve === undefined ? Promise.resolve("deny") : approve(call.request, signal);
      case "mcp":
        return Promise.reject(new Error("MCP calls are answered by the child's host"));
    }
  }

  #nestedFor(child: ChildSpec, canAsk: boolean): SubagentRuntime {
    return new SubagentRuntime(this.#env, {
      sessionId: child.id,
      projectPath: this.#parent.projectPath,
      workspaceRoot: child.workspaceRoot,
      model: child.config.model,
      mode: child.config.permissionMode,
      depth: child.depth,
      // Its own children get at most the MCP tools it has (the capability ceiling).
      mcpTools: childTools(child, this.#mcpToolsFor(child).tools).map((t) => t.name),
      ...(child.worktree === undefined ? {} : { worktree: child.worktree }),
    }, { canAsk });
  }
}

/** Task metadata of a finished record: its verdict, evidence and worktree. */
function findingsMetadata(record: SidecarRecord): Record<string, unknown> {
  const r = record.result;
  return {
    ...(r.modifiedFiles === undefined ? {} : { modifiedFiles: r.modifiedFiles }),
    ...(r.verificationCommands === undefined ? {} : { verificationCommands: r.verificationCommands }),
    ...(r.verificationVerdict === undefined ? {} : { verificationVerdict: r.verificationVerdict }),
    ...(record.worktree === undefined ? {} : { worktree: worktreeView(record.worktree) }),
  };
}

function fail(message: string, id: string): ToolResult {
  return {
    content: `Subagent execution failed: ${message}\nagentId: ${id}`,
    isError: true,
    metadata: { agentId: id },
  };
}

function failedBeforeStart(error: string): ChildOutcome {
  return {
    success: false,
    message: "",
    error,
    errorType: "session_in_use",
    cancelled: false,
    messages: [],
    stats: { tokens: 0, toolCalls: 0, durationMs: 0 },
    toolResults: [],
  };
}

function cancelledWhileQueued(): ChildOutcome {
  return {
    success: false,
    message: "",
    error: "Cancelled while waiting for a free subagent slot.",
    errorType: "cancelled",
    cancelled: true,
    messages: [],
    stats: { tokens: 0, toolCalls: 0, durationMs: 0 },
    toolResults: [],
  };
}
