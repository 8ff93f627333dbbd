// Owns configuration (docs/guides/configuration.md): user `<storage>/config.json`, project `.blade/settings.json` (trusted
// workspaces only), environment variables and flags — flags win. Also model alias resolution.
// Secrets (API keys) come only from the environment and are never written anywhere.

import type { Env } from "../sys/env.ts";
import type { Fs } from "../sys/fs.ts";
import { readJsonFile } from "./json_file.ts";
import { BladeError } from "../errors.ts";
import { parsePermissionMode, type PermissionMode } from "../protocol/permission_mode.ts";
import type { Settings } from "./settings_schema.ts";
import { currentModelId, MODEL_ALIASES } from "./models.ts";
import { type Effort, EFFORTS, isEffort } from "../protocol/effort.ts";
import { sandboxRequired } from "./bash_limits.ts";

export type ProviderName = "anthropic" | "openai" | "scripted";

export type { Settings };

/** Claude Code's aliases and the ids 2.1.332 sends for them (config/models.ts). */
export const DEFAULT_ALIASES: Readonly<Record<string, string>> = MODEL_ALIASES;

export interface ResolvedConfig {
  provider: ProviderName;
  /** Concrete model id. */
  model: string;
  aliases: Record<string, string>;
  script: string | undefined;
  permissionMode: PermissionMode;
  maxTurns: number | undefined;
  maxSubagentDepth: number;
  maxConcurrentSubagents: number;
  /** Where children run: a Worker under their own Deno permissions, or this thread (BLADE_CHILD_SANDBOX). */
  childSandbox: "worker" | "none";
  requestTimeoutMs: number | undefined;
  streamIdleTimeoutMs: number | undefined;
  subagentStallTimeoutMs: number;
  /**
   * The cap on output tokens a run was given (CLAUDE_CODE_MAX_OUTPUT_TOKENS, settings `maxTokens`); 0
   * when none was: each request then uses its model's own (config/models.ts), as Claude Code does.
   */
  maxTokens: number;
  /** `--betas`: more `anthropic-beta` names for every Anthropic request. */
  betas: readonly string[];
  /** `--effort` (or CLAUDE_CODE_EFFORT_LEVEL): the session's effort; undefined = the model's default. */
  effort: Effort | undefined;
  /**
   * The SDK's thinking options (`--thinking`, `--max-thinking-tokens`, `--thinking-display`):
   * `disabled` turns thinking off where the model allows it.
   */
  thinking: ThinkingChoice;
  anthropic: {
    apiKey: string | undefined;
    /** The variable the key came from (Claude Code's `apiKeySource`), or undefined without a key. */
    apiKeySource?: string;
    /** ANTHROPIC_AUTH_TOKEN: sent as `Authorization: Bearer …` (gateways). */
    authToken?: string;
    /** ANTHROPIC_CUSTOM_HEADERS: `Name: value` lines sent with every request. */
    headers: Record<string, string>;
    baseUrl: string;
  };
  /** CLAUDE_CODE_SUBAGENT_MODEL: the model every subagent runs on (its definition's model is ignored). */
  subagentModel: string | undefined;
  /** Settings `availableModels`: the models a subagent may be given (lib/manager/child_model.ts). */
  availableModels?: readonly string[];
  /**
   * The small, fast model WebFetch answers with: ANTHROPIC_SMALL_FAST_MODEL, else haiku with the
   * Anthropic provider, else the session's model (another provider has no haiku).
   */
  smallFastModel: string;
  /**
   * MAX_THINKING_TOKENS (or `--max-thinking-tokens`): the thinking budget of models that think on a
   * budget (0 = no thinking where the model allows it); undefined = the model's default.
   */
  thinkingBudget: number | undefined;
  /** CLAUDE_CODE_MAX_RETRIES: retries of a failed model request (default 4). */
  maxRetries: number | undefined;
  /** MAX_STRUCTURED_OUTPUT_RETRIES: StructuredOutput attempts of a `--json-schema` run (default 5, as Claude Code). */
  structuredOutputAttempts: number;
  openai: { apiKey: string | undefined; baseUrl: string };
  debug: boolean;
  /**
   * Commands are refused where no OS sandbox can run (--require-sandbox, the `sandbox.required`
   * setting or BLADE_REQUIRE_SANDBOX=1), instead of running rule-only with one warning.
   */
  requireSandbox: boolean;
  /** `--store`, else the user setting `store`: the shared store's URL; undefined = the file store. */
  store: string | undefined;
  /** `--store-creds`, else the user setting `storeCreds`: the `.creds` or nkey seed file for the store. */
  storeCreds: string | undefined;
}

