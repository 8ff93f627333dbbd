// Owns the launch decision of a Task call as a pure plan: validation (resume, agent type, nesting
// depth, isolation), the frozen config snapshot (model and permission mode inherit from the parent),
// lineage, and the initial sidecar record plus the ChildSpec the child runs with. No I/O and no
// clock: the caller passes `now` and the parent's process identity, then applies the plan
// (subagents.ts). Every refusal says what was refused and why. The capability ceiling it applies is
// launch_ceiling.ts.

import type { CommandSetup } from "../tools/tool.ts";
import type { SubtaskRefPart } from "../protocol/events.ts";
import { chooseChildModel } from "./child_model.ts";
import { resolveModel } from "../config/config.ts";
import type { PermissionMode } from "../protocol/permission_mode.ts";
import type { Effort } from "../protocol/effort.ts";
import type { RuleTexts } from "../permissions/run_rules.ts";
import { capMode, childRulesOf } from "../permissions/ceiling.ts";
import type { AgentDefinition } from "../registry/schema.ts";
import type { AgentHooks, ConfigSnapshot, Isolation, SidecarRecord } from "../store/schema.ts";
import type { ActiveWorktree } from "../tools/tool.ts";
import type { TaskRequest, WarmCall } from "../tools/task.ts";
import type { ChildSpec } from "../executor/child.ts";
import { auditOf, ceilingOf, resumedCeiling, resumedConfig } from "./launch_ceiling.ts";
import type { LoadResult } from "../store/codec.ts";
import { planResume, type RestoreIsolation } from "./resume_plan.ts";
import { type OwnProcess, resumedRecord, runningRecord } from "./launch_record.ts";
import { lineageOf } from "../store/record_ops.ts";
import { type ChildContext, childContextFor } from "../executor/child_context.ts";

export interface RegistryView {
  get(name: string): AgentDefinition | undefined;
  /** The definition, or a BladeError `agent_not_found` listing the available names. */
  require(name: string): AgentDefinition;
  names(): string[];
  /** The agent list shown to the model. */
  describeForModel(): string;
}

/** The session that calls Task. */
export interface ParentInfo {
  sessionId: string;
  /** Canonical project path: the owner key together with sessionId. */
  projectPath: string;
  /**
   * The project key its children's records carry when it is not this process's own (a remote child on
   * a worker: its job's, store/project_key.ts); absent = the process's.
   */
  projectKey?: string | undefined;
  workspaceRoot: string;
  model: string;
  mode: PermissionMode;
  depth: number;
  /** The MCP tool names this session has (a child's children get no others); absent = the run's. */
  mcpTools?: readonly string[];
  /** The worktree this session works in (its own or an isolated ancestor's): its children stay inside it. */
  worktree?: ActiveWorktree;
  /**
   * The delegating session's tool names: a child gets no tool outside them. Absent for a top-level
   * session: Blade's tools minus those the run's deny rules remove.
   */
  tools?: readonly string[];
  /**
   * The delegating session's effective rules (a child's: permissions/ceiling.ts childRulesOf); absent
   * for a top-level session, whose rules are the run's.
   */
  rules?: RuleTexts;
  /** The agent hooks the delegating session fires (a child's: its snapshot's); absent at the top. */
  agentHooks?: readonly AgentHooks[];
  /**
   * Model requests the delegating session may still make (`--max-turns`, or its own `maxTurns` as a
   * child): a child gets no more than that, whatever its definition says. Absent = no limit.
   */
  turnsLeft?: number | undefined;
}

