// Owns a child's view of the runtime for one run (the ChildHost its runner gets): the tools it may
// have (core tools, delegation below the depth limit, the run's MCP tools), the answers to the
// delegation calls it makes from a Worker (Task, TaskOutput, TaskStop, approvals, MCP calls, hook
// points), its hooks, and its tool context. Identity comes from the spec the main thread computed,
// never from the Worker.

import type { Approver } from "../protocol/approval.ts";
import type { Process, ProcessIdentity } from "../sys/process.ts";
import type { RuntimeEventSink, SubtaskRefPart } from "../protocol/events.ts";
import type { SidecarOwner, SidecarStore } from "../store/store.ts";
import type { RecordedGroup } from "../store/schema.ts";
import type { AnyTool, ToolContext, ToolResult } from "../tools/tool.ts";
import type { TaskRequest } from "../tools/task.ts";
import { mergeTools } from "../tools/registry.ts";
import { type ChildSpec, childToolNames, childTools } from "../executor/child.ts";
import { BLADE_TOOL_NAMES } from "../protocol/tool_rule.ts";
import { childRulesOf } from "../permissions/ceiling.ts";
import { rulesOf } from "../permissions/run_rules.ts";
import { pathRulesOf } from "../permissions/write_scope.ts";
import type { SessionHookSet } from "../hooks/session_hooks.ts";
import type { ParentInfo } from "../launch/launch_plan.ts";
import type { DelegationCall } from "../child/child_protocol.ts";
import { mcpTool, type McpToolShape } from "../mcp/tool_adapter.ts";
import type { ChildHost } from "../child/child_runner.ts";
import type { SubagentEnv } from "./subagent_env.ts";
import type { TaskControl } from "./task_control.ts";

/** The child's own session as a launcher of grandchildren (a SubagentRuntime). */
export interface NestedSession {
  readonly owner: SidecarOwner;
  coreTools(): AnyTool[];
  tools(): AnyTool[];
  plan(input: TaskRequest): Promise<SubtaskRefPart | undefined>;
  launch(input: TaskRequest, ctx: ToolContext): Promise<ToolResult>;
  /** TaskOutput/TaskStop of its runs (a blocking wait lends its concurrency slot back). */
  control(): TaskControl;
}

export interface ChildHostInput {
  env: SubagentEnv;
  spec: ChildSpec;
  emit: RuntimeEventSink;
  signal: AbortSignal;
  nested: NestedSession;
  /** Set when the child may ask the person (a foreground chain up to an interactive session). */
  ask?: Approver;
}