export interface ThinkingChoice {
  /** `adaptive` / `enabled`: think (the model's kind of thinking); `disabled`: do not, where allowed. */
  mode?: "adaptive" | "enabled" | "disabled";
  /** `summarized` or `omitted` (the API's `thinking.display`); default omitted, as Claude Code. */
  display?: string;
}

export interface ConfigFlags {
  model?: string;
  /** `--effort`. */
  effort?: string;
  /** `--betas` (names, comma-separated lists allowed). */
  betas?: readonly string[];
  /** `--thinking`, `--max-thinking-tokens`, `--thinking-display` (the Agent SDK's). */
  thinking?: ThinkingChoice & { budget?: number };
  provider?: string;
  script?: string;
  permissionMode?: string;
  maxTurns?: number;
  debug?: boolean;
  /** `--require-sandbox`: commands are refused where no OS sandbox can run. */
  requireSandbox?: boolean;
  /** `--store nats://…`: the shared store (docs/guides/remote.md). */
  store?: string;
  /** `--store-creds <file>`: its `.creds` or nkey seed file. */
  storeCreds?: string;
}

export async function readSettingsFile(fs: Fs, path: string): Promise<Settings> {
  const json = await readJsonFile(fs, path);
  if (json === undefined) return {};
  // zod loads only when there is a file to check (most runs have none).
  const { settingsSchema } = await import("./settings_schema.ts");
  const parsed = settingsSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length > 0 ? `field "${issue.path.join(".")}"` : "the file";
    throw new BladeError("config_invalid", `${path}: ${where}: ${issue.message}`, {
      hint: `Known fields: ${Object.keys(settingsSchema.shape).join(", ")}.`,
    });
  }
  return parsed.data;
}

/** A variable's value; empty counts as unset (`ANTHROPIC_API_KEY=""` is no key), as in Claude Code. */
export function envValue(env: Env, name: string): string | undefined {
  const v = env.get(name);
  return v === undefined || v === "" ? undefined : v;
}

function childSandboxOf(env: Env): "worker" | "none" {
  const choice = env.get("BLADE_CHILD_SANDBOX") ?? "worker";
  if (choice === "worker" || choice === "none") return choice;
  throw new BladeError("config_invalid", `BLADE_CHILD_SANDBOX must be "worker" or "none", got "${choice}".`, {
    hint: "Unset it to run each child in a Worker under its own Deno permissions.",
  });
}

function positiveInt(env: Env, name: string): number | undefined {
  const raw = env.get(name);
  if (raw === undefined || raw === "") return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) {
    throw new BladeError("config_invalid", `${name} must be a whole number, got "${raw}".`, {
      hint: `Unset ${name} or give it a number.`,
    });
  }
  return n;
}

/** An alias's id (a retired id's successor, as Claude Code sends it: config/models.ts). */
export function resolveModel(name: string, aliases: Readonly<Record<string, string>>): string {
  return currentModelId(Object.hasOwn(aliases, name) ? aliases[name]! : name);
}

function effortOf(flag: string | undefined, env: Env): Effort | undefined {
  const raw = flag ?? envValue(env, "CLAUDE_CODE_EFFORT_LEVEL");
  if (raw === undefined) return undefined;
  if (isEffort(raw)) return raw;
  throw new BladeError("usage", `Unknown effort "${raw}".`, {
    exitCode: 2,
    hint: `Use one of: ${EFFORTS.join(", ")}.`,
  });
}

