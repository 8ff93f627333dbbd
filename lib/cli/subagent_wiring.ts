// Owns assembling the subagent runtime of a top-level session: the workspace's registry snapshot,
// the sidecar store, the shared concurrency slots, and the Task tool bound to this session.

import type { Approver } from "../protocol/approval.ts";
import type { App } from "../app.ts";
import type { RuntimeEventSink } from "../protocol/events.ts";
import { coreTools } from "../tools/registry.ts";
import { loadRegistry } from "../registry/mod.ts";
import type { RegistrySnapshot } from "../registry/snapshot.ts";
import { FileSidecarStore } from "../store/file_store.ts";
import { type SubagentEnv, SubagentRuntime } from "../manager/subagents.ts";
import type { ParentInfo } from "../manager/launch_plan.ts";
import { type ChildRunner, InThreadRunner, WorkerRunner } from "../manager/child_runner.ts";
import { BladeError } from "../errors.ts";
import type { ProviderConfig } from "../provider/factory.ts";
import { Semaphore } from "../manager/semaphore.ts";
import { BackgroundRuns } from "../manager/background.ts";
import { ShellTasks } from "../manager/shells.ts";
import { Heartbeat } from "../store/heartbeat.ts";
import type { SessionExtras } from "../executor/main_runner.ts";
import type { RuleTexts } from "../permissions/run_rules.ts";
import { recoverSession } from "../manager/restart.ts";
import type { McpHub } from "../mcp/hub.ts";
import { ChildMcp } from "../manager/child_mcp.ts";
import { parseRuleList, wholeToolsDenied } from "../protocol/tool_rule.ts";
import { toolNameMatches } from "../protocol/mcp_names.ts";

export async function registryFor(app: App): Promise<RegistrySnapshot> {
  const { snapshot } = await loadRegistry({
    fs: app.ports.fs,
    home: app.ports.env.home(),
    workspace: app.workspace,
    trusted: app.trust.trusted,
    bladeHome: app.layout.root,
    ...(app.flags.agentsJson === undefined ? {} : { agentsJson: app.flags.agentsJson }),
  });
  return snapshot;
}

/** A child whose model stream makes no progress for this long fails with a stall error (SPEC §5). */
function withStallTimeout(config: ProviderConfig, stallMs: number): ProviderConfig {
  return config.kind === "scripted" ? config : { ...config, streamIdleTimeoutMs: stallMs };
}

/** Children run in Workers under their own Deno permissions unless BLADE_CHILD_SANDBOX=none. */
async function childRunner(app: App): Promise<ChildRunner> {
  const choice = app.ports.env.get("BLADE_CHILD_SANDBOX") ?? "worker";
  if (choice === "none") {
    return new InThreadRunner({
      ports: app.ports,
      provider: await app.provider(),
      layout: app.layout,
      maxTokens: app.config.maxTokens,
      redact: app.redact,
    });
  }
  if (choice !== "worker") {
    throw new BladeError(
      "config_invalid",
      `BLADE_CHILD_SANDBOX must be "worker" or "none", got "${choice}".`,
      {
        hint: "Unset it to run each child in a Worker under its own Deno permissions.",
      },
    );
  }
  const home = app.ports.env.home();
  return new WorkerRunner({
    layout: app.layout,
    provider: withStallTimeout(await app.providerConfig(), app.config.subagentStallTimeoutMs),
    maxTokens: app.config.maxTokens,
    platform: app.ports.env.platform(),
    secrets: app.secrets(),
    extraReadDirs: home === undefined ? [] : [`${home}/.claude/agents`],
    ...(home === undefined ? {} : { home }),
  });
}

export interface SubagentOptions {
  /** The run's rules; they apply to every child too (whole-tool deny rules also hide MCP tools). */
  rules?: RuleTexts;
  /** The interactive session's approvals (foreground children ask through them). */
  approve?: Approver;
  /** The run's MCP servers: children see their tools (filtered and capped), calls go through here. */
  mcp?: McpHub;
}

/** How children reach MCP servers: the run's hub, plus agents' inline servers started on first use. */
function childMcp(app: App, options: SubagentOptions): ChildMcp {
  const denied = [...wholeToolsDenied(parseRuleList(options.rules?.deny ?? []).rules)];
  return new ChildMcp({
    hub: options.mcp,
    visible: (name) => !denied.some((d) => toolNameMatches(d, name)),
    openInline: async (agent, servers) => {
      const { openInlineServers } = await import("../mcp/setup.ts");
      const { timeoutsFrom } = await import("../mcp/hub.ts");
      return openInlineServers(agent, servers, {
        env: (name) => app.ports.env.get(name),
        cwd: app.workspace,
        timeouts: options.mcp?.timeouts ?? timeoutsFrom((name) => app.ports.env.get(name)).timeouts,
        onSecrets: (secrets) => app.addSecrets(secrets),
      });
    },
  });
}

