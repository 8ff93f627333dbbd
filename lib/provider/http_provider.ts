// Owns the shell the HTTP providers share: each attempt announces itself, sends one streaming POST
// (sse_request.ts), folds the events with the provider's own folder, and the attempts run under the
// retry loop (retry.ts). Does not own any wire format: anthropic.ts and openai.ts supply those.

import type { Usage } from "../protocol/messages.ts";
import type { ModelRequest, Provider, ProviderEvent, StreamOptions } from "../protocol/provider.ts";
import type { Clock } from "../sys/clock.ts";
import { type AttemptBudget, type AttemptEvent, type RetryOptions, withRetries } from "./retry.ts";
import { displayUrl } from "./http_failure.ts";
import type { SseEvent } from "./sse.ts";
import { requestSse } from "./sse_request.ts";

/** Folds one attempt's SSE events into provider events; `end()` is called when the body closes. */
export interface EventFolder {
  readonly usage: Usage;
  apply(event: SseEvent): AttemptEvent[];
  end(): AttemptEvent[];
}

/** The options every HTTP provider takes. */
export interface HttpProviderOptions {
  clock: Clock;
  /** Default: the global fetch. A child Worker's goes through the main thread (child/proxy_fetch.ts). */
  fetch?: typeof fetch;
  /** Longest wait for response headers. Default 600000 ms. */
  requestTimeoutMs?: number;
  /** Longest silence while streaming the body. Default 300000 ms. */
  streamIdleTimeoutMs?: number;
  retry?: RetryOptions;
  /** The stall limit of one request, retries included (retry.ts `stallLimitMs`). Default: none. */
  stallTimeoutMs?: number;
  /** Receives request and timing lines; never the API key. */
  debug?: (line: string) => void;
}

/** Where a provider's requests go, with which headers. */
export interface HttpEndpoint {
  url: string;
  headers: Record<string, string>;
  /** Header names whose values are secrets (listed as redacted in debug lines). */
  secretHeaders: string[];
}

export interface HttpProviderSpec extends HttpEndpoint {
  name: string;
  label: string;
  body(request: ModelRequest): unknown;
  /** Headers that depend on the request's body (Anthropic's `anthropic-beta`). */
  requestHeaders?(body: unknown): Record<string, string>;
  folder(): EventFolder;
}

export function httpProvider(spec: HttpProviderSpec, options: HttpProviderOptions): Provider {
  const { clock, debug } = options;
  const { label, url } = spec;
  const shownUrl = displayUrl(url);
  const redacted = spec.secretHeaders.map((h) => `${h}: [redacted]`).join(", ");

  async function* attempt(
    request: ModelRequest,
    n: number,
    o: { budget: AttemptBudget; signal?: AbortSignal | undefined },
  ): AsyncGenerator<AttemptEvent> {
    const { signal } = o;
    // No wait of this attempt outlasts what is left of the request's stall limit.
    const capped = (ms: number) => Math.max(1, Math.min(ms, o.budget.remainingMs ?? ms));
    yield { type: "request_started", attempt: n };
    const built = spec.body(request);
    const body = JSON.stringify(built);
    debug?.(
      `${label}: POST ${shownUrl} model=${request.model} messages=${request.messages.length} ` +
        `tools=${request.tools.length} chars=${body.length} attempt=${n}` +
        (redacted ? ` (${redacted})` : ""),
    );
    const started = clock.now();
    const folder = spec.folder();
    const sse = requestSse({
      label,
      url,
      headers: { ...spec.headers, ...spec.requestHeaders?.(built) },
      body,
      fetch: options.fetch ?? fetch,
      clock,
      signal,
      requestTimeoutMs: capped(options.requestTimeoutMs ?? 600_000),
      streamIdleTimeoutMs: capped(options.streamIdleTimeoutMs ?? 300_000),
      debug,
    });
    for await (const item of sse) {
      const events = item.type === "failed"
        ? [{ type: "attempt_failed", failure: item.failure, usage: folder.usage } as const]
        : folder.apply(item.event);
      if (yield* forward(events)) return;
    }
    yield* forward(folder.end());

    function* forward(events: AttemptEvent[]): Generator<AttemptEvent, boolean> {
      for (const event of events) {
        if (event.type === "done") {
          debug?.(
            `${label}: done after ${clock.now() - started} ms stop=${event.stopReason} ` +
              `input_tokens=${event.usage.inputTokens} output_tokens=${event.usage.outputTokens}`,
          );
        }
        yield event;
        if (event.type === "attempt_failed" || event.type === "done" || event.type === "error") return true;
      }
      return false;
    }
  }

  return {
    name: spec.name,
    stream(request: ModelRequest, streamOptions: StreamOptions = {}): AsyncIterable<ProviderEvent> {
      const { signal } = streamOptions;
      return withRetries((n, budget) => attempt(request, n, { budget, signal }), {
        clock,
        label,
        signal,
        retry: options.retry,
        debug,
        stallLimitMs: options.stallTimeoutMs,
      });
    },
  };
}
