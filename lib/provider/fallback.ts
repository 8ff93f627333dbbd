// Owns `--fallback-model`: a provider that, when a request still fails as overloaded (529 /
// overloaded_error) after its retries and nothing of the answer was streamed yet, sends the same request
// to the fallback model, and keeps sending that model's later requests to the fallback. The switch is announced as
// a retry event naming both models. Does not retry on its own (retry.ts does, inside each provider).

import type { ModelRequest, Provider, ProviderEvent, StreamOptions } from "../protocol/provider.ts";

export function withFallbackModel(inner: Provider, fallback: string): Provider {
  // The models found overloaded: their later requests go straight to the fallback.
  const switched = new Set<string>();
  return {
    name: inner.name,
    async *stream(request: ModelRequest, options?: StreamOptions): AsyncIterable<ProviderEvent> {
      if (switched.has(request.model) || request.model === fallback) {
        yield* inner.stream({ ...request, model: fallback }, options);
        return;
      }
      let streamed = false;
      for await (const event of inner.stream(request, options)) {
        if (event.type === "text_delta" || event.type === "tool_call") streamed = true;
        if (
          event.type === "error" && event.error.kind === "overloaded" && !streamed &&
          !options?.signal?.aborted
        ) {
          switched.add(request.model);
          yield {
            type: "retry",
            attempt: (event.error.attempts ?? 1) + 1,
            delayMs: 0,
            reason: `${request.model} is overloaded; switching to the fallback model ${fallback}`,
          };
          yield* inner.stream({ ...request, model: fallback }, options);
          return;
        }
        yield event;
      }
    },
  };
}
