// Owns the subagent runtime of one run: the sidecar store, the concurrency slots, the background
// runs and their heartbeat, background shells, the child runner and the registry snapshot, shared by
// every session of the run. Built by the composition root (app.ts `app.runtime(emit)`) and disposed
// with `await using`: disposal stops background shells and ends idle child Workers. The registry and
// the runner are built on first use, so a run that never delegates never loads them.

import { childCommandEnv, minimalCommandEnv } from "../permissions/child_env.ts";
import { findShell } from "../tools/bash.ts";
import type { Ports } from "../sys/mod.ts";
import type { RuntimeEventSink } from "../protocol/events.ts";
import type { Approver } from "../protocol/approval.ts";
import type { StorageLayout } from "../config/storage.ts";
import type { SidecarStore } from "../store/store.ts";
import { Heartbeat } from "../store/heartbeat.ts";
import { coreTools } from "../tools/registry.ts";
import { rulesOf, type RuleTexts, sessionToolNames } from "../permissions/run_rules.ts";
import type { RecoveryOutcome, SessionRecovery, SessionSubagents } from "../executor/session_ports.ts";
import type { TranscriptLog } from "../session/transcript.ts";
import { ownIdentity } from "../session/lease.ts";
import type { ParentInfo, RegistryView } from "../launch/launch_plan.ts";
import type { OwnProcess } from "../launch/launch_record.ts";
import type { ChildRunner } from "../child/child_runner.ts";
import type { ChildMcp } from "../run/child_mcp.ts";
import { BackgroundRuns } from "../run/background.ts";
import { Semaphore } from "../run/semaphore.ts";
import { ShellTasks, withShells } from "../run/shells.ts";
import { SubagentRuntime } from "../run/subagents.ts";
import type { SubagentEnv } from "../run/subagent_env.ts";
import { recoverSession } from "../recovery/restart.ts";
import { tolerantTrim } from "../run/sidecar_lifecycle.ts";
import type { WebAccess } from "../protocol/web.ts";
import type { SidecarOwner } from "../store/store.ts";
import type { SessionInbox } from "../session/inbox.ts";
import { followRemoteChild, type RemotePlacement } from "../run/remote_child.ts";
import { completionInboxId } from "../run/notice.ts";
import { lifecycleOf } from "../run/child_run.ts";
import type { SubtaskRefPart } from "../protocol/events.ts";
import type { RunHooks } from "../hooks/run_hooks.ts";

import type { ChildContext } from "../executor/child_context.ts";
export interface RuntimeDeps {
  ports: Ports;
  layout: StorageLayout;
  store: SidecarStore;
  /** Canonical path of the workspace: the project of every top-level session. */
  workspace: string;
  /** The run's canonical `--add-dir` folders (every child's grant includes them). */
  additionalDirs?: readonly string[];
  /** The run's memory and skills, as subagents get them (executor/child_context.ts). */
  childContext?: ChildContext;
  trusted: boolean;
  config: {
    model: string;
    permissionMode: ParentInfo["mode"];
    aliases: Record<string, string>;
    maxSubagentDepth: number;
    maxConcurrentSubagents: number;
    /** CLAUDE_CODE_SUBAGENT_MODEL. */
    subagentModel?: string | undefined;
    /** Settings `availableModels` (manager/child_model.ts). */
    availableModels?: readonly string[] | undefined;
  };
  redact: (text: string) => string;
  /** The run's secrets (provider keys, MCP tokens): kept out of children's commands. */
  secrets?: () => readonly string[];
  /**
   * Settings `env` (.claude/settings.json, .blade/settings.json, --settings): added to the environment
   * of children's commands as to the main session's, with the same names and secrets withheld.
   */
  settingsEnv?: Readonly<Record<string, string>>;
  registry: () => Promise<RegistryView>;
  runner: () => Promise<ChildRunner>;
  /** The run's event sink; child events arrive wrapped as `subagent_event`. */
  emit: RuntimeEventSink;
  /** The run's rules; they apply to every child too. */
  rules?: RuleTexts;
  /** `--tools`: the top-level session has only these tools, so its children have no others. */
  onlyTools?: readonly string[];
  /** The interactive session's approvals; foreground children ask through it. Unset: they refuse. */
  approve?: Approver;
  /** How children reach the run's MCP servers (built with the environment). */
  mcp: () => ChildMcp;
  /** How children's web tools reach the web (run in this thread for every child). */
  web?: WebAccess | undefined;
  /** The run's hooks for its children (docs/guides/hooks.md); absent: none configured. */
  hooks?: RunHooks | undefined;
  /**
   * The shared store's side (docs/guides/remote.md): where remote children go, sessions' inboxes, and
   * the project's key every machine's records carry (store/project_key.ts).
   */
  shared?: {
    remote: RemotePlacement;
    inboxes: (owner: SidecarOwner) => SessionInbox;
    projectKey: () => Promise<string | undefined>;
  };
  /** `--remote-children`: background children go to workers unless their agent says otherwise. */
  remoteChildren?: boolean;
}

