// Owns turning a serialisable ProviderConfig into a Provider, importing only the provider needed.
// The same config builds the parent's provider and, inside a child's Worker, the child's own.

import type { Provider } from "../protocol/provider.ts";
import type { Clock } from "../sys/clock.ts";
import type { Script } from "./script_schema.ts";
import type { HttpEndpoint } from "./http_provider.ts";
import type { AnthropicModelOptions } from "./anthropic_wire.ts";

interface HttpSettings {
  baseUrl: string;
  /** Retries after the first attempt (CLAUDE_CODE_MAX_RETRIES). */
  maxRetries?: number;
  requestTimeoutMs?: number;
  streamIdleTimeoutMs?: number;
  /** The stall limit: the longest one request may go without a result, retries included. */
  stallTimeoutMs?: number;
}

/** Plain data: safe to send to a Worker. */
export type ProviderConfig = BaseProviderConfig & {
  /** `--fallback-model`: an overloaded request switches to this model (fallback.ts). */
  fallbackModel?: string;
};

type BaseProviderConfig =
  | ({
    kind: "anthropic";
    apiKey?: string;
    /** Sent as `Authorization: Bearer` (ANTHROPIC_AUTH_TOKEN). */
    authToken?: string;
    /** Extra headers for every request (ANTHROPIC_CUSTOM_HEADERS). */
    headers?: Record<string, string>;
    /** Thinking budget (MAX_THINKING_TOKENS) of the models that think on a budget. */
    thinkingBudget?: number;
    /** The run's thinking choice and effort (plain data: it travels to Worker children). */
    model?: AnthropicModelOptions;
    /** `--betas`. */
    betas?: string[];
  } & HttpSettings)
  | ({ kind: "openai"; apiKey?: string } & HttpSettings)
  | { kind: "scripted"; script: Script };

export async function providerFromConfig(
  config: ProviderConfig,
  options: ProviderOptions,
): Promise<Provider> {
  const { fallbackModel, ...base } = config;
  const made = await baseProvider(base, options);
  if (fallbackModel === undefined) return made;
  const { withFallbackModel } = await import("./fallback.ts");
  return withFallbackModel(made, fallbackModel);
}

interface ProviderOptions {
  clock: Clock;
  debug?: (line: string) => void;
  /** Default: the global fetch (a child Worker's: child/proxy_fetch.ts). */
  fetch?: typeof fetch;
}

async function baseProvider(config: BaseProviderConfig, options: ProviderOptions): Promise<Provider> {
  const common = {
    clock: options.clock,
    ...(options.debug === undefined ? {} : { debug: options.debug }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  };
  switch (config.kind) {
    case "anthropic": {
      const { anthropicProvider } = await import("./anthropic.ts");
      const { kind: _, maxRetries, ...rest } = config;
      return anthropicProvider({
        ...rest,
        ...common,
        ...(maxRetries === undefined ? {} : { retry: { maxRetries } }),
      });
    }
    case "openai": {
      const { openAiProvider } = await import("./openai.ts");
      const { kind: _, maxRetries, ...rest } = config;
      return openAiProvider({
        ...rest,
        ...common,
        ...(maxRetries === undefined ? {} : { retry: { maxRetries } }),
      });
    }
    case "scripted": {
      const { scriptedProvider } = await import("./scripted.ts");
      return scriptedProvider(config.script, { clock: options.clock });
    }
    default: {
      const never: never = config;
      return never;
    }
  }
}

/** Where the config's requests go, with its headers (credentials included); undefined for scripted. */
export async function providerEndpoint(config: ProviderConfig): Promise<HttpEndpoint | undefined> {
  switch (config.kind) {
    case "anthropic":
      return (await import("./anthropic.ts")).anthropicEndpoint(config);
    case "openai":
      return (await import("./openai.ts")).openAiEndpoint(config);
    case "scripted":
      return undefined;
  }
}

/**
 * A child's limits (docs/reference/limits.md): the run's request and stream-idle timeouts and stall
 * limit, with `stallMs` (subagentStallTimeoutMs) as a further bound on both the idle timeout and the
 * whole wait of one request, retries included (retry.ts). The scripted provider never stalls.
 */
export function withStallTimeout(config: ProviderConfig, stallMs: number): ProviderConfig {
  if (config.kind === "scripted") return config;
  return {
    ...config,
    streamIdleTimeoutMs: Math.min(config.streamIdleTimeoutMs ?? DEFAULT_IDLE_MS, stallMs),
    stallTimeoutMs: Math.min(config.stallTimeoutMs ?? stallMs, stallMs),
  };
}

/** The HTTP providers' default stream-idle timeout (http_provider.ts). */
const DEFAULT_IDLE_MS = 300_000;

/**
 * The config without what authenticates it (API key, auth token, custom headers): what a child
 * Worker gets. Its requests go through the main thread, which adds them (child/child_fetch.ts).
 */
export function withoutCredentials(config: ProviderConfig): ProviderConfig {
  if (config.kind === "scripted") return config;
  if (config.kind === "openai") {
    const { apiKey: _, ...rest } = config;
    return rest;
  }
  const { apiKey: _k, authToken: _t, headers: _h, ...rest } = config;
  return rest;
}
