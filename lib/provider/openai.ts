// Owns the OpenAI-compatible chat-completions provider: POST {baseUrl}/chat/completions with
// `stream: true` and usage in the stream, so OpenAI and local servers (llama.cpp, vLLM, Ollama, LM
// Studio) work. Does not own the wire translation (openai_wire.ts), the chunk folding
// (openai_stream.ts) or retries and timeouts (http_provider.ts).

import type { Provider } from "../protocol/provider.ts";
import { httpProvider, type HttpProviderOptions } from "./http_provider.ts";
import { OpenAiStream } from "./openai_stream.ts";
import { openAiRequestBody, type OpenAiWireOptions } from "./openai_wire.ts";

export interface OpenAiProviderOptions extends HttpProviderOptions, OpenAiWireOptions {
  /** Including the `/v1` suffix. Default `https://api.openai.com/v1`. */
  baseUrl?: string;
  /** Optional: local servers usually need none. */
  apiKey?: string;
}

export function openAiProvider(options: OpenAiProviderOptions): Provider {
  const base = (options.baseUrl ?? "https://api.openai.com/v1").replace(/\/+$/, "");
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "accept": "text/event-stream",
  };
  const hasKey = options.apiKey !== undefined && options.apiKey !== "";
  if (hasKey) headers["authorization"] = `Bearer ${options.apiKey}`;
  return httpProvider({
    name: "openai",
    label: "OpenAI-compatible API",
    url: `${base}/chat/completions`,
    headers,
    secretHeaders: hasKey ? ["authorization"] : [],
    body: (request) => openAiRequestBody(request, options),
    folder: () => new OpenAiStream(),
  }, options);
}
