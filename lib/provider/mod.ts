// Owns the provider folder's public face, kept light: types, the provider names, and lazy loaders so
// the CLI imports only the provider a command uses (docs/reference/performance.md: start-up cost). Does not import any
// provider implementation eagerly; in particular never yaml or zod.

export type { AnthropicProviderOptions } from "./anthropic.ts";
export type { OpenAiProviderOptions } from "./openai.ts";
export type { ScriptedProviderOptions } from "./scripted.ts";
export type { Script } from "./script_schema.ts";
export type { RetryOptions } from "./retry.ts";
export type { HttpProviderOptions } from "./http_provider.ts";

export const PROVIDER_NAMES = ["anthropic", "openai", "scripted"] as const;
export type ProviderName = typeof PROVIDER_NAMES[number];

/** Each provider's module, loaded on first use. */
export const providerModules = {
  anthropic: () => import("./anthropic.ts"),
  openai: () => import("./openai.ts"),
  scripted: () => import("./scripted.ts"),
} as const satisfies Record<ProviderName, () => Promise<unknown>>;
