// Owns turning a serialisable ProviderConfig into a Provider, importing only the provider needed.
// The same config builds the parent's provider and, inside a child's Worker, the child's own.

import type { Provider } from "../protocol/provider.ts";
import type { Clock } from "../sys/clock.ts";
import type { Script } from "./script_schema.ts";

interface HttpSettings {
  baseUrl: string;
  /** Retries after the first attempt (CLAUDE_CODE_MAX_RETRIES). */
  maxRetries?: number;
  requestTimeoutMs?: number;
  streamIdleTimeoutMs?: number;
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
    /** Extended thinking budget (MAX_THINKING_TOKENS). */
    thinkingBudget?: number;
  } & HttpSettings)
  | ({ kind: "openai"; apiKey?: string } & HttpSettings)
  | { kind: "scripted"; script: Script };

export async function providerFromConfig(
  config: ProviderConfig,
  options: { clock: Clock; debug?: (line: string) => void },
): Promise<Provider> {
  const { fallbackModel, ...base } = config;
  const made = await baseProvider(base, options);
  if (fallbackModel === undefined) return made;
  const { withFallbackModel } = await import("./fallback.ts");
  return withFallbackModel(made, fallbackModel);
}

async function baseProvider(
  config: BaseProviderConfig,
  options: { clock: Clock; debug?: (line: string) => void },
): Promise<Provider> {
  const common = {
    clock: options.clock,
    ...(options.debug === undefined ? {} : { debug: options.debug }),
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

/** `host:port` of the provider's endpoint, for a child's network grant (none for scripted). */
export function providerHosts(config: ProviderConfig): string[] {
  if (config.kind === "scripted") return [];
  const url = new URL(config.baseUrl);
  const port = url.port !== "" ? url.port : url.protocol === "http:" ? "80" : "443";
  return [`${url.hostname}:${port}`];
}