/** What the runtime built for one top-level session (the interactive session reads and steers it). */
export interface SessionRuntime {
  env: SubagentEnv;
  /** The session's current model and mode; /model and /permissions change them. */
  parent: ParentInfo;
  runtime: SubagentRuntime;
}

/**
 * A continued session's remote children that were still running when it stopped (their background
 * calls' refs say running, no notice of theirs was delivered): followed again as this run's background
 * work, so the session waits for their notices as for its own (remote_child.ts followRemoteChild).
 */
function followRemoteChildren(
  env: SubagentEnv,
  o: { subtasks: readonly SubtaskRefPart[]; delivered: ReadonlySet<string>; owner: SidecarOwner },
): void {
  const remote = env.remote;
  if (remote === undefined) return;
  for (const ref of o.subtasks) {
    const id = ref.agentId;
    // (A remote child runs in the background whatever its call said: its record decides.)
    if (ref.state !== "running" || o.delivered.has(completionInboxId(id))) continue;
    if (env.background.isRunning(id)) continue;
    env.background.start({ agentId: id, callId: ref.callId, owner: o.owner }, async (signal) => {
      const loaded = await env.store.load(id).catch(() => null);
      const record = loaded !== null && "record" in loaded ? loaded.record : undefined;
      if (record?.isolation !== "remote" || record.remote === undefined || !record.background) return;
      await followRemoteChild({ ...lifecycleOf(env), remote }, {
        record,
        owner: o.owner,
        signal,
        queued: true,
      });
    });
  }
}

/**
 * This process's PID and identity, read once per Process port and shared with the leases; with a shared
 * store, also the project key its records carry (`projectKey`, read once by the caller).
 */
export function ownProcessOf(
  ports: Ports,
  options: { projectKey?: (() => Promise<string | undefined>) | undefined } = {},
): () => Promise<OwnProcess> {
  return async () => {
    const [identity, projectKey] = await Promise.all([ownIdentity(ports.process), options.projectKey?.()]);
    const own: OwnProcess = { pid: ports.process.pid(), identity, machine: ports.env.hostname() };
    if (projectKey !== undefined) own.projectKey = projectKey;
    return own;
  };
}

export class Runtime implements AsyncDisposable {
  readonly store: SidecarStore;
  readonly slots: Semaphore;
  readonly background: BackgroundRuns;
  readonly heartbeat: Heartbeat;
  readonly shells: ShellTasks;
  #deps: RuntimeDeps;
  #env: Promise<SubagentEnv> | undefined;
  #runner: ChildRunner | undefined;
  #mcp: ChildMcp | undefined;
  #session: SessionRuntime | undefined;
  #ownProcess: () => Promise<OwnProcess>;

  constructor(deps: RuntimeDeps) {
    this.#deps = deps;
    const { ports, layout, store } = deps;
    this.store = store;
    this.slots = new Semaphore(deps.config.maxConcurrentSubagents);
    this.background = new BackgroundRuns({
      ports,
      store,
      layout,
      ...(deps.shared === undefined ? {} : { inboxes: deps.shared.inboxes }),
    });
    this.heartbeat = new Heartbeat(store, { clock: ports.clock });
    this.shells = new ShellTasks(ports);
    this.#ownProcess = ownProcessOf(ports, { projectKey: deps.shared?.projectKey });
  }

  /** The shared environment every session of this run launches children in. */
  env(): Promise<SubagentEnv> {
    return this.#env ??= this.#build();
  }

