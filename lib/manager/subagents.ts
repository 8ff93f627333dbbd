// Owns launching child runs for one parent session (docs/reference/task-tool.md,
// docs/reference/sidecars.md): applies the pure launch plan (launch_plan.ts) and the worktree
// isolation, records the sidecar before the child starts, runs the child under its session lease
// and a concurrency slot through the run's ChildRunner, and ends it through sidecar_lifecycle.ts.
// The child's view of the runtime is child_host.ts, the environment subagent_env.ts, the Task
// results result.ts, background runs background.ts, record projections projections.ts.

import type { RuntimeEvent, RuntimeEventSink, SubtaskRefPart } from "../protocol/events.ts";
import type { SidecarRecord } from "../store/schema.ts";
import type { AnyTool, ToolContext, ToolResult } from "../tools/tool.ts";
import { type SubagentLauncher, type TaskRequest, taskTool } from "../tools/task.ts";
import { type ChildOutcome, type ChildSpec, childToolNames, childTools } from "../executor/child.ts";
import { BLADE_TOOL_NAMES } from "../protocol/tool_rule.ts";
import type { ChildHost } from "./child_runner.ts";
import { findingsOf } from "./child_findings.ts";
import { abandon, isolate, settleWorktree, worktreeDeps } from "./isolation.ts";
import { minimalCommandEnv } from "../permissions/child_env.ts";
import { worktreeView } from "../worktree/view.ts";
import { describeError } from "../errors.ts";
import type { SidecarOwner } from "../store/store.ts";
import {
  cancelledWhileQueued,
  commitTerminal,
  deliverNotice,
  failedBeforeStart,
  launchFailed,
  type LifecycleDeps,
  markQueued,
  reportCrash,
  terminalStatus,
} from "./sidecar_lifecycle.ts";
import { taskOutputTool, taskStopTool } from "../tools/task_control.ts";
import { TaskControl } from "./task_control.ts";
import { backgroundCapableBash } from "./shells.ts";
import { subagentInfo } from "./projections.ts";
import { sessionInUse, SessionLease, tryAcquireLease } from "../session/lease.ts";
import { childHost, mcpToolsFor } from "./child_host.ts";
import { type SubagentEnv, taskControlDeps } from "./subagent_env.ts";
import { backgroundStarted, foregroundResult, summarize } from "./result.ts";
import {
  type LaunchParent,
  type ParentInfo,
  planLaunch,
  type ResumeLookup,
  resumeSourceOf,
  runningRef,
  warmSpec,
} from "./launch_plan.ts";

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
      ...(env.commands === undefined ? {} : { commands: env.commands }),
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
      return fail(launchFailed(this.#lifecycle, this.#parent.sessionId, id, e), id);
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
    return foregroundResult(ctx.callId, done, outcome, status, summary, spec.capped);
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
    return backgroundStarted(record, spec.capped);
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

  /** The child's view of this runtime (child_host.ts); only foreground chains up to an interactive session may ask. */
  #hostFor(spec: ChildSpec, emit: RuntimeEventSink, signal: AbortSignal, foreground = false): ChildHost {
    const ask = foreground && this.#canAsk ? this.#env.approve : undefined;
    const nested = this.#nestedFor(spec, ask !== undefined);
    return childHost({ env: this.#env, spec, emit, signal, nested, ...(ask === undefined ? {} : { ask }) });
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
      mcpTools: childTools(child, mcpToolsFor(this.#env, child).tools).map((t) => t.name),
      ...(child.worktree === undefined ? {} : { worktree: child.worktree }),
      // The capability ceiling one level down: a grandchild gets no tool its parent lacks.
      tools: childToolNames(child, [...(child.toolCeiling ?? BLADE_TOOL_NAMES)]),
    }, { canAsk });
  }
}

function fail(message: string, id: string): ToolResult {
  return {
    content: `Subagent execution failed: ${message}\nagentId: ${id}`,
    isError: true,
    metadata: { agentId: id },
  };
}
