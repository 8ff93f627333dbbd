// Owns the Anthropic Messages API provider: POST {baseUrl}/v1/messages with `stream: true`, plain fetch
// and our own SSE parsing (no SDK: cheaper start-up, docs/reference/performance.md). Does not own the wire translation
// (anthropic_wire.ts), the event folding (anthropic_stream.ts) or retries and timeouts (http_provider.ts).

import type { Provider } from "../protocol/provider.ts";
import { AnthropicStream } from "./anthropic_stream.ts";
import { type AnthropicModelOptions, anthropicRequestBody, betasOf } from "./anthropic_wire.ts";
import { type HttpEndpoint, httpProvider, type HttpProviderOptions } from "./http_provider.ts";

export interface AnthropicProviderOptions extends HttpProviderOptions {
  /** Without the `/v1` suffix. Default `https://api.anthropic.com`. */
  baseUrl?: string;
  /** Sent as `x-api-key`. */
  apiKey?: string;
  /** Sent as `Authorization: Bearer …` (gateways; Claude Code's ANTHROPIC_AUTH_TOKEN). */
  authToken?: string;
  /** Extra headers for every request (Claude Code's ANTHROPIC_CUSTOM_HEADERS); lower-case names. */
  headers?: Record<string, string>;
  /** MAX_THINKING_TOKENS: the budget of models that think on a budget (0 = off where allowed). */
  thinkingBudget?: number;
  /** The run's thinking choice and effort (Claude Code's flags; anthropic_wire.ts). */
  model?: AnthropicModelOptions;
  /** `--betas`: more `anthropic-beta` names for every request. */
  betas?: readonly string[];
}

export const ANTHROPIC_VERSION = "2023-06-01";

/** Where a request goes and with which headers (the key's among them): the provider's and a Worker child's proxy's. */
export function anthropicEndpoint(
  options: Pick<AnthropicProviderOptions, "baseUrl" | "apiKey" | "authToken" | "headers">,
): HttpEndpoint {
  const base = (options.baseUrl ?? "https://api.anthropic.com").replace(/\/+$/, "");
  return {
    url: `${base}/v1/messages`,
    headers: {
      ...options.headers,
      "content-type": "application/json",
      "accept": "text/event-stream",
      "anthropic-version": ANTHROPIC_VERSION,
      ...(options.apiKey === undefined ? {} : { "x-api-key": options.apiKey }),
      ...(options.authToken === undefined ? {} : { "authorization": `Bearer ${options.authToken}` }),
    },
    secretHeaders: [
      ...(options.apiKey === undefined ? [] : ["x-api-key"]),
      ...(options.authToken === undefined ? [] : ["authorization"]),
    ],
  };
}

export function anthropicProvider(options: AnthropicProviderOptions): Provider {
  return httpProvider({
    name: "anthropic",
    label: "Anthropic API",
    ...anthropicEndpoint(options),
    body: (request) =>
      anthropicRequestBody(request, { ...options.model, thinkingBudget: options.thinkingBudget }),
    // The beta features the body uses, as Claude Code sends them, and --betas.
    requestHeaders: (body) => {
      const betas = [
        ...new Set([...betasOf(body as ReturnType<typeof anthropicRequestBody>), ...options.betas ?? []]),
      ];
      return betas.length === 0 ? {} : { "anthropic-beta": betas.join(",") };
    },
    folder: () => new AnthropicStream(),
  }, options);
}
