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
import { type ChildOutcome, type ChildSpec, childToolNames, childTools } from "../executor/child.ts";
import { BLADE_TOOL_NAMES } from "../protocol/tool_rule.ts";
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
import {
  cancelledWhileQueued,
  commitTerminal,
  deliverNotice,
  failedBeforeStart,
  type LifecycleDeps,
  markQueued,
  reportCrash,
  terminalStatus,
} from "./sidecar_lifecycle.ts";
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
  /** CLAUDE_CODE_SUBAGENT_MODEL (see LaunchParent.subagentModel). */
  subagentModel?: string;
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

  get #lifecycle(): LifecycleDeps {
    const env = this.#env;
    return { store: env.store, clock: env.ports.clock, background: env.background, emit: env.emit };
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
      ...(env.subagentModel === undefined ? {} : { subagentModel: env.subagentModel }),
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
    const done = await this.#finish(record, outcome, ctx.signal.aborted);
    const { status, summary } = this.#completed(ctx.callId, done, outcome);
    return {
      content: canonicalResult(id, outcome, { lineage: lineageOf(done), notes: recordNotes(done) }) +
        cappedNote(spec),
      isError: !outcome.success,
      metadata: {
        agentId: id,
        lineage: lineageOf(done),
        status,
        summary,
        stats: outcome.stats,
        subagentType: record.subagentType,
        ...findingsMetadata(done),
        ...(spec.capped === undefined ? {} : { capped: spec.capped }),
      },
      parts: [subtaskRef(ctx.callId, done, status)],
    };
  }

  #startBackground(record: SidecarRecord, spec: ChildSpec, callId: string): ToolResult {
    const env = this.#env;
    const id = record.id;
    const owner = this.owner;
    const lifecycle = this.#lifecycle;
    env.background.start({ agentId: id, callId, owner }, async (signal) => {
      try {
        const outcome = await this.#run(spec, signal, () => void env.heartbeat.beat(id).catch(() => {}));
        env.heartbeat.forget(id);
        const done = await this.#finish(record, outcome, signal.aborted);
        await deliverNotice(lifecycle, done, owner);
        this.#completed(callId, done, outcome);
      } catch (e) {
        await reportCrash(lifecycle, record, owner, e);
      }
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
        ...(spec.capped === undefined ? {} : { capped: spec.capped }),
      },
    };
  }

  /** Settles the child's worktree, adds its findings, and commits the terminal sidecar. */
  async #finish(running: SidecarRecord, outcome: ChildOutcome, aborted: boolean): Promise<SidecarRecord> {
    const env = this.#env;
    const worktree = running.worktree === undefined ? undefined : await settleWorktree(
      worktreeDeps(env.ports, env.layout),
      running.worktree,
      terminalStatus(outcome, aborted) === "completed",
    );
    return await commitTerminal(this.#lifecycle, this.#parent.sessionId, running, outcome, aborted, {
      result: findingsOf(running.configSnapshot.name, outcome, running.workspaceRoot),
      ...(worktree === undefined ? {} : { worktree }),
    });
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
    const unqueue = env.slots.free === 0 ? await markQueued(this.#lifecycle, spec.id) : undefined;
    let slot: Disposable;
    try {
      slot = await env.slots.acquire(signal);
    } catch {
      return cancelledWhileQueued();
    }
    using _slot = slot;
    await unqueue?.();
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
      // The capability ceiling one level down: a grandchild gets no tool its parent lacks.
      tools: childToolNames(child, [...(child.toolCeiling ?? BLADE_TOOL_NAMES)]),
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

/** Tells the model what the child did not get, so it does not expect the child to do it. */
function cappedNote(spec: ChildSpec): string {
  return spec.capped === undefined ? "" : `\nNote: ${spec.capped.join("; ")}.`;
}

function fail(message: string, id: string): ToolResult {
  return {
    content: `Subagent execution failed: ${message}\nagentId: ${id}`,
    isError: true,
    metadata: { agentId: id },
  };
}
