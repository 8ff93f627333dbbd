// Owns launching child runs for one parent session (SPEC §5, §7): resolves the agent definition into
// a frozen config snapshot, records the sidecar (owner, lineage, process identity) before the child
// starts, runs it through the executor with a shared concurrency limit, commits the terminal sidecar,
// and returns the canonical Task result. Background runs and delivery live in background.ts.

import type { Ports } from "../sys/mod.ts";
import type { ProcessIdentity } from "../sys/process.ts";
import type { Provider } from "../protocol/provider.ts";
import type {
  Lineage,
  RuntimeEvent,
  RuntimeEventSink,
  SubagentInfo,
  SubtaskRefPart,
  SubtaskState,
} from "../protocol/events.ts";
import type { StorageLayout } from "../config/storage.ts";
import { resolveModel } from "../config/config.ts";
import type { PermissionMode } from "../permissions/modes.ts";
import type { AgentDefinition } from "../registry/schema.ts";
import type { SidecarStore } from "../store/store.ts";
import type { ConfigSnapshot, SidecarRecord } from "../store/schema.ts";
import type { AnyTool, ToolContext, ToolResult } from "../tools/tool.ts";
import { type SubagentLauncher, type TaskInput, taskTool } from "../tools/task.ts";
import { type ChildOutcome, type ChildSpec, childTools, runChild } from "../executor/child.ts";
import type { ChildWorkerPool, WorkerChildOptions } from "./child_sandbox.ts";
import type { ProviderConfig } from "../provider/factory.ts";
import { canonicalResult, summarize } from "./result.ts";
import { Semaphore } from "./semaphore.ts";
import { describeError } from "../errors.ts";
import type { BackgroundRuns } from "./background.ts";
import type { Heartbeat } from "../store/heartbeat.ts";
import type { SidecarOwner, SidecarPatch } from "../store/store.ts";
import { buildCompletionNotice } from "./notice.ts";
import { taskOutputTool, taskStopTool } from "../tools/task_control.ts";
import { mergeTools, toolSpecs } from "../tools/registry.ts";
import { TaskControl } from "./task_control.ts";
import { backgroundCapableBash, type ShellTasks } from "./shells.ts";

export interface RegistryView {
  get(name: string): AgentDefinition | undefined;
  /** The definition, or a BladeError `agent_not_found` listing the available names. */
  require(name: string): AgentDefinition;
  names(): string[];
  /** The agent list shown to the model. */
  describeForModel(): string;
}

/** Shared by every session of one root run. */
export interface SubagentEnv {
  ports: Ports;
  provider: Provider;
  layout: StorageLayout;
  store: SidecarStore;
  registry: RegistryView;
  /** Alias table for agent `model` fields. */
  aliases: Record<string, string>;
  trusted: boolean;
  maxDepth: number;
  maxTokens: number;
  /** Limits children running at once per root session; beyond it they queue. */
  slots: Semaphore;
  /** Core tools available to every child (before its own filter). */
  coreTools: () => AnyTool[];
  /** The root session's event sink; child events arrive wrapped as `subagent_event`. */
  emit: RuntimeEventSink;
  /** Removes secrets from transcript lines. */
  redact?: (text: string) => string;
  /** Background runs of this process. */
  background: BackgroundRuns;
  /** Bumps a background run's lastActiveAt at most once per second. */
  heartbeat: Heartbeat;
  /** Background Bash commands of this process. */
  shells: ShellTasks;
  /** `--allowed-tools` rules of the run; they apply to every child too. */
  allowedTools?: string[];
  /**
   * Where children run: in a Deno Worker under their own permission set (the default), or in this
   * thread (`BLADE_CHILD_SANDBOX=none`, for comparison and for hosts without Workers).
   */
  sandbox: ChildSandbox;
}

export type ChildSandbox =
  | { kind: "none" }
  | {
    kind: "worker";
    pool: ChildWorkerPool;
    provider: ProviderConfig;
    secrets: string[];
    extraReadDirs: string[];
  };

/** The session that calls Task. */
export interface ParentInfo {
  sessionId: string;
  /** Canonical project path: the owner key together with sessionId. */
  projectPath: string;
  workspaceRoot: string;
  model: string;
  mode: PermissionMode;
  depth: number;
}

export type TaskRequest = TaskInput & { subagent_session_id: string };