/** The parent session plus the run-wide policy a launch is decided under. */
export interface LaunchParent extends ParentInfo {
  trusted: boolean;
  maxDepth: number;
  /** Alias table for agent `model` fields. */
  aliases: Record<string, string>;
  /** CLAUDE_CODE_SUBAGENT_MODEL: every child's model, whatever its definition says (a call's `model` wins). */
  subagentModel?: string;
  /** Settings `availableModels`: the models a child may be given (child_model.ts); absent = any. */
  availableModels?: readonly string[];
  process: OwnProcess;
  /** The environment of a read-only auditor's commands (permissions/child_env.ts); absent = empty. */
  auditEnv?: Record<string, string>;
  /** Environment and shell of every child's commands (no provider keys; bash resolved here). */
  commands?: CommandSetup;
  /** The run's `--add-dir` folders (canonical). */
  additionalDirs?: readonly string[];
  /** The run's memory and skills (what each agent gets of them: executor/child_context.ts). */
  context?: ChildContext;
  /** Children may be placed on workers (a shared store: docs/guides/remote.md). */
  remote?: boolean;
  /** `--remote-children`: background children of agents without an isolation of their own go remote. */
  remoteChildren?: boolean;
}

export type LaunchPlan =
  | {
    ok: true;
    record: SidecarRecord;
    spec: ChildSpec;
    /** What the isolation layer must restore before a resumed child runs (worktree lease). */
    restoreIsolation: RestoreIsolation;
  }
  | { ok: false; refusal: string };

/** What the caller looked up for a resume (`resume_from`): the source as stored, and whether the new id is taken. */
export interface ResumeLookup {
  source: LoadResult | null;
  newIdTaken: boolean;
}

/** The source id of a resume call (`resume` is an alias of `resume_from`), or undefined. */
export function resumeSourceOf(input: Pick<TaskRequest, "resume_from" | "resume">): string | undefined {
  return input.resume_from ?? input.resume;
}

const refuse = (refusal: string): LaunchPlan => ({ ok: false, refusal });

/**
 * Freezes the definition into the snapshot the child runs with (model/mode `inherit` → parent's);
 * `model` is the one child_model.ts chose.
 */
export function snapshotOf(
  definition: AgentDefinition,
  o: {
    parent: Pick<LaunchParent, "mode" | "rules" | "agentHooks" | "turnsLeft">;
    isolation: Isolation;
    /** The model child_model.ts chose. */
    model: string;
    /** The Agent call's `effort` (it wins over the definition's). */
    effort?: Effort | undefined;
  },
): ConfigSnapshot {
  const { parent, isolation, model } = o;
  const effort = o.effort ?? definition.effort;
  // The capability ceiling: never wider than the parent's effective mode.
  const permissionMode = capMode(definition.permissionMode, parent.mode).mode;
  return {
    name: definition.name,
    description: definition.description,
    systemPrompt: definition.systemPrompt,
    tools: definition.tools === null ? null : [...definition.tools],
    disallowedTools: [...definition.disallowedTools],
    model,
    ...(effort === undefined ? {} : { effort }),
    permissionMode,
    maxTurns: cappedTurns(definition.maxTurns, parent.turnsLeft),
    skills: [...definition.skills],
    ...(definition.mcpServers === undefined ? {} : { mcpServers: structuredClone(definition.mcpServers) }),
    isolation,
    source: definition.source,
    // The capability ceiling of rules: the parent's, narrowed by this definition, frozen for resume.
    rules: childRulesOf(parent.rules, definition),
    ...agentHooksOf(definition, parent.agentHooks),
  };
}

/** The hooks a child of `definition` fires besides the run's: its parent's agent hooks, then its own. */
function agentHooksOf(
  definition: AgentDefinition,
  above: readonly AgentHooks[] | undefined,
): { hooks?: AgentHooks[] } {
  const own = definition.hooks === undefined || Object.keys(definition.hooks).length === 0
    ? []
    : [{ agent: definition.name, where: definition.path, hooks: structuredClone(definition.hooks) }];
  const all = [...structuredClone(above ?? []), ...own];
  return all.length === 0 ? {} : { hooks: all };
}

/** The model a fresh child of `definition` runs on, or why the call may not have it. */
function modelFor(
  input: TaskRequest,
  definition: AgentDefinition,
  parent: LaunchParent,
): { model: string } | { refusal: string } {
  return chooseChildModel({
    ...(input.model === undefined ? {} : { requested: input.model }),
    definition: definition.model,
    parentModel: parent.model,
    aliases: parent.aliases,
    ...(parent.subagentModel === undefined ? {} : { subagentModel: parent.subagentModel }),
    ...(parent.availableModels === undefined ? {} : { availableModels: parent.availableModels }),
  });
}

