// Composition root: wires ports, configuration, trust, storage, provider and (lazily) the registry
// into one App for a command, and assembles the subagent runtime (store, slots, background runs,
// heartbeat, shells, child runner) a run uses: `app.store()` and `app.runtime(emit)` are the CLI's
// only way to them. Heavy modules (providers, the YAML parser) are imported only when a command
// needs them, so `blade --version` and `blade trust` stay fast.

import type { Ports } from "./sys/mod.ts";
import type { Provider } from "./protocol/provider.ts";
import { type ProviderConfig, providerFromConfig, withStallTimeout } from "./provider/factory.ts";
import { BladeError } from "./errors.ts";
import { type ConfigFlags, redactor, type ResolvedConfig, resolveModel, secretsOf } from "./config/config.ts";
import { runSettings } from "./config/run_settings.ts";
import { resolveStorageRoot, type StorageLayout } from "./config/storage.ts";
import { bashLimitEnv } from "./config/bash_limits.ts";
import { openLayout, type StorageAccess } from "./store/storage_root.ts";
import { decideTrust, readTrust, type TrustDecision } from "./permissions/trust.ts";
import type { ClaudeSettings, SettingSource } from "./config/claude_settings.ts";
import type { RuntimeEventSink } from "./protocol/events.ts";
import { webAccessOf } from "./web/lazy_web_access.ts";
import type { Approver } from "./protocol/approval.ts";
import type { RuleTexts } from "./permissions/run_rules.ts";
import type { SidecarStore } from "./store/store.ts";
import { FileSidecarStore } from "./store/file_store.ts";
import type { LazyNatsStore } from "./remote/lazy_nats_store.ts";
import type { RemotePlacement } from "./run/remote_child.ts";
import { loadRegistry } from "./registry/mod.ts";
import type { RegistrySnapshot } from "./registry/snapshot.ts";
import { type ChildRunner, InThreadRunner, WorkerRunner } from "./child/child_runner.ts";
import { Runtime, type RuntimeDeps } from "./runtime/runtime.ts";
import type { McpHub } from "./mcp/hub.ts";
import { ChildMcp } from "./run/child_mcp.ts";
import { parseRuleList, wholeToolsDenied } from "./protocol/tool_rule.ts";
import { toolNameMatches } from "./protocol/mcp_names.ts";
import { allInOrder } from "./sys/concurrency.ts";
import { canonicalWorkspace } from "./config/workspace.ts";
import { processGit } from "./worktree/git.ts";
import { readProjectKey } from "./worktree/project_identity.ts";
import { claudeUserDir } from "./config/claude_dir.ts";
import type { ChildContext } from "./executor/child_context.ts";
import type { RunHooks } from "./hooks/run_hooks.ts";
import { type ApiKeyHelper, apiKeyHelperOf } from "./provider/api_key_helper.ts";

export interface AppFlags extends ConfigFlags {
  trustWorkspace?: boolean;
  agentsJson?: string;
  /** `--settings <file|json>`: a Claude Code settings layer for this run. */
  settings?: string;
  /** `--fallback-model`: the model an overloaded request switches to (provider/fallback.ts). */
  fallbackModel?: string;
  /** `--add-dir`: folders the tools may work in besides the workspace (relative to the working folder). */
  addDirs?: readonly string[];
  /** `--bare`: no memory, commands, skills, output styles or MCP servers from files. */
  bare?: boolean;
  /** `--disable-slash-commands`: no skills and no custom slash commands. */
  disableSlashCommands?: boolean;
  /** `--output-style`: the main session's output style (over the `outputStyle` setting). */
  outputStyle?: string;
  /** `--remote-children`: background children go to workers (docs/guides/remote.md). */
  remoteChildren?: boolean;
  /**
   * `--setting-sources`: which settings files are read — `user` (~/.claude/settings.json, Blade's
   * config.json), `project` (.claude/settings.json, .blade/settings.json), `local`
   * (.claude/settings.local.json); default all.
   */
  settingSources?: ReadonlySet<SettingSource>;
}