export async function subagentEnv(
  app: App,
  emit: RuntimeEventSink,
  options: SubagentOptions = {},
): Promise<SubagentEnv> {
  const registry = await registryFor(app);
  const store = new FileSidecarStore({
    fs: app.ports.fs,
    clock: app.ports.clock,
    storageRoot: app.layout.root,
  });
  return {
    ports: app.ports,
    layout: app.layout,
    store,
    registry,
    aliases: app.config.aliases,
    trusted: app.trust.trusted,
    maxDepth: app.config.maxSubagentDepth,
    slots: new Semaphore(app.config.maxConcurrentSubagents),
    coreTools,
    emit,
    background: new BackgroundRuns({ ports: app.ports, store, layout: app.layout }),
    heartbeat: new Heartbeat(store, { clock: app.ports.clock }),
    shells: new ShellTasks(app.ports),
    runner: await childRunner(app),
    ...(options.rules === undefined ? {} : { rules: options.rules }),
    ...(options.approve === undefined ? {} : { approve: options.approve }),
    mcp: childMcp(app, options),
  };
}

/** The Task tool for the top-level session `sessionId`, and the agent list for its system prompt. */
export async function subagentToolsFor(
  app: App,
  sessionId: string,
  emit: RuntimeEventSink,
  options: SubagentOptions = {},
): Promise<SessionExtras & { env: SubagentEnv; parent: ParentInfo; runtime: SubagentRuntime }> {
  const env = await subagentEnv(app, emit, options);
  // The session's current model and mode; the interactive session changes them (/model, /permissions).
  const parent: ParentInfo = {
    sessionId,
    projectPath: app.workspace,
    workspaceRoot: app.workspace,
    model: app.config.model,
    mode: app.config.permissionMode,
    depth: 0,
  };
  const runtime = new SubagentRuntime(env, parent);
  return {
    tools: [...runtime.coreTools(), ...runtime.tools()],
    agentsText: env.registry.describeForModel(),
    agentNames: env.registry.names(),
    pending: (delivered, subtasks) => {
      // Background calls made before a restart still get their notices delivered.
      for (const ref of subtasks) {
        if (ref.background) {
          env.background.rememberCall({ agentId: ref.agentId, callId: ref.callId, owner: runtime.owner });
        }
      }
      return env.background.pendingFor(runtime.owner, delivered);
    },
    recover: async ({ sessionId: id, transcript }) => {
      const r = await recoverSession(
        { ports: app.ports, store: env.store, layout: app.layout, redact: app.redact },
        { sessionId: id, projectPath: app.workspace, transcript },
      );
      return {
        changed: r.adopted.length > 0,
        warnings: r.report.problems.map((p) => `recovery of ${p.id}: ${p.message}`),
      };
    },
    env,
    parent,
    runtime,
  };
}

/** Ends what a session's subagent layer keeps running: background shells and idle child Workers. */
export async function closeSubagents(env: SubagentEnv | undefined): Promise<void> {
  if (env === undefined) return;
  await env.shells.stopAll();
  await env.mcp?.close();
  await env.runner.close();
}

/**
 * The subagent layer of one top-level run: `extraTools` for runMainSession, and `close()` to end what
 * it left running (call it when the run is over, also after a failure).
 */
export function sessionSubagents(
  app: App,
  emit: RuntimeEventSink,
  options: SubagentOptions = {},
): {
  extraTools: (sessionId: string) => Promise<SessionExtras>;
  close: () => Promise<void>;
  /** What `extraTools` built (undefined before it ran): the interactive session reads and steers it. */
  built: () => { env: SubagentEnv; parent: ParentInfo; runtime: SubagentRuntime } | undefined;
} {
  let built: { env: SubagentEnv; parent: ParentInfo; runtime: SubagentRuntime } | undefined;
  return {
    extraTools: async (sessionId) => {
      const extras = await subagentToolsFor(app, sessionId, emit, options);
      built = { env: extras.env, parent: extras.parent, runtime: extras.runtime };
      return extras;
    },
    close: () => closeSubagents(built?.env),
    built: () => built,
  };
}