/** An agent's `maxTurns` within what its parent has left: never above it (null = no limit). */
export function cappedTurns(own: number | null, left: number | undefined): number | null {
  if (left === undefined) return own;
  return own === null ? left : Math.min(own, left);
}

/** Why no child may start: its parent has no model requests left (a child could make none). */
function turnsRefusal(parent: Pick<ParentInfo, "turnsLeft">): string | undefined {
  return parent.turnsLeft !== undefined && parent.turnsLeft < 1
    ? "Cannot start a subagent: this session has used all its turns (--max-turns, or its agent's maxTurns), " +
      "and a subagent may make no more model requests than its parent has left."
    : undefined;
}

/** Validates the call against the registry and the parent's limits; the definition when allowed. */
function admit(
  input: TaskRequest,
  registry: RegistryView,
  parent: LaunchParent,
): { type: string; definition: AgentDefinition; isolation: Isolation } | { refusal: string } {
  const type = input.subagent_type;
  const names = registry.names();
  if (type === undefined) {
    return {
      refusal: `subagent_type is required for a new agent. Available agent types: ${names.join(", ")}.`,
    };
  }
  const definition = registry.get(type);
  if (definition === undefined) {
    return { refusal: `Unknown agent type "${type}". Available agent types: ${names.join(", ") || "none"}.` };
  }
  const deep = depthRefusal(parent) ?? turnsRefusal(parent);
  if (deep !== undefined) return { refusal: deep };
  const isolation = isolationOf(input, definition, parent);
  if (isolation === "remote") {
    const refused = remoteRefusal(type, parent);
    if (refused !== undefined) return { refusal: refused };
  }
  if (isolation === "worktree" && !parent.trusted) {
    return {
      refusal:
        `Cannot isolate ${type} in a git worktree: the workspace ${parent.workspaceRoot} is not trusted, ` +
        `and making a worktree writes to its repository. Run \`blade trust\` there (or pass --trust-workspace), ` +
        `or start the agent with isolation: none.`,
    };
  }
  return { type, definition, isolation };
}

/**
 * The call's isolation, else its agent's; with `--remote-children` a background child of an agent
 * without an isolation of its own is placed remotely.
 */
function isolationOf(input: TaskRequest, definition: AgentDefinition, parent: LaunchParent): Isolation {
  if (input.isolation !== undefined) return input.isolation;
  const background = input.run_in_background === true || definition.background;
  if (parent.remoteChildren === true && background && definition.isolation === "none") return "remote";
  return definition.isolation;
}

/** Why a child of `type` cannot be placed remotely here, or undefined when it can. */
function remoteRefusal(type: string, parent: LaunchParent): string | undefined {
  if (parent.remote !== true) {
    return `Cannot run ${type} remotely: this run has no shared store. Start Blade with --store nats://… ` +
      `and run \`blade worker\` on the machines that take the jobs (docs/guides/remote.md), or start the ` +
      `agent with isolation: none.`;
  }
  if (!parent.trusted) {
    return `Cannot run ${type} remotely: the workspace ${parent.workspaceRoot} is not trusted, and taking ` +
      `the snapshot of its tree writes to its repository. Run \`blade trust\` there (or pass ` +
      `--trust-workspace), or start the agent with isolation: none.`;
  }
  return undefined;
}

function depthRefusal(parent: LaunchParent): string | undefined {
  const depth = parent.depth + 1;
  return depth > parent.maxDepth
    ? `Cannot start a subagent at nesting depth ${depth}: the limit is ${parent.maxDepth} (BLADE_MAX_SUBAGENT_DEPTH).`
    : undefined;
}

/** What a launch is decided against: the agents, the parent, the time, and a resumed source. */
export interface LaunchContext {
  registry: RegistryView;
  parent: LaunchParent;
  /** The caller's clock reading (the plan itself is pure). */
  now: number;
  /** The looked-up source of a `resume_from` call. */
  resume?: ResumeLookup | undefined;
}