export interface AppOptions {
  /** Where `--debug` lines go (the CLI passes stderr). Lines are redacted before they arrive. */
  debugSink?: (line: string) => void;
  /** Where warnings go whatever `--debug` says (a setting Blade does not support): the CLI passes stderr. */
  warnSink?: (line: string) => void;
  /** `read`: the command only reads storage, so an existing root is used as it is (even read-only). */
  storage?: StorageAccess;
}

export interface RuntimeOptions {
  /** The run's rules; they apply to every child too. */
  rules?: RuleTexts;
  /** The interactive session's approvals (foreground children ask through them). */
  approve?: Approver;
  /** The run's MCP servers: children see their tools (filtered and capped), calls go through here. */
  mcp?: McpHub;
  /** `--tools`: the top-level session's only tools, and so its children's ceiling. */
  onlyTools?: readonly string[];
  /** The run's memory and skills, as subagents get them. */
  childContext?: ChildContext;
  /** The run's hooks for its children (lib/hooks/run_hooks.ts); absent: none configured. */
  hooks?: RunHooks | undefined;
  /** False on a worker: agents' inline MCP servers are never started (lib/run/child_mcp.ts). */
  agentMcpServers?: boolean;
}

export interface App {
  ports: Ports;
  layout: StorageLayout;
  /** Canonical absolute path of the user's working folder. */
  workspace: string;
  /** Canonical `--add-dir` folders: the tools' and children's grant extends to them. */
  additionalDirs: readonly string[];
  trust: TrustDecision;
  /**
   * Whether the run's tools may write the workspace and run commands (the gate still decides each
   * call): Workspace Trust, or in print mode an explicit grant on the command line
   * (permissions/command_line_grant.ts). What the repository supplies loads by `trust` only.
   */
  workspaceGrant: boolean;
  config: ResolvedConfig;
  flags: AppFlags;
  /** Claude Code style settings of the run (permissions rules, env for commands); Blade's layers included. */
  claude: ClaudeSettings;
  /** Replaces every known secret in `text` with `[REDACTED]`. */
  redact(text: string): string;
  /** Every known secret: provider keys, then what addSecrets added. */
  secrets(): string[];
  /** How model requests are sent when the key comes from apiKeyHelper (children's proxied ones too). */
  fetch?: typeof fetch;
  /** Adds configured secrets found later (MCP servers' tokens); redact() covers them from then on. */
  addSecrets(values: readonly string[]): void;
  provider(): Promise<Provider>;
  /** The provider as plain data (what a child's Worker builds its own provider from). */
  providerConfig(): Promise<ProviderConfig>;
  /** The sidecar store: this storage root's files, or the shared NATS store `--store` names. */
  store(): SidecarStore;
  /** The shared NATS store `--store` names (its inboxes, leases, queue, bundles); absent: files only. */
  shared?: LazyNatsStore;
  /** Where remote children go: with a shared store only. */
  placement?: RemotePlacement;
  /**
   * The workspace's project key across machines (store/project_key.ts), read from git once; undefined
   * without a shared store (the file store goes by path) or when git gives none.
   */
  projectKey(): Promise<string | undefined>;
  /** Closes what the App opened (the shared store's connection), so the process can exit. */
  close(): Promise<void>;
  /** The agent definitions this workspace sees (built-in, user, project when trusted, --agents). */
  registry(): Promise<RegistrySnapshot>;
  /** The subagent runtime of one run; dispose it (`await using`) when the run is over. */
  runtime(emit: RuntimeEventSink, options?: RuntimeOptions): Runtime;
}

