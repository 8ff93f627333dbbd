// Composition root: wires ports, configuration, trust, storage, provider and (lazily) the registry
// into one App for a command. Heavy modules (providers, the YAML parser) are imported only when a
// command needs them, so `blade --version` and `blade trust` stay fast.

import type { Ports } from "./sys/mod.ts";
import type { Provider } from "./protocol/provider.ts";
import { type ProviderConfig, providerFromConfig } from "./provider/factory.ts";
import { BladeError } from "./errors.ts";
import {
  type ConfigFlags,
  readSettingsFile,
  redactor,
  resolveConfig,
  type ResolvedConfig,
  secretsOf,
} from "./config/config.ts";
import { resolveStorageRoot, type StorageLayout, storageLayout } from "./config/storage.ts";
import { decideTrust, readTrust, type TrustDecision } from "./permissions/trust.ts";

export interface AppFlags extends ConfigFlags {
  trustWorkspace?: boolean;
  agentsJson?: string;
}

export interface AppOptions {
  /** Where `--debug` lines go (the CLI passes stderr). Lines are redacted before they arrive. */
  debugSink?: (line: string) => void;
}

export interface App {
  ports: Ports;
  layout: StorageLayout;
  /** Canonical absolute path of the user's working folder. */
  workspace: string;
  trust: TrustDecision;
  config: ResolvedConfig;
  flags: AppFlags;
  /** Replaces every known secret in `text` with `[REDACTED]`. */
  redact(text: string): string;
  /** Every known secret: provider keys, then what addSecrets added. */
  secrets(): string[];
  /** Adds configured secrets found later (MCP servers' tokens); redact() covers them from then on. */
  addSecrets(values: readonly string[]): void;
  provider(): Promise<Provider>;
  /** The provider as plain data (what a child's Worker builds its own provider from). */
  providerConfig(): Promise<ProviderConfig>;
}

export async function canonicalWorkspace(ports: Ports): Promise<string> {
  const cwd = ports.env.cwd();
  try {
    return await ports.fs.realPath(cwd);
  } catch {
    throw new BladeError("workspace_missing", `The working folder ${cwd} does not exist.`, {
      hint: "Run Blade from an existing folder.",
    });
  }
}

export async function createApp(ports: Ports, flags: AppFlags, options: AppOptions = {}): Promise<App> {
  const root = resolveStorageRoot(ports.env);
  await ports.fs.ensureDir(root);
  const storageRoot = await ports.fs.realPath(root);
  const layout = storageLayout(storageRoot);
  const workspace = await canonicalWorkspace(ports);
  const trust = decideTrust(
    await readTrust(ports.fs, layout.trustFile),
    workspace,
    flags.trustWorkspace === true,
  );
  const user = await readSettingsFile(ports.fs, layout.configFile);
  const project = trust.trusted ? await readSettingsFile(ports.fs, `${workspace}/.blade/settings.json`) : {};
  const config = resolveConfig({ user, project }, { env: ports.env, flags });
  const secrets = secretsOf(config);
  let redactAll = redactor(secrets);
  const redact = (text: string) => redactAll(text);
  let provider: Promise<Provider> | undefined;
  let providerConfig: Promise<ProviderConfig> | undefined;
  const getProviderConfig = () => (providerConfig ??= resolveProviderConfig(ports, config, workspace));
  return {
    ports,
    layout,
    workspace,
    trust,
    config,
    flags,
    redact,
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
      return (provider ??= getProviderConfig().then((c) =>
        providerFromConfig(c, { clock: ports.clock, ...(debug === undefined ? {} : { debug }) })
      ));
    },
    providerConfig: getProviderConfig,
  };
}

async function resolveProviderConfig(
  ports: Ports,
  config: ResolvedConfig,
  workspace: string,
): Promise<ProviderConfig> {
  const http = {
    ...(config.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: config.requestTimeoutMs }),
    ...(config.streamIdleTimeoutMs === undefined ? {} : { streamIdleTimeoutMs: config.streamIdleTimeoutMs }),
  };
  switch (config.provider) {
    case "anthropic": {
      if (config.anthropic.apiKey === undefined) {
        throw new BladeError("missing_api_key", "No Anthropic API key: ANTHROPIC_API_KEY is not set.", {
          hint:
            "Set ANTHROPIC_API_KEY (or BLADE_API_KEY), use --provider openai with OPENAI_API_KEY/OPENAI_BASE_URL, or try `blade demo`.",
        });
      }
      return {
        kind: "anthropic",
        baseUrl: config.anthropic.baseUrl,
        apiKey: config.anthropic.apiKey,
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