/**
 * The sidecar record and the child's spec for a launch, or why the call is refused. A call with
 * `resume_from` needs `resume` (the looked-up source): it is decided by planResume and runs with the
 * source's frozen snapshot, messages, workspace, isolation and lineage.
 */
export function planLaunch(input: TaskRequest, context: LaunchContext): LaunchPlan {
  const { registry, parent, now, resume } = context;
  const from = resumeSourceOf(input);
  if (from !== undefined) return planResumedLaunch(input, { from, parent, now, lookup: resume });
  const admitted = admit(input, registry, parent);
  if ("refusal" in admitted) return refuse(admitted.refusal);
  const { type, definition, isolation } = admitted;
  const id = input.subagent_session_id;
  const chosen = modelFor(input, definition, parent);
  if ("refusal" in chosen) return refuse(chosen.refusal);
  const config = snapshotOf(definition, { parent, isolation, model: chosen.model, effort: input.effort });
  const record = runningRecord({
    id,
    subagentType: type,
    description: input.description,
    prompt: input.prompt,
    messages: [],
    // A remote child always runs in the background: its parent hears of it by its notice.
    background: isolation === "remote" || input.run_in_background === true || definition.background,
    lineage: { rootAgentId: id, resumeDepth: 0 },
    configSnapshot: config,
    workspaceRoot: parent.workspaceRoot,
    isolation,
  }, { parent, now });

  return {
    ok: true,
    record,
    spec: { ...specOf(record, parent), ...ceilingOf(definition, parent) },
    restoreIsolation: { kind: "none" },
  };
}

function planResumedLaunch(
  input: TaskRequest,
  o: { from: string; parent: LaunchParent; now: number; lookup: ResumeLookup | undefined },
): LaunchPlan {
  const { from, parent, now, lookup } = o;
  if (lookup === undefined) return refuse(`Cannot resume "${from}": the source run could not be looked up.`);
  const decision = planResume({
    sourceId: from,
    newId: input.subagent_session_id,
    ...(input.subagent_type === undefined ? {} : { explicitType: input.subagent_type }),
    visibleTo: {
      parentSessionId: parent.sessionId,
      projectPath: parent.projectPath,
      projectKey: parent.process.projectKey,
    },
  }, { source: lookup.source, newIdTaken: lookup.newIdTaken });
  if (!decision.ok) return refuse(decision.message);
  const frozen = decision.plan.config.model;
  const asked = input.model === undefined ? undefined : resolveModel(input.model, parent.aliases);
  if (asked !== undefined && input.model !== "inherit" && asked !== frozen) {
    return refuse(
      `Cannot resume "${from}" on ${asked}: a resumed run keeps the model it started with (${frozen}). ` +
        `Leave out model, or start a fresh agent on the other model.`,
    );
  }
  const deep = depthRefusal(parent) ?? turnsRefusal(parent);
  if (deep !== undefined) return refuse(deep);
  const plan = decision.plan;
  if (plan.isolation === "remote") {
    const refused = remoteRefusal(plan.subagentType, parent);
    if (refused !== undefined) return refuse(refused.replace("Cannot run", `Cannot resume "${from}" as`));
  }
  if (plan.isolation === "worktree" && !parent.trusted) {
    return refuse(
      `Cannot resume "${from}" in its git worktree: the workspace ${parent.workspaceRoot} is not trusted. ` +
        `Run \`blade trust\` there (or pass --trust-workspace).`,
    );
  }
  // The worktree lease is checked against git and taken over by the isolation layer (run/isolation.ts).
  const record = resumedRecord(input, {
    plan: {
      ...plan,
      config: {
        ...resumedConfig(plan.config, parent),
        maxTurns: cappedTurns(plan.config.maxTurns, parent.turnsLeft),
      },
    },
    parent,
    now,
  });
  return {
    ok: true,
    record,
    spec: { ...resumedCeiling(specOf(record, parent), parent), initialMessages: plan.messages },
    restoreIsolation: plan.restoreIsolation,
  };
}