export async function createApp(ports: Ports, flags: AppFlags, options: AppOptions = {}): Promise<App> {
  const note = flags.debug === true || ports.env.get("BLADE_DEBUG") === "1" ? options.debugSink : undefined;
  const [layout, workspace] = await allInOrder([
    openLayout(ports.fs, resolveStorageRoot(ports.env), { access: options.storage ?? "write", note }),
    canonicalWorkspace(ports),
  ]);
  const trust = decideTrust(
    await readTrust(ports.fs, layout.trustFile),
    workspace,
    // BLADE_TRUST_WORKSPACE=1: the CI way to say --trust-workspace.
    flags.trustWorkspace === true || ports.env.get("BLADE_TRUST_WORKSPACE") === "1",
  );
  const { config, claude, additionalDirs } = await runSettings(ports, flags, {
    layout,
    workspace,
    trusted: trust.trusted,
    ...(options.debugSink === undefined ? {} : { debugSink: options.debugSink }),
    ...(options.warnSink === undefined ? {} : { warnSink: options.warnSink }),
  });
  // The sandbox requirement reaches every command launcher (tools/command_launch.ts) as
  // BLADE_REQUIRE_SANDBOX, Worker children's through their tool environment (bashLimitEnv).
  if (config.requireSandbox) ports = requiringSandbox(ports);
  const secrets = secretsOf(config);
  let redactAll = redactor(secrets);
  const redact = (text: string) => redactAll(text);
  let provider: Promise<Provider> | undefined;
  let providerConfig: Promise<ProviderConfig> | undefined;
  // --fallback-model travels in the config, so Worker children switch too (provider/fallback.ts).
  const fallbackModel = flags.fallbackModel === undefined
    ? undefined
    : resolveModel(flags.fallbackModel, config.aliases);
  const key = apiKeyHelperOf(ports, { config, claude, cwd: workspace, onKey: (k) => app.addSecrets([k]) });
  const getProviderConfig =
    () => (providerConfig ??= resolveProviderConfig(ports, config, { workspace, keyHelper: key?.helper })
      .then((c) => fallbackModel === undefined ? c : { ...c, fallbackModel }));
  // The shared store is parsed now, so a bad URL is a usage error before anything runs, and connects
  // on its first call; lib/remote/ is imported only when --store names one (the default path never).
  const remote = config.store === undefined
    ? undefined
    : await sharedStore(ports, { url: config.store, credsFile: config.storeCreds, redact });
  let store: SidecarStore | undefined = remote?.shared;
  let projectKey: Promise<string | undefined> | undefined;
  const app: App = {
    ports,
    layout,
    workspace,
    additionalDirs,
    trust,
    workspaceGrant: trust.trusted,
    config,
    flags,
    claude,
    redact,
    ...(key === undefined ? {} : { fetch: key.fetch }),
    secrets: () => [...secrets],
    addSecrets: (values) => {
      for (const v of values) if (!secrets.includes(v)) secrets.push(v);
      // Longest first, so a token inside a longer secret (`Bearer <token>`) does not split it.
      secrets.sort((a, b) => b.length - a.length);
      redactAll = redactor(secrets);
    },
    provider: () => {
      const sink = options.debugSink;
      const debug = config.debug && sink !== undefined ? (line: string) => sink(redact(line)) : undefined;
      const sends = key === undefined ? {} : { fetch: key.fetch };
      return (provider ??= getProviderConfig().then((c) =>
        providerFromConfig(c, { clock: ports.clock, ...(debug === undefined ? {} : { debug }), ...sends })
      ));
    },
    providerConfig: getProviderConfig,
    store: () =>
      store ??= new FileSidecarStore({ fs: ports.fs, clock: ports.clock, storageRoot: layout.root, redact }),
    ...remote,
    projectKey: () =>
      projectKey ??= remote === undefined
        ? Promise.resolve(undefined)
        : readProjectKey(processGit(ports.process, ports.env), workspace),
    close: async () => await remote?.shared.close(),
    // Methods, not closures: an App with a replaced provider (tests) builds its runtime with it.
    registry() {
      return registryOf(this);
    },
    runtime(emit, runtimeOptions = {}) {
      return runtimeOf(this, emit, runtimeOptions);
    },
  };
  return app;
}

/** The NATS store `--store` names (docs/guides/remote.md), not yet connected, and its remote children. */
async function sharedStore(
  ports: Ports,
  o: { url: string; credsFile: string | undefined; redact: (text: string) => string },
): Promise<{ shared: LazyNatsStore; placement: RemotePlacement }> {
  const [{ parseStoreUrl }, { LazyNatsStore }, { NatsPlacement }] = await Promise.all([
    import("./remote/store_url.ts"),
    import("./remote/lazy_nats_store.ts"),
    import("./worker/placement.ts"),
  ]);
  const shared = new LazyNatsStore(parseStoreUrl(o.url), {
    fs: ports.fs,
    clock: ports.clock,
    credsFile: o.credsFile,
    redact: o.redact,
    name: `blade ${ports.env.hostname()}`.trim(),
  });
  return { shared, placement: new NatsPlacement(shared, ports) };
}

