// Owns one streaming HTTP attempt shared by the HTTP providers: POST the body, bound the wait for
// response headers (request timeout) and for each body chunk (stream-idle timeout), honour
// cancellation promptly. Does not own classifying failures (http_failure.ts), retries (retry.ts) or
// what the events mean (each provider).

import type { Clock } from "../sys/clock.ts";
import { profileMark } from "../sys/profile.ts";
import { connectFailure, describeCauses, statusFailure } from "./http_failure.ts";
import type { AttemptFailure } from "./retry.ts";
import { SseDecoder, type SseEvent } from "./sse.ts";

export interface SseRequest {
  /** Used in messages and debug lines, e.g. "Anthropic API". */
  label: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  fetch: typeof fetch;
  clock: Clock;
  signal: AbortSignal | undefined;
  requestTimeoutMs: number;
  streamIdleTimeoutMs: number;
  debug: ((line: string) => void) | undefined;
}

export type SseItem = { type: "sse"; event: SseEvent } | { type: "failed"; failure: AttemptFailure };

/**
 * The events of one streaming POST. Ends after the last event of a cleanly closed body, or with one
 * `failed` item. Never throws. Stopping early releases the connection.
 */
export async function* requestSse(request: SseRequest): AsyncGenerator<SseItem> {
  const { label, clock } = request;
  using control = new AttemptControl(request);
  const started = clock.now();
  let response: Response;
  control.arm(request.requestTimeoutMs, "request_timeout");
  profileMark("request sent");
  try {
    response = await control.race(request.fetch(request.url, {
      method: "POST",
      headers: request.headers,
      body: request.body,
      signal: control.signal,
    }));
  } catch (error) {
    yield { type: "failed", failure: control.failure(error, "connect") };
    return;
  } finally {
    control.disarm();
  }
  request.debug?.(`${label}: HTTP ${response.status} after ${clock.now() - started} ms`);
  if (!response.ok) {
    const body = await control.readErrorBody(response);
    yield { type: "failed", failure: statusFailure(response, { label, body, now: clock.now() }) };
    return;
  }
  if (response.body === null) {
    yield {
      type: "failed",
      failure: { kind: "stream", summary: `${label} sent an empty body`, retryable: true },
    };
    return;
  }
  profileMark("response headers");
  const reader = response.body.getReader();
  const decoder = new SseDecoder();
  try {
    while (true) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      control.arm(request.streamIdleTimeoutMs, "idle_timeout");
      try {
        chunk = await control.race(reader.read());
      } catch (error) {
        yield { type: "failed", failure: control.failure(error, "body") };
        return;
      } finally {
        control.disarm();
      }
      if (chunk.done) {
        profileMark("response end");
        for (const event of decoder.end()) yield { type: "sse", event };
        return;
      }
      for (const event of decoder.push(chunk.value)) yield { type: "sse", event };
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

type Cause = "aborted" | "request_timeout" | "idle_timeout";

const MAX_ERROR_BODY = 16 * 1024;

/** One attempt's abort controller: fired by the caller's signal or by the current timer. */
class AttemptControl implements Disposable {
  #request: SseRequest;
  #controller = new AbortController();
  #cause: Cause | undefined;
  #cancelTimer: (() => void) | undefined;
  #timerMs = 0;
  #onUserAbort = () => this.#abort("aborted");

  constructor(request: SseRequest) {
    this.#request = request;
    if (request.signal?.aborted) this.#abort("aborted");
    else request.signal?.addEventListener("abort", this.#onUserAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Fire `cause` unless disarmed within `ms`. Zero, negative or infinite `ms` means no limit. */
  arm(ms: number, cause: Cause): void {
    this.disarm();
    if (!(ms > 0 && Number.isFinite(ms))) return;
    this.#timerMs = ms;
    // A watchdog over the fetch or read in flight (which keeps the process alive, not the timer).
    this.#cancelTimer = this.#request.clock.timer(ms, () => this.#abort(cause));
  }

  disarm(): void {
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
  }

  /** Settles like `promise`, or rejects as soon as the attempt is aborted. */
  race<T>(promise: Promise<T>): Promise<T> {
    const signal = this.#controller.signal;
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
      promise.then(
        (value) => (signal.removeEventListener("abort", onAbort), resolve(value)),
        (error) => (signal.removeEventListener("abort", onAbort), reject(error)),
      );
    });
  }

  failure(error: unknown, phase: "connect" | "body"): AttemptFailure {
    const { label } = this.#request;
    switch (this.#cause) {
      case "aborted":
        return { kind: "aborted", summary: `${label} request was cancelled`, retryable: false };
      case "request_timeout":
        return {
          kind: "timeout",
          summary: `${label} sent no response within ${this.#timerMs} ms (request timeout)`,
          retryable: true,
        };
      case "idle_timeout":
        return {
          kind: "timeout",
          summary: `${label} stream sent nothing for ${this.#timerMs} ms (stream idle timeout)`,
          retryable: true,
        };
      case undefined:
        return phase === "connect" ? connectFailure(error, this.#request) : {
          kind: "stream",
          summary: `${label} connection failed mid-stream`,
          detail: describeCauses(error),
          retryable: true,
        };
    }
  }

  /** The start of an error body, within the idle timeout; "" when it cannot be read. */
  async readErrorBody(response: Response): Promise<string> {
    if (response.body === null) return "";
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let text = "";
    try {
      while (text.length < MAX_ERROR_BODY) {
        this.arm(this.#request.streamIdleTimeoutMs, "idle_timeout");
        const chunk = await this.race(reader.read());
        if (chunk.done) break;
        text += decoder.decode(chunk.value, { stream: true });
      }
    } catch {
      // The status line already says what failed; a body we cannot read adds nothing.
    } finally {
      this.disarm();
      reader.cancel().catch(() => {});
    }
    return text;
  }

  [Symbol.dispose](): void {
    this.disarm();
    this.#request.signal?.removeEventListener("abort", this.#onUserAbort);
  }

  #abort(cause: Cause): void {
    if (this.#controller.signal.aborted) return;
    this.#cause = cause;
    this.#controller.abort(new DOMException(cause, "AbortError"));
  }
}