function pickProvider(flags: ConfigFlags, env: Env, settings: Settings, model: string): ProviderName {
  const raw = flags.provider ?? env.get("BLADE_PROVIDER") ?? settings.provider;
  if (raw !== undefined && raw !== "") {
    if (raw === "anthropic" || raw === "openai" || raw === "scripted") return raw;
    throw new BladeError("usage", `Unknown provider "${raw}".`, {
      exitCode: 2,
      hint: "Use one of: anthropic, openai, scripted.",
    });
  }
  if (model === "scripted" || flags.script !== undefined || env.get("BLADE_SCRIPT")) return "scripted";
  const hasAnthropic = envValue(env, "ANTHROPIC_API_KEY") ?? envValue(env, "BLADE_API_KEY") ??
    envValue(env, "ANTHROPIC_AUTH_TOKEN");
  if (!hasAnthropic && (env.get("OPENAI_API_KEY") || env.get("OPENAI_BASE_URL"))) return "openai";
  return "anthropic";
}

export function resolveConfig(
  layers: {
    user: Settings;
    project: Settings;
    /** Claude Code's settings files (below Blade's own). */
    claude?: { model?: string; defaultMode?: string; availableModels?: string[] };
    /** `--settings` (above the files, below flags and variables). */
    settingsFlag?: { model?: string; defaultMode?: string; availableModels?: string[] };
  },
  options: { env: Env; flags: ConfigFlags },
): ResolvedConfig {
  const { env, flags } = options;
  const merged: Settings = { ...layers.user, ...layers.project };
  const claudeModel = layers.settingsFlag?.model ?? merged.model ?? layers.claude?.model;
  const claudeMode = layers.settingsFlag?.defaultMode ?? merged.permissionMode ?? layers.claude?.defaultMode;
  const aliases = {
    ...DEFAULT_ALIASES,
    ...layers.user.models,
    ...layers.project.models,
    ...aliasOverrides(env),
  };
  // `--model default` is the default model, as in Claude Code.
  const flagModel = flags.model === "default" ? undefined : flags.model;
  const modelName = flagModel ?? envValue(env, "BLADE_MODEL") ?? envValue(env, "ANTHROPIC_MODEL") ??
    claudeModel ?? "sonnet";
  const model = resolveModel(modelName, aliases);
  const provider = pickProvider(flags, env, merged, model);
  const modeName = flags.permissionMode ?? claudeMode ?? "default";
  const permissionMode = parsePermissionMode(modeName);
  if (permissionMode === undefined) {
    throw new BladeError("usage", `Unknown permission mode "${modeName}".`, {
      exitCode: 2,
      hint:
        "Use default, dontAsk, autoEdit, yolo or plan (Claude Code names acceptEdits, bypassPermissions, manual work too).",
    });
  }
  return {
    provider,
    model: provider === "scripted" && modelName === "sonnet" ? "scripted" : model,
    aliases,
    script: flags.script ?? env.get("BLADE_SCRIPT") ?? merged.script,
    permissionMode,
    maxTurns: flags.maxTurns ?? merged.maxTurns,
    maxSubagentDepth: positiveInt(env, "BLADE_MAX_SUBAGENT_DEPTH") ?? merged.maxSubagentDepth ?? 3,
    maxConcurrentSubagents: positiveInt(env, "BLADE_MAX_CONCURRENT_SUBAGENTS") ??
      merged.maxConcurrentSubagents ??
      20,
    childSandbox: childSandboxOf(env),
    requestTimeoutMs: positiveInt(env, "API_TIMEOUT_MS") ?? merged.requestTimeoutMs,
    streamIdleTimeoutMs: merged.streamIdleTimeoutMs,
    subagentStallTimeoutMs: merged.subagentStallTimeoutMs ?? 600_000,
    maxTokens: positiveInt(env, "CLAUDE_CODE_MAX_OUTPUT_TOKENS") ?? merged.maxTokens ?? 0,
    ...modelOptionsOf(flags, env),
    subagentModel: envValue(env, "CLAUDE_CODE_SUBAGENT_MODEL"),
    smallFastModel: envValue(env, "ANTHROPIC_SMALL_FAST_MODEL") ??
      (provider === "anthropic" ? resolveModel("haiku", aliases) : model),
    ...availableModelsOf(layers),
    maxRetries: positiveInt(env, "CLAUDE_CODE_MAX_RETRIES"),
    structuredOutputAttempts: positiveInt(env, "MAX_STRUCTURED_OUTPUT_RETRIES") || 5,
    anthropic: {
      apiKey: envValue(env, "BLADE_API_KEY") ?? envValue(env, "ANTHROPIC_API_KEY"),
      ...anthropicKeySource(env),
      ...(envValue(env, "ANTHROPIC_AUTH_TOKEN") === undefined
        ? {}
        : { authToken: envValue(env, "ANTHROPIC_AUTH_TOKEN")! }),
      headers: customHeaders(envValue(env, "ANTHROPIC_CUSTOM_HEADERS")),
      baseUrl: envValue(env, "BLADE_BASE_URL") ?? envValue(env, "ANTHROPIC_BASE_URL") ??
        "https://api.anthropic.com",
    },
    openai: {
      apiKey: envValue(env, "OPENAI_API_KEY"),
      baseUrl: env.get("OPENAI_BASE_URL") ?? "https://api.openai.com/v1",
    },
    debug: flags.debug === true || env.get("BLADE_DEBUG") === "1",
    // Any layer may require it; none may lift another's requirement.
    requireSandbox: flags.requireSandbox === true || layers.user.sandbox?.required === true ||
      layers.project.sandbox?.required === true || sandboxRequired(env.get("BLADE_REQUIRE_SANDBOX")),
    // The user's own settings only: a project file must not send the records elsewhere.
    store: flags.store ?? layers.user.store,
    storeCreds: flags.storeCreds ?? layers.user.storeCreds,
  };
}