function runtimeOf(app: App, emit: RuntimeEventSink, options: RuntimeOptions): Runtime {
  return new Runtime({
    ports: app.ports,
    layout: app.layout,
    store: app.store(),
    workspace: app.workspace,
    additionalDirs: app.additionalDirs,
    trusted: app.workspaceGrant,
    config: app.config,
    redact: app.redact,
    secrets: () => app.secrets(),
    settingsEnv: app.claude.env,
    registry: () => app.registry(),
    runner: () => childRunner(app),
    emit,
    ...(options.rules === undefined ? {} : { rules: options.rules }),
    ...(options.approve === undefined ? {} : { approve: options.approve }),
    ...(options.onlyTools === undefined ? {} : { onlyTools: options.onlyTools }),
    ...(options.childContext === undefined ? {} : { childContext: options.childContext }),
    mcp: () => childMcp(app, options),
    web: webAccessOf(app),
    hooks: options.hooks,
    ...sharedOf(app),
  });
}

/** The shared store's side of the runtime: remote children and inboxes (none without `--store`). */
function sharedOf(app: App): Pick<RuntimeDeps, "shared" | "remoteChildren"> {
  const { shared, placement } = app;
  if (shared === undefined || placement === undefined) return {};
  return {
    shared: {
      remote: placement,
      inboxes: (owner) => shared.inboxOf(owner.parentSessionId),
      projectKey: () => app.projectKey(),
    },
    remoteChildren: app.flags.remoteChildren === true,
  };
}

/** How children reach MCP servers: the run's hub, plus agents' inline servers started on first use. */
function childMcp(app: App, options: RuntimeOptions): ChildMcp {
  const denied = [...wholeToolsDenied(parseRuleList(options.rules?.deny ?? []).rules)];
  return new ChildMcp({
    hub: options.mcp,
    visible: (name) => !denied.some((d) => toolNameMatches(d, name)),
    redact: (text) => app.redact(text),
    openInline: options.agentMcpServers === false ? undefined : async (agent, servers) => {
      const { openInlineServers } = await import("./mcp/setup.ts");
      const { resultCharsFrom, timeoutsFrom } = await import("./mcp/hub.ts");
      const env = (name: string) => app.ports.env.get(name);
      return openInlineServers(agent, servers, {
        env,
        cwd: app.workspace,
        timeouts: options.mcp?.timeouts ?? timeoutsFrom(env).timeouts,
        maxResultChars: options.mcp?.maxResultChars ?? resultCharsFrom(env).maxResultChars,
        onSecrets: (secrets) => app.addSecrets(secrets),
      });
    },
  });
}

async function registryOf(app: App): Promise<RegistrySnapshot> {
  const { snapshot } = await loadRegistry({
    fs: app.ports.fs,
    home: app.ports.env.home(),
    claudeDir: claudeUserDir(app.ports.env),
    workspace: app.workspace,
    trusted: app.trust.trusted,
    bladeHome: app.layout.root,
    ...(app.flags.agentsJson === undefined ? {} : { agentsJson: app.flags.agentsJson }),
  });
  return snapshot;
}

/** The shortest stall limit of a session's requests (docs/reference/limits.md). */
const SESSION_STALL_MS = 600_000;

/** Children run in Workers under their own Deno permissions unless BLADE_CHILD_SANDBOX=none. */
async function childRunner(app: App): Promise<ChildRunner> {
  const { ports, config, layout } = app;
  if (config.childSandbox === "none") {
    return new InThreadRunner({
      ports,
      provider: await app.provider(),
      layout,
      maxTokens: config.maxTokens,
      compaction: config.compaction,
      redact: app.redact,
    });
  }
  const home = ports.env.home();
  const claudeDir = claudeUserDir(ports.env);
  return new WorkerRunner({
    layout,
    clock: ports.clock,
    provider: withStallTimeout(await app.providerConfig(), config.subagentStallTimeoutMs),
    maxTokens: config.maxTokens,
    compaction: config.compaction,
    platform: ports.env.platform(),
    secrets: app.secrets(),
    extraReadDirs: claudeDir === undefined ? [] : [`${claudeDir}/agents`, `${claudeDir}/skills`],
    ...(home === undefined ? {} : { home }),
    toolEnv: bashLimitEnv(ports.env),
    ...(app.fetch === undefined ? {} : { fetch: app.fetch }),
  });
}

