// Owns the environment every session of one run launches children in (built by runtime.ts): the
// ports, storage, registry snapshot, limits, shared background runs, shells and the child runner,
// TaskOutput/TaskStop's narrow view of it, and what a launch needs to know of its parent session in
// it (launchParentOf). Types and projections only; no behaviour.

import type { CommandSetup } from "../tools/tool.ts";
import type { Approver } from "../protocol/approval.ts";
import type { Ports } from "../sys/mod.ts";
import type { RuntimeEventSink } from "../protocol/events.ts";
import type { StorageLayout } from "../config/storage.ts";
import type { RuleTexts } from "../permissions/run_rules.ts";
import type { SidecarStore } from "../store/store.ts";
import type { Heartbeat } from "../store/heartbeat.ts";
import type { AnyTool } from "../tools/tool.ts";
import type { ChildRunner } from "../child/child_runner.ts";
import type { ChildMcp } from "./child_mcp.ts";
import type { Semaphore } from "./semaphore.ts";
import type { BackgroundRuns } from "./background.ts";
import type { ShellTasks } from "./shells.ts";
import type { TaskControlDeps } from "./task_control.ts";
import type { LaunchParent, ParentInfo, RegistryView } from "../launch/launch_plan.ts";
import { minimalCommandEnv } from "../permissions/child_env.ts";
import type { OwnProcess } from "../launch/launch_record.ts";
import type { WebAccess } from "../protocol/web.ts";
import type { RunHooks } from "../hooks/run_hooks.ts";
import type { RemotePlacement } from "./remote_child.ts";

/** Shared by every session of one root run. */
import type { ChildContext } from "../executor/child_context.ts";
export interface SubagentEnv {
  ports: Ports;
  layout: StorageLayout;
  store: SidecarStore;
  registry: RegistryView;
  /** Alias table for agent `model` fields. */
  aliases: Record<string, string>;
  /** CLAUDE_CODE_SUBAGENT_MODEL (see LaunchParent.subagentModel). */
  subagentModel?: string;
  /** Settings `availableModels` (see LaunchParent.availableModels). */
  availableModels?: readonly string[];
  trusted: boolean;
  /** The run's `--add-dir` folders: every child's grant extends to them (not an isolated child's writes). */
  additionalDirs?: readonly string[];
  /** The run's memory and skills, as subagents get them (executor/child_context.ts). */
  childContext?: ChildContext;
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
  /** Environment and shell of children's commands, prepared once by the main thread. */
  commands?: CommandSetup;
  /** The run's rules (--allowed-tools, --disallowed-tools, settings); they apply to every child too. */
  rules?: RuleTexts;
  /** Where children run: a Worker under their own permission set (the default), or this thread. */
  runner: ChildRunner;
  /** The interactive session's approvals; foreground children ask through it. Unset: they refuse. */
  approve?: Approver;
  /** The run's MCP servers as children see them (absent when none is configured). */
  mcp?: ChildMcp;
  /** The run's web access (WebFetch, WebSearch), run in this thread for every child. */
  web?: WebAccess | undefined;
  /** The run's hooks for its children (settings, SDK, agent files); absent: none configured. */
  hooks?: RunHooks;
  /** The PID and identity of this process, recorded in each sidecar (read once per runtime). */
  ownProcess: () => Promise<OwnProcess>;
  /** Where remote children go (a shared store); absent: `isolation: remote` is refused. */
  remote?: RemotePlacement;
  /** `--remote-children`: background children go remote unless their agent says otherwise. */
  remoteChildren?: boolean;
}

/** TaskOutput / TaskStop's view of the runtime. */
export function taskControlDeps(env: SubagentEnv): TaskControlDeps {
  return {
    store: env.store,
    background: env.background,
    shells: env.shells,
    clock: env.ports.clock,
  };
}

/** The launch plan's view of a parent session in `env` (its owning process is added per launch). */
export function launchParentOf(env: SubagentEnv, parent: ParentInfo): Omit<LaunchParent, "process"> {
  // A child's own effective rules bound its children; a top-level session's are the run's.
  const rules = parent.rules ?? env.rules;
  return {
    ...parent,
    trusted: env.trusted,
    maxDepth: env.maxDepth,
    aliases: env.aliases,
    ...(env.subagentModel === undefined ? {} : { subagentModel: env.subagentModel }),
    ...(env.availableModels === undefined ? {} : { availableModels: env.availableModels }),
    ...(rules === undefined ? {} : { rules }),
    auditEnv: minimalCommandEnv(env.ports.env),
    ...(env.commands === undefined ? {} : { commands: env.commands }),
    ...(env.additionalDirs === undefined ? {} : { additionalDirs: env.additionalDirs }),
    ...(env.childContext === undefined ? {} : { context: env.childContext }),
    remote: env.remote !== undefined,
    remoteChildren: env.remoteChildren === true,
  };
}