/** The request options Claude Code's flags and variables set: effort, betas, thinking and its budget. */
function modelOptionsOf(
  flags: ConfigFlags,
  env: Env,
): Pick<ResolvedConfig, "effort" | "betas" | "thinking" | "thinkingBudget"> {
  return {
    effort: effortOf(flags.effort, env),
    betas: (flags.betas ?? []).flatMap((b) => b.split(",")).map((b) => b.trim()).filter((b) => b !== ""),
    thinking: {
      ...(flags.thinking?.mode === undefined ? {} : { mode: flags.thinking.mode }),
      ...(flags.thinking?.display === undefined ? {} : { display: flags.thinking.display }),
    },
    thinkingBudget: flags.thinking?.budget ?? positiveInt(env, "MAX_THINKING_TOKENS"),
  };
}

/** Blade's settings, then `--settings`, then Claude Code's files: the first that names a list. */
function availableModelsOf(
  layers: Parameters<typeof resolveConfig>[0],
): { availableModels?: readonly string[] } {
  const list = layers.project.availableModels ?? layers.user.availableModels ??
    layers.settingsFlag?.availableModels ?? layers.claude?.availableModels;
  return list === undefined ? {} : { availableModels: list };
}

/** ANTHROPIC_DEFAULT_{SONNET,OPUS,HAIKU,FABLE}_MODEL: what the aliases stand for. */
function aliasOverrides(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const alias of ["sonnet", "opus", "haiku", "fable"]) {
    const v = envValue(env, `ANTHROPIC_DEFAULT_${alias.toUpperCase()}_MODEL`);
    if (v !== undefined) out[alias] = v;
  }
  return out;
}

/** `Name: value` per line (Claude Code's ANTHROPIC_CUSTOM_HEADERS); a line without a colon is an error. */
export function customHeaders(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of (text ?? "").split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "") continue;
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).trim();
    if (colon <= 0 || !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) {
      throw new BladeError(
        "config_invalid",
        `ANTHROPIC_CUSTOM_HEADERS: "${line.slice(0, 60)}" is not a header.`,
        {
          hint: "Give one `Name: value` per line.",
        },
      );
    }
    out[name.toLowerCase()] = line.slice(colon + 1).trim();
  }
  return out;
}

function anthropicKeySource(env: Env): { apiKeySource?: string } {
  for (const name of ["BLADE_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"]) {
    if (envValue(env, name) !== undefined) return { apiKeySource: name };
  }
  return {};
}

/** Names of every secret value in the config, for redaction. */
export function secretsOf(config: ResolvedConfig): string[] {
  const headerSecrets = Object.entries(config.anthropic.headers)
    .filter(([name]) => /auth|key|token|secret/i.test(name)).map(([, value]) => value);
  return [config.anthropic.apiKey, config.anthropic.authToken, config.openai.apiKey, ...headerSecrets].filter(
    (
      s,
    ): s is string => s !== undefined && s.length >= 4,
  );
}

export { redactor } from "./redact.ts";