/** What the child runs with, derived from its record and the parent's run-wide policy. */
function specOf(record: SidecarRecord, parent: LaunchParent): ChildSpec {
  const rules = record.configSnapshot.rules ?? parent.rules;
  return {
    id: record.id,
    subagentType: record.subagentType,
    description: record.description,
    prompt: record.prompt,
    config: record.configSnapshot,
    parentSessionId: parent.sessionId,
    parentProjectPath: parent.projectPath,
    workspaceRoot: record.workspaceRoot,
    trusted: parent.trusted,
    depth: parent.depth + 1,
    lineage: lineageOf(record),
    ...(rules === undefined ? {} : { rules }),
    ...(parent.worktree === undefined ? {} : { worktree: parent.worktree }),
    ...(parent.commands === undefined ? {} : { commands: parent.commands }),
    ...(parent.additionalDirs === undefined ? {} : { additionalDirs: [...parent.additionalDirs] }),
    ...auditOf(record.configSnapshot.name, parent.auditEnv),
    ...contextOf(record.configSnapshot.name, parent.context),
  };
}

function contextOf(agent: string, context: ChildContext | undefined): { context?: ChildContext } {
  const mine = childContextFor(agent, context);
  return mine === undefined ? {} : { context: mine };
}

/**
 * A stand-in spec with the permission set the call's child would get, to start its Worker early; none
 * when that set is not known yet: an isolated child's grant names its worktree, made only at launch
 * (a Worker started with the guessed set would be a second one, ~10-15 ms of the main thread and
 * ~13 MiB for nothing).
 */
export function warmSpec(
  call: WarmCall,
  registry: RegistryView,
  parent: Omit<LaunchParent, "process">,
): ChildSpec | undefined {
  const type = call.subagentType;
  const definition = registry.get(type);
  if (definition === undefined || parent.depth + 1 > parent.maxDepth) return undefined;
  const isolation = call.isolation ?? definition.isolation;
  // A worktree's grant names the worktree (made at launch); a remote child runs elsewhere.
  if (isolation === "worktree" || isolation === "remote") return undefined;
  return {
    id: "warm",
    subagentType: type,
    description: "",
    prompt: "",
    // The model is not part of the permission set: the parent's stands in.
    config: snapshotOf(definition, { parent, isolation, model: parent.model }),
    parentSessionId: parent.sessionId,
    parentProjectPath: parent.projectPath,
    workspaceRoot: parent.workspaceRoot,
    trusted: parent.trusted,
    depth: parent.depth + 1,
    lineage: { rootAgentId: "warm", resumeDepth: 0 },
    ...(parent.worktree === undefined ? {} : { worktree: parent.worktree }),
    ...(parent.additionalDirs === undefined ? {} : { additionalDirs: [...parent.additionalDirs] }),
    ...auditOf(definition.name, parent.auditEnv),
    rules: childRulesOf(parent.rules, definition),
    ...ceilingOf(definition, parent),
  };
}

/**
 * The running `subtask_ref` persisted with the call before it runs (undefined for an unknown type). A
 * resume call's ref carries the source's type and the new lineage (`source` = the resumed record).
 */
export function runningRef(
  input: TaskRequest,
  registry: RegistryView,
  source?: SidecarRecord,
): SubtaskRefPart | undefined {
  const ref = (type: string, lineage: SubtaskRefPart["lineage"]): SubtaskRefPart => ({
    type: "subtask_ref",
    callId: "",
    agentId: input.subagent_session_id,
    subagentType: type,
    description: input.description,
    // A remote child always runs in the background.
    background: input.run_in_background === true || input.isolation === "remote",
    state: "running",
    lineage,
  });
  if (resumeSourceOf(input) !== undefined) {
    if (source === undefined || (input.subagent_type ?? source.subagentType) !== source.subagentType) {
      return undefined;
    }
    return ref(source.subagentType, {
      rootAgentId: source.rootAgentId,
      resumedFrom: source.id,
      resumeDepth: source.resumeDepth + 1,
    });
  }
  const type = input.subagent_type;
  if (type === undefined || registry.get(type) === undefined) return undefined;
  return ref(type, { rootAgentId: input.subagent_session_id, resumeDepth: 0 });
}