export function subagentInfo(record: SidecarRecord): SubagentInfo {
  return {
    session_id: record.id,
    subagent_type: record.subagentType,
    description: record.description,
    background: record.background,
    root_agent_id: record.rootAgentId,
    resumed_from: record.resumedFrom ?? null,
    resume_depth: record.resumeDepth,
  };
}

export function lineageOf(record: SidecarRecord): Lineage {
  return record.resumedFrom === undefined
    ? { rootAgentId: record.rootAgentId, resumeDepth: record.resumeDepth }
    : { rootAgentId: record.rootAgentId, resumedFrom: record.resumedFrom, resumeDepth: record.resumeDepth };
}

export function subtaskRef(callId: string, record: SidecarRecord, state: SubtaskState): SubtaskRefPart {
  return {
    type: "subtask_ref",
    callId,
    agentId: record.id,
    subagentType: record.subagentType,
    description: record.description,
    background: record.background,
    state,
    lineage: lineageOf(record),
  };
}

export class SubagentRuntime implements SubagentLauncher {
  #env: SubagentEnv;
  #parent: ParentInfo;

  constructor(env: SubagentEnv, parent: ParentInfo) {
    this.#env = env;
    this.#parent = parent;
  }

  /** The tools this session gets for delegation. */
  tools(): AnyTool[] {
    const control = new TaskControl(this.#env, this.owner);
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

  /** Starts the Worker a child of this type would run in, while the parent's answer still streams. */
  warm(subagentType: string): void {
    const env = this.#env;
    if (env.sandbox.kind !== "worker") return;
    const definition = env.registry.get(subagentType);
    if (definition === undefined || this.#parent.depth + 1 > env.maxDepth) return;
    const spec: ChildSpec = {
      id: "warm",
      subagentType: subagentType,
      description: "",
      prompt: "",
      config: this.snapshotOf(definition, definition.isolation),
      parentSessionId: this.#parent.sessionId,
      parentProjectPath: this.#parent.projectPath,
      workspaceRoot: this.#parent.workspaceRoot,
      trusted: env.trusted,
      depth: this.#parent.depth + 1,
      lineage: { rootAgentId: "warm", resumeDepth: 0 },
    };
    env.sandbox.pool.warm(this.#workerOptions(spec, () => {}, new AbortController().signal));
  }

  plan(input: TaskRequest): Promise<SubtaskRefPart | undefined> {
    const type = input.subagent_type;
    if (type === undefined || this.#env.registry.get(type) === undefined) return Promise.resolve(undefined);
    return Promise.resolve({
      type: "subtask_ref",
      callId: "",
      agentId: input.subagent_session_id,
      subagentType: type,
      description: input.description,
      background: input.run_in_background === true,
      state: "running",
      lineage: { rootAgentId: input.subagent_session_id, resumeDepth: 0 },
    });
  }

  /** Freezes the definition into the snapshot the child runs with (SPEC §5 resolution). */
  snapshotOf(definition: AgentDefinition, isolation: "none" | "worktree"): ConfigSnapshot {
    const model = definition.model === "inherit"
      ? this.#parent.model
      : resolveModel(definition.model, this.#env.aliases);
    const permissionMode = definition.permissionMode === "inherit"
      ? this.#parent.mode
      : definition.permissionMode;
    return {
      name: definition.name,
      description: definition.description,
      systemPrompt: definition.systemPrompt,
      tools: definition.tools === null ? null : [...definition.tools],
      disallowedTools: [...definition.disallowedTools],
      model,
      permissionMode,
      maxTurns: definition.maxTurns,
      skills: [...definition.skills],
      isolation,
      source: definition.source,
    };
  }

  async launch(input: TaskRequest, ctx: ToolContext): Promise<ToolResult> {
    const env = this.#env;
    const id = input.subagent_session_id;
    if (input.resume_from !== undefined || input.resume !== undefined) {
      return fail(`Resuming subagents (resume_from) is not available in this version of Blade yet.`, id);
    }
    const type = input.subagent_type;
    const names = env.registry.names();
    if (type === undefined) {
      return fail(
        `subagent_type is required for a new agent. Available agent types: ${names.join(", ")}.`,
        id,
      );
    }
    const definition = env.registry.get(type);
    if (definition === undefined) {
      return fail(`Unknown agent type "${type}". Available agent types: ${names.join(", ") || "none"}.`, id);
    }
    const depth = this.#parent.depth + 1;
    if (depth > env.maxDepth) {
      return fail(
        `Cannot start a subagent at nesting depth ${depth}: the limit is ${env.maxDepth} (BLADE_MAX_SUBAGENT_DEPTH).`,
        id,
      );
    }
    const background = input.run_in_background === true || definition.background;
    const isolation = input.isolation ?? definition.isolation;
    if (isolation === "worktree") {
      return fail(`Worktree isolation is not available in this version of Blade yet.`, id);
    }
    const config = this.snapshotOf(definition, isolation);
    const now = env.ports.clock.now();
    const { pid, identity } = await ownIdentity(env.ports);
    const record: SidecarRecord = {
      schemaVersion: 2,
      id,
      subagentType: type,
      description: input.description,
      prompt: input.prompt,
      messages: [],
      status: "running",
      result: { success: false, message: "" },
      background,
      stats: { tokens: 0, toolCalls: 0, durationMs: 0 },
      createdAt: now,
      lastActiveAt: now,
      processId: pid,
      ...(identity === null ? {} : { processIdentity: identity }),
      parentSessionId: this.#parent.sessionId,
      parentProjectPath: this.#parent.projectPath,
      rootAgentId: id,
      resumeDepth: 0,
      configSnapshot: config,
      workspaceRoot: this.#parent.workspaceRoot,
      isolation,
    };
    try {
      await env.store.create(record);
    } catch (e) {
      return fail(describeError(e), id);
    }
    const spec: ChildSpec = {
      id,
      subagentType: type,
      description: input.description,
      prompt: input.prompt,
      config,
      parentSessionId: this.#parent.sessionId,
      parentProjectPath: this.#parent.projectPath,
      workspaceRoot: this.#parent.workspaceRoot,
      trusted: env.trusted,
      depth,
      lineage: lineageOf(record),
      ...(env.allowedTools === undefined || env.allowedTools.length === 0
        ? {}
        : { allowedTools: env.allowedTools }),
    };
    env.emit({
      type: "subagent_spawned",
      parentSessionId: this.#parent.sessionId,
      callId: ctx.callId,
      subagent: subagentInfo(record),
    });
    if (background) {
      const owner = this.owner;
      env.background.start({ agentId: id, callId: ctx.callId, owner }, async (signal) => {
        const outcome = await this.#run(spec, signal, () => void env.heartbeat.beat(id).catch(() => {}));
        env.heartbeat.forget(id);
        const done = await this.#finish(id, outcome, signal.aborted, record);
        await this.#deliver(done, owner);
        this.#completed(ctx.callId, done, outcome);
      });
      return {
        content: JSON.stringify({
          agent_id: id,
          status: "running",
          message:
            `Started ${type} in the background. You will receive a completion notice when it finishes; ` +
            `do not poll for it. Continue with other work, or end your turn to wait.`,
        }),
        isError: false,
        metadata: {
          agentId: id,
          lineage: lineageOf(record),
          status: "running",
          subagentType: type,
          background: true,
        },
      };
    }
    const outcome = await this.#run(spec, ctx.signal);
    const done = await this.#finish(id, outcome, ctx.signal.aborted, record);
    const { status, summary } = this.#completed(ctx.callId, done, outcome);
    return {
      content: canonicalResult(id, outcome),
      isError: !outcome.success,
      metadata: {
        agentId: id,
        lineage: lineageOf(done),
        status,
        summary,
        stats: outcome.stats,
        subagentType: type,
      },
      parts: [subtaskRef(ctx.callId, done, status)],
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
    try {
      await env.store.markCompleted(id, {
        status,
        result: {
          success: status === "completed",
          message: outcome.message,
          ...(outcome.error === undefined ? {} : { error: outcome.error }),
        },
        completedAt: env.ports.clock.now(),
      });
      return await env.store.update(id, (r) => {
        const { processId: _p, processIdentity: _i, ...rest } = r;
        return { ...rest, messages: outcome.messages, stats: outcome.stats };
      });
    } catch {
      return { ...fallback, status };
    }
  }

  /** Puts the completion notice into the owner's durable inbox and wakes the owner. */
  async #deliver(record: SidecarRecord, owner: SidecarOwner): Promise<void> {
    const env = this.#env;
    const notice = buildCompletionNotice({ child: record, owner });
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
    });
    return { status, summary };
  }

  async #run(spec: ChildSpec, signal: AbortSignal, onActivity?: () => void): Promise<ChildOutcome> {
    const env = this.#env;
    // A child that must wait for a slot says so in its sidecar (`queuedAt`), so listings show QUEUED.
    const queued = env.slots.free === 0;
    if (queued) {
      await env.store.update(spec.id, { queuedAt: env.ports.clock.now() } as SidecarPatch).catch(() => {});
    }
    const release = await env.slots.acquire(signal).catch(() => undefined);
    if (queued && release !== undefined) {
      await env.store.update(spec.id, (r) => {
        const { queuedAt: _q, ...rest } = r as SidecarRecord & { queuedAt?: number };
        return rest as SidecarRecord;
      }).catch(() => {});
    }
    if (release === undefined) {
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
    const emit = (event: RuntimeEvent) => {
      onActivity?.();
      env.emit({ type: "subagent_event", parentSessionId: this.#parent.sessionId, agentId: spec.id, event });
    };
    try {
      if (env.sandbox.kind === "worker") return await this.#runInWorker(spec, signal, emit);
      return await runChild(
        {
          ports: env.ports,
          provider: env.provider,
          layout: env.layout,
          maxTokens: env.maxTokens,
          platform: Deno.build.os,
          ...(env.redact === undefined ? {} : { redact: env.redact }),
          emit,
          toolsFor: (child) => this.#toolsForChild(child),
        },
        spec,
        signal,
      );
    } finally {
      release();
    }
  }

  /** Runs the child in a Deno Worker under its own permission set (SPEC §2). */
  #runInWorker(spec: ChildSpec, signal: AbortSignal, emit: RuntimeEventSink): Promise<ChildOutcome> {
    const env = this.#env;
    if (env.sandbox.kind !== "worker") throw new Error("unreachable");
    return env.sandbox.pool.run(this.#workerOptions(spec, emit, signal), signal);
  }

  #workerOptions(spec: ChildSpec, emit: RuntimeEventSink, signal: AbortSignal): WorkerChildOptions {
    const env = this.#env;
    if (env.sandbox.kind !== "worker") throw new Error("unreachable");
    const nested = this.#nestedFor(spec);
    const tools = childTools(spec, this.#toolsForChild(spec));
    const toolNames = tools.map((t) => t.name);
    const control = new TaskControl(env, nested.owner);
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
    return {
      // The specs travel with the child so its first model request need not wait for its tool modules.
      spec: { ...spec, toolSpecs: toolSpecs(tools) },
      toolNames,
      provider: env.sandbox.provider,
      storageRoot: env.layout.root,
      transcriptDir: env.layout.projectDir(spec.parentProjectPath),
      extraReadDirs: env.sandbox.extraReadDirs,
      maxTokens: env.maxTokens,
      platform: Deno.build.os,
      secrets: env.sandbox.secrets,
      delegation: spec.depth < env.maxDepth,
      ...(env.ports.env.home() === undefined ? {} : { home: env.ports.env.home()! }),
      onEvent: emit,
      onCall: (method, args) => {
        const input = args.input as TaskRequest;
        switch (method) {
          case "plan":
            return nested.plan(input);
          case "launch":
            return nested.launch(input, ctxFor(String(args.callId)));
          case "output":
            return control.output(
              args.input as { taskId: string; block: boolean; timeoutMs: number },
              ctxFor(""),
            );
          case "stop":
            return control.stop(String(args.taskId), ctxFor(""));
          default: {
            const never: never = method;
            return Promise.reject(new Error(`unknown call ${never}`));
          }
        }
      },
    };
  }

  #nestedFor(child: ChildSpec): SubagentRuntime {
    return new SubagentRuntime(this.#env, {
      sessionId: child.id,
      projectPath: this.#parent.projectPath,
      workspaceRoot: child.workspaceRoot,
      model: child.config.model,
      mode: child.config.permissionMode,
      depth: child.depth,
    });
  }

  #toolsForChild(child: ChildSpec): AnyTool[] {
    const nested = this.#nestedFor(child);
    const delegation = child.depth < this.#env.maxDepth ? nested.tools() : [];
    return mergeTools(nested.coreTools(), delegation);
  }
}

let own: Promise<{ pid: number; identity: ProcessIdentity | null }> | undefined;

/** This process's PID and identity, read once (the start time of a process never changes). */
function ownIdentity(ports: Ports): Promise<{ pid: number; identity: ProcessIdentity | null }> {
  const pid = ports.process.pid();
  return (own ??= ports.process.identity(pid).then((identity) => ({ pid, identity })));
}

function fail(message: string, id: string): ToolResult {
  return {
    content: `Subagent execution failed: ${message}\nagentId: ${id}`,
    isError: true,
    metadata: { agentId: id },
  };
}
