// Owns the OpenAI-compatible chat-completions provider: POST {baseUrl}/chat/completions with
// `stream: true` and usage in the stream, so OpenAI and local servers (llama.cpp, vLLM, Ollama, LM
// Studio) work. Does not own the wire translation (openai_wire.ts), the chunk folding
// (openai_stream.ts) or retries and timeouts (http_provider.ts).

import type { Provider } from "../protocol/provider.ts";
import { type HttpEndpoint, httpProvider, type HttpProviderOptions } from "./http_provider.ts";
import { OpenAiStream } from "./openai_stream.ts";
import { openAiRequestBody, type OpenAiWireOptions } from "./openai_wire.ts";

export interface OpenAiProviderOptions extends HttpProviderOptions, OpenAiWireOptions {
  /** Including the `/v1` suffix. Default `https://api.openai.com/v1`. */
  baseUrl?: string;
  /** Optional: local servers usually need none. */
  apiKey?: string;
}

/** Where a request goes and with which headers (the key's among them): the provider's and a Worker child's proxy's. */
export function openAiEndpoint(options: Pick<OpenAiProviderOptions, "baseUrl" | "apiKey">): HttpEndpoint {
  const base = (options.baseUrl ?? "https://api.openai.com/v1").replace(/\/+$/, "");
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "accept": "text/event-stream",
  };
  const hasKey = options.apiKey !== undefined && options.apiKey !== "";
  if (hasKey) headers["authorization"] = `Bearer ${options.apiKey}`;
  return { url: `${base}/chat/completions`, headers, secretHeaders: hasKey ? ["authorization"] : [] };
}

export function openAiProvider(options: OpenAiProviderOptions): Provider {
  return httpProvider({
    name: "openai",
    label: "OpenAI-compatible API",
    ...openAiEndpoint(options),
    body: (request) => openAiRequestBody(request, options),
    folder: () => new OpenAiStream(),
  }, options);
}