async function resolveProviderConfig(
  ports: Ports,
  config: ResolvedConfig,
  o: { workspace: string; keyHelper?: ApiKeyHelper | undefined },
): Promise<ProviderConfig> {
  const { workspace } = o;
  const http = {
    ...(config.maxRetries === undefined ? {} : { maxRetries: config.maxRetries }),
    ...(config.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: config.requestTimeoutMs }),
    ...(config.streamIdleTimeoutMs === undefined ? {} : { streamIdleTimeoutMs: config.streamIdleTimeoutMs }),
    // The stall limit: one answer's whole wait, retries included (provider/retry.ts), at least the
    // request timeout (API_TIMEOUT_MS) and 10 minutes.
    stallTimeoutMs: Math.max(config.requestTimeoutMs ?? 0, SESSION_STALL_MS),
  };
  switch (config.provider) {
    case "anthropic": {
      const { apiKey, authToken, headers } = config.anthropic;
      // The helper runs before the first request: a broken one fails the run at once, not per request.
      if (o.keyHelper !== undefined) await o.keyHelper.key();
      else if (apiKey === undefined && authToken === undefined) {
        throw new BladeError("missing_api_key", "No Anthropic API key: ANTHROPIC_API_KEY is not set.", {
          hint:
            "Set ANTHROPIC_API_KEY (or BLADE_API_KEY, or ANTHROPIC_AUTH_TOKEN for a gateway), use --provider openai with OPENAI_API_KEY/OPENAI_BASE_URL, or try `blade demo`.",
        });
      }
      return {
        kind: "anthropic",
        baseUrl: config.anthropic.baseUrl,
        ...(apiKey === undefined ? {} : { apiKey }),
        ...(authToken === undefined ? {} : { authToken }),
        ...(Object.keys(headers).length === 0 ? {} : { headers }),
        ...(config.thinkingBudget === undefined ? {} : { thinkingBudget: config.thinkingBudget }),
        ...(config.promptCacheOff.length === 0 ? {} : { cacheOff: config.promptCacheOff }),
        model: {
          ...(config.effort === undefined ? {} : { effort: config.effort }),
          ...(config.thinking.mode === undefined ? {} : { thinking: config.thinking.mode }),
          ...(config.thinking.display === undefined ? {} : { thinkingDisplay: config.thinking.display }),
        },
        ...(config.betas.length === 0 ? {} : { betas: [...config.betas] }),
        ...http,
      };
    }
    case "openai":
      return {
        kind: "openai",
        baseUrl: config.openai.baseUrl,
        ...(config.openai.apiKey === undefined ? {} : { apiKey: config.openai.apiKey }),
        ...http,
      };
    case "scripted": {
      const { loadScript } = await import("./provider/script_schema.ts");
      const path = config.script;
      if (path === undefined) {
        throw new BladeError("script_missing", "The scripted provider needs a script.", {
          hint: "Pass --script <file.yaml> or set BLADE_SCRIPT. See docs/guides/scripted-provider.md.",
        });
      }
      const full = path.startsWith("/") ? path : `${workspace}/${path}`;
      let text: string;
      try {
        text = await ports.fs.readText(full);
      } catch {
        throw new BladeError("script_missing", `Cannot read the script ${full}.`, {
          hint:
            "Check the path given to --script or BLADE_SCRIPT (relative paths start at the working folder).",
        });
      }
      const loaded = loadScript(text, full);
      if (loaded instanceof BladeError) throw loaded;
      return { kind: "scripted", script: loaded.script };
    }
    default: {
      const never: never = config.provider;
      return never;
    }
  }
}

/** `ports` whose environment says BLADE_REQUIRE_SANDBOX=1 (--require-sandbox, `sandbox.required`). */
function requiringSandbox(ports: Ports): Ports {
  const real = ports.env;
  const env = { ...real, get: (name: string) => name === "BLADE_REQUIRE_SANDBOX" ? "1" : real.get(name) };
  return { ...ports, env };
}