  async #build(): Promise<SubagentEnv> {
    const d = this.#deps;
    // All three wait on files or modules: together, not one after the other.
    const [registry, runner, shell] = await Promise.all([d.registry(), d.runner(), findShell(d.ports)]);
    this.#runner = runner;
    return {
      ports: d.ports,
      commands: {
        // Without an environment grant (nothing readable), the auditors' minimal set is the safe fallback.
        env: Object.keys(d.ports.env.all()).length === 0
          ? {
            ...minimalCommandEnv(d.ports.env),
            ...childCommandEnv({ ...d.settingsEnv }, d.secrets?.() ?? []),
          }
          : childCommandEnv({ ...d.ports.env.all(), ...d.settingsEnv }, d.secrets?.() ?? []),
        shell,
      },
      layout: d.layout,
      store: this.store,
      registry,
      aliases: d.config.aliases,
      ...(d.config.subagentModel === undefined ? {} : { subagentModel: d.config.subagentModel }),
      ...(d.config.availableModels === undefined ? {} : { availableModels: d.config.availableModels }),
      trusted: d.trusted,
      ...(d.additionalDirs === undefined || d.additionalDirs.length === 0
        ? {}
        : { additionalDirs: d.additionalDirs }),
      ...(d.childContext === undefined ? {} : { childContext: d.childContext }),
      maxDepth: d.config.maxSubagentDepth,
      slots: this.slots,
      coreTools,
      emit: d.emit,
      background: this.background,
      heartbeat: this.heartbeat,
      shells: this.shells,
      runner,
      ownProcess: this.#ownProcess,
      ...(d.rules === undefined ? {} : { rules: d.rules }),
      ...(d.approve === undefined ? {} : { approve: d.approve }),
      mcp: this.#mcp = d.mcp(),
      web: d.web,
      ...(d.shared === undefined ? {} : { remote: d.shared.remote }),
      ...(d.remoteChildren === true ? { remoteChildren: true } : {}),
      ...(d.hooks === undefined ? {} : { hooks: d.hooks }),
    };
  }

  /** The subagent tools, agent list and background work of the top-level session `sessionId`. */
  async subagentsFor(sessionId: string): Promise<SessionSubagents> {
    const d = this.#deps;
    const env = await this.env();
    const parent: ParentInfo = {
      sessionId,
      projectPath: d.workspace,
      workspaceRoot: d.workspace,
      model: d.config.model,
      mode: d.config.permissionMode,
      depth: 0,
      // The capability ceiling of its children: this session's own tools (--tools, --disallowed-tools).
      tools: sessionToolNames(rulesOf(d.rules)).filter((t) => d.onlyTools?.includes(t) ?? true),
    };
    const runtime = new SubagentRuntime(env, parent);
    this.#session = { env, parent, runtime };
    // `agent` hooks' verifiers of this session are its children (docs/guides/hooks.md).
    d.hooks?.verifyWith((request, o) => runtime.verifyHook(request, o));
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
        followRemoteChildren(env, { subtasks, delivered, owner: runtime.owner });
        const children = tolerantTrim(env.background.pendingFor(runtime.owner, delivered), {
          emit: d.emit,
          sessionId: parent.sessionId,
        });
        // Background commands and monitors are waited for and told about like background children.
        return withShells(children, env.shells.pendingFor(runtime.owner));
      },
    };
  }

  /** Crash recovery of a continued top-level session of this folder (lib/recovery/restart.ts). */
  readonly recovery: SessionRecovery = { recover: (session) => this.#recover(session) };

  async #recover(session: { sessionId: string; transcript: TranscriptLog }): Promise<RecoveryOutcome> {
    const d = this.#deps;
    const r = await recoverSession(
      {
        ports: d.ports,
        store: this.store,
        layout: d.layout,
        redact: d.redact,
        ...(d.shared === undefined ? {} : { inboxes: d.shared.inboxes }),
      },
      { sessionId: session.sessionId, projectPath: d.workspace, transcript: session.transcript },
    );
    return {
      changed: r.adopted.length > 0,
      warnings: r.report.problems.map((p) => `recovery of ${p.id}: ${p.message}`),
    };
  }

  /** What `subagentsFor` built for the last top-level session (undefined before it ran). */
  session(): SessionRuntime | undefined {
    return this.#session;
  }

  /** Ends what the run keeps alive: background shells, agents' MCP servers and idle child Workers. */
  async close(): Promise<void> {
    await this.shells.stopAll();
    await this.#mcp?.close();
    await this.#runner?.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