/** The MCP tools `child` may have (before its own tools/disallowedTools), calling the main thread's hubs. */
export function mcpToolsFor(
  env: SubagentEnv,
  child: ChildSpec,
): { tools: AnyTool[]; shapes: McpToolShape[] } {
  const mcp = env.mcp;
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

/** The child as the parent of its own delegations: its identity, and the ceiling one level down. */
export function nestedParent(
  env: SubagentEnv,
  owner: Pick<ParentInfo, "projectPath" | "projectKey">,
  child: ChildSpec,
): ParentInfo {
  return {
    sessionId: child.id,
    projectPath: owner.projectPath,
    projectKey: owner.projectKey,
    workspaceRoot: child.workspaceRoot,
    model: child.config.model,
    mode: child.config.permissionMode,
    depth: child.depth,
    // Its own children get at most the MCP tools it has (the capability ceiling).
    mcpTools: childTools(child, mcpToolsFor(env, child).tools).map((t) => t.name),
    ...(child.worktree === undefined ? {} : { worktree: child.worktree }),
    // The capability ceiling one level down: a grandchild gets no tool its parent lacks, and no rule
    // wider than its parent's (the deny rules and tool limits of every agent above it).
    tools: childToolNames(child, [...(child.toolCeiling ?? BLADE_TOOL_NAMES)]),
    rules: childRulesOf(child.rules, child.config),
    // Its children fire its agent hooks too: a child never has fewer hooks than its parent.
    ...(child.config.hooks === undefined ? {} : { agentHooks: child.config.hooks }),
  };
}

export function childHost(o: ChildHostInput): ChildHost {
  const { env, spec, emit, signal, nested, ask } = o;
  // The child's own identity, not what its Worker claims.
  const approve: Approver | undefined = ask === undefined
    ? undefined
    : (request, s) => ask({ ...request, sessionId: spec.id, agentType: spec.subagentType }, s);
  const delegation = spec.depth < env.maxDepth;
  // What a Worker child says it has left counts only below its own cap (it cannot claim more).
  const cap = spec.config.maxTurns ?? undefined;
  const ctxFor = (callId: string, claimed?: number): ToolContext => ({
    ...childContext(env, spec, { callId, signal, emit }),
    ...turnsOf(claimed, cap),
  });
  const mcp = mcpToolsFor(env, spec);
  const groups = childGroups(env.ports.process, signal, (group) => recordGroup(env.store, spec.id, group));
  const tools = () => mergeTools(nested.coreTools(), delegation ? nested.tools() : [], mcp.tools);
  const hooks = childHooks(env, { spec, signal, ctxFor });
  return {
    emit,
    delegation,
    tools,
    mcp: mcp.shapes,
    hooks,
    answer: (call) => {
      if (call.method === "spawned") return groups.started(call.pgid);
      if (call.method === "kill") return groups.kill(call.pgid);
      if (call.method === "hook") {
        if (hooks === undefined) return Promise.reject(new Error("this child has no hooks"));
        const c = call.call;
        return hooks.answer(c, hookContext(spec, ctxFor(c.point === "onTurnEnd" ? "" : c.call.id)));
      }
      if (call.method !== "mcp" && call.method !== "web") {
        return answer(nested, call, ctxFor, approve, signal);
      }
      // The child's final tool list decides, not what the Worker asks for.
      const granted = childTools(spec, tools()).map((t) => t.name);
      if (call.method === "web") return webCall(env, { granted, call, signal });
      return env.mcp === undefined
        ? Promise.reject(new Error("no MCP servers in this run"))
        : env.mcp.call(spec.id, granted, call.name, call.input, signal);
    },
    ...(approve === undefined ? {} : { approve }),
    web: env.web,
  };
}

/** The child's own tool context for a call it makes (its identity, workspace and mode from its spec). */
function childContext(
  env: SubagentEnv,
  spec: ChildSpec,
  o: { callId: string; signal: AbortSignal; emit: RuntimeEventSink },
): ToolContext {
  return {
    ports: env.ports,
    sessionId: spec.id,
    workspaceRoot: spec.workspaceRoot,
    storageRoot: env.layout.root,
    trusted: spec.trusted,
    mode: spec.config.permissionMode,
    callId: o.callId,
    signal: o.signal,
    emit: o.emit,
  };
}

/**
 * SubagentStart before the child runs (hooks/run_hooks.ts), its commands in the child's sandbox: the
 * spec with what its hooks added for the child's first turn.
 */
export async function subagentStarted(
  env: SubagentEnv,
  spec: ChildSpec,
  signal: AbortSignal,
): Promise<ChildSpec> {
  if (env.hooks === undefined) return spec;
  const context = await env.hooks.subagentStart({
    spec,
    transcriptPath: env.layout.transcriptPath(spec.parentProjectPath, spec.id),
    ctx: (callId) => hookContext(spec, childContext(env, spec, { callId, signal, emit: () => {} })),
    signal,
  });
  return context.length === 0 ? spec : { ...spec, hookContext: [...spec.hookContext ?? [], ...context] };
}

/** The child's hooks (the run's and its agents': hooks/run_hooks.ts), run in this thread; none when none apply. */
function childHooks(
  env: SubagentEnv,
  o: { spec: ChildSpec; signal: AbortSignal; ctxFor: (callId: string) => ToolContext },
): SessionHookSet | undefined {
  const { spec, signal, ctxFor } = o;
  return env.hooks?.forChild({
    spec,
    transcriptPath: env.layout.transcriptPath(spec.parentProjectPath, spec.id),
    ctx: (callId) => hookContext(spec, ctxFor(callId)),
    signal,
  });
}

/**
 * The context a Worker child's hook commands run in, as its own commands would (tool_runner.ts): its
 * workspace, worktree, folders, environment and shell, the network only where its commands have it,
 * read-only for an auditor. Never wider than the child.
 */
export function hookContext(spec: ChildSpec, base: ToolContext): ToolContext {
  const rules = rulesOf(childRulesOf(spec.rules, spec.config));
  return {
    ...base,
    ...(spec.additionalDirs === undefined ? {} : { additionalDirs: spec.additionalDirs }),
    ...(spec.worktree === undefined ? {} : { worktree: spec.worktree }),
    ...(spec.commands?.env === undefined ? {} : { commandEnv: spec.commands.env }),
    ...(spec.commands?.shell === undefined ? {} : { shell: spec.commands.shell }),
    commandNetwork: spec.config.permissionMode === "yolo" ||
      rules.allow.some((r) => r.tool === "Bash" && r.specifier === undefined),
    readOnlyCommands: spec.audit !== undefined,
    pathRules: pathRulesOf(childRulesOf(spec.rules, spec.config)),
  };
}

/**
 * A Worker child's WebFetch or WebSearch, run by the main thread's WebAccess: only when the child's
 * own tools hold that tool (its permission gate already passed the call in the Worker). The Worker
 * itself has no network grant (docs/reference/permissions.md).
 */
function webCall(
  env: SubagentEnv,
  o: { granted: readonly string[]; call: Extract<DelegationCall, { method: "web" }>; signal: AbortSignal },
): Promise<unknown> {
  const { granted, call, signal } = o;
  const tool = call.kind === "fetch" ? "WebFetch" : "WebSearch";
  if (!granted.includes(tool)) return Promise.reject(new Error(`${tool} is not one of this child's tools`));
  if (env.web === undefined) return Promise.reject(new Error(`${tool} is not available in this run`));
  return call.kind === "fetch" ? env.web.fetch(call.input, signal) : env.web.search(call.input, signal);
}

/** The turns a Worker child has left as its ToolContext says them: its claim, never above its cap. */
function turnsOf(claimed: number | undefined, cap: number | undefined): { turnsLeft?: number } {
  const left = claimed === undefined ? cap : Math.min(claimed, cap ?? claimed);
  return left === undefined ? {} : { turnsLeft: left };
}

/** Answers a delegation call the child makes from its Worker, as its own session would. */
function answer(
  nested: NestedSession,
  call: DelegationCall,
  ctxFor: (callId: string, claimed?: number) => ToolContext,
  approve: Approver | undefined,
  signal: AbortSignal,
): Promise<unknown> {
  const control = nested.control();
  switch (call.method) {
    case "plan":
      return nested.plan(call.input);
    case "launch":
      return nested.launch(call.input, ctxFor(call.callId, call.turnsLeft));
    case "output":
      return control.output(call.input, ctxFor(""));
    case "stop":
      return control.stop(call.taskId, ctxFor(""));
    case "approve":
      return approve === undefined ? Promise.resolve("deny") : approve(call.request, signal);
    case "mcp":
    case "web":
    case "spawned":
    case "kill":
    case "hook":
      return Promise.reject(new Error(`${call.method} calls are answered by the child's host`));
  }
}

/** Adds `group` to the child's sidecar (durably, before its command runs: recovery kills it from there). */
export async function recordGroup(store: SidecarStore, id: string, group: RecordedGroup): Promise<void> {
  await store.update(id, (r) => ({ ...r, processGroups: [...(r.processGroups ?? []), group] }));
}

/**
 * The process groups a Worker child's Bash started, killed here because Deno refuses `kill(-pgid)`
 * inside a Worker. A group counts only when the child reported it and it is a direct child of this
 * process leading its own group; a kill of any other pgid is refused, so a hostile child cannot
 * signal processes it did not start. Each group of ours is recorded with its leader's identity
 * (`record`) before `started` resolves, and the child's command waits for that. When the run ends by
 * cancel or shutdown (the Worker may be gone and unable to ask), every group it reported is killed.
 */
export function childGroups(
  process: Process,
  signal: AbortSignal,
  record: (group: RecordedGroup) => Promise<void>,
) {
  const reported = new Map<number, Promise<ProcessIdentity | null>>();
  const killAll = () => {
    for (const [pgid, ours] of reported) {
      void ours.then((leader) => {
        if (leader !== null) {
          try {
            process.killGroup(pgid);
          } catch { /* reported where the run's end is reported; nothing here can retry */ }
        }
      });
    }
  };
  signal.addEventListener("abort", killAll, { once: true });
  return {
    async started(pgid: number): Promise<boolean> {
      // One /proc read: whether it is a group of ours, and its leader's identity to record.
      const ours = process.ownGroupLeader(pgid);
      reported.set(pgid, ours);
      const identity = await ours;
      if (identity === null) {
        throw new Error(
          `process group ${pgid} is not a process this child started (or its identity cannot be read)`,
        );
      }
      await record({ pgid, identity });
      return true;
    },
    async kill(pgid: number): Promise<boolean> {
      const ours = reported.get(pgid);
      if (ours === undefined || (await ours) === null) {
        throw new Error(`refused to kill process group ${pgid}: this child did not start it`);
      }
      process.killGroup(pgid);
      return true;
    },
  };
}
