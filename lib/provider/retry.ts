// Owns retrying model requests: which failures are worth another attempt, how long to wait (exponential
// backoff with full jitter, or the server's `retry-after`), and turning the last failure into the one
// terminal `error` event. Does not own HTTP or wire formats: an attempt reports an AttemptFailure.

import { describeError } from "../errors.ts";
import { emptyUsage, type Usage } from "../protocol/messages.ts";
import type { ProviderError, ProviderErrorKind, ProviderEvent } from "../protocol/provider.ts";
import type { Clock } from "../sys/clock.ts";

export interface RetryOptions {
  /** Retries after the first attempt (default 4, so at most 5 attempts). */
  maxRetries?: number;
  /** Backoff base: the n-th retry waits a random time in [0, min(maxDelayMs, baseDelayMs·2^(n-1))). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** A number in [0, 1); injectable for tests. */
  random?: () => number;
}

export type RetryPolicy = Required<RetryOptions>;

export function retryPolicy(options: RetryOptions = {}): RetryPolicy {
  return {
    maxRetries: options.maxRetries ?? 4,
    baseDelayMs: options.baseDelayMs ?? 500,
    maxDelayMs: options.maxDelayMs ?? 30_000,
    random: options.random ?? Math.random,
  };
}

/** The longest server-requested wait we honour; beyond it we wait this long. */
const RETRY_AFTER_CAP_MS = 60_000;

/** How long to wait before retry number `retry` (1 = the first retry). */
export function retryDelay(
  retry: number,
  options: { policy: RetryPolicy; retryAfterMs?: number | undefined },
): number {
  const { policy, retryAfterMs } = options;
  if (retryAfterMs !== undefined) {
    return Math.min(Math.max(0, retryAfterMs), Math.max(policy.maxDelayMs, RETRY_AFTER_CAP_MS));
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.floor(policy.random() * ceiling);
}

/** `retry-after-ms`, else `retry-after` in seconds or as an HTTP date; undefined when absent or bad. */
export function parseRetryAfter(headers: Headers, now: number): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "" && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const value = headers.get("retry-after")?.trim();
  if (value === undefined || value === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Why one attempt failed. The retry loop decides whether to try again and words the final error. */
export interface AttemptFailure {
  kind: ProviderErrorKind;
  /** What failed, e.g. `Anthropic API returned 500 Internal Server Error`. */
  summary: string;
  /** The server's own explanation, if any. */
  detail?: string;
  status?: number;
  /** The API's own error (`{error: {type, message}}`), as the response gave it. */
  api?: { type?: string; message?: string };
  retryable: boolean;
  retryAfterMs?: number;
}

/** What an attempt yields: provider events, or one `attempt_failed` as its last item. */
export type AttemptEvent = ProviderEvent | { type: "attempt_failed"; failure: AttemptFailure; usage: Usage };

export interface RetryRun {
  clock: Clock;
  /** Used in messages, e.g. "Anthropic API". */
  label: string;
  signal?: AbortSignal | undefined;
  retry?: RetryOptions | undefined;
  debug?: ((line: string) => void) | undefined;
  /**
   * The stall limit: the longest one request may take, retries and their waits included, before it
   * has a result. An attempt's timeouts are capped by what is left of it, and no attempt starts once
   * it is spent (so a stream that stalls is not waited on once per retry). Absent = no such limit.
   */
  stallLimitMs?: number | undefined;
}

/** What is left of the stall limit for one attempt (the attempt caps its timeouts by it). */
export interface AttemptBudget {
  /** Milliseconds left of the request's stall limit; undefined = no limit. */
  remainingMs: number | undefined;
}

/**
 * Runs attempts until one ends in `done` or `error`, a failure is final, retries run out, or the stall
 * limit is spent. Never retries once a text delta or tool call reached the consumer. Never throws:
 * always ends with exactly one `done` or `error` event.
 */
export async function* withRetries(
  attempt: (attemptNumber: number, budget: AttemptBudget) => AsyncIterable<AttemptEvent>,
  run: RetryRun,
): AsyncGenerator<ProviderEvent> {
  const policy = retryPolicy(run.retry);
  const started = run.clock.now();
  const remaining = (): number | undefined =>
    run.stallLimitMs === undefined ? undefined : run.stallLimitMs - (run.clock.now() - started);
  for (let n = 1;; n++) {
    if (run.signal?.aborted) {
      yield cancelled(run.label, n - 1, emptyUsage());
      return;
    }
    let delivered = false;
    let failed: { failure: AttemptFailure; usage: Usage } | undefined;
    try {
      for await (const event of attempt(n, { remainingMs: remaining() })) {
        if (event.type === "attempt_failed") {
          failed = { failure: event.failure, usage: event.usage };
          break;
        }
        if (event.type === "text_delta" || event.type === "tool_call") delivered = true;
        yield event;
        if (event.type === "done" || event.type === "error") return;
      }
    } catch (error) {
      const detail = describeError(error);
      failed = {
        failure: {
          kind: "stream",
          summary: `${run.label} request failed unexpectedly`,
          detail,
          retryable: false,
        },
        usage: emptyUsage(),
      };
    }
    failed ??= {
      failure: { kind: "stream", summary: `${run.label} stream ended without a result`, retryable: true },
      usage: emptyUsage(),
    };
    const { failure, usage } = failed;
    if (failure.kind === "aborted" || run.signal?.aborted) {
      yield cancelled(run.label, n, usage);
      return;
    }
    if (!failure.retryable || delivered || n > policy.maxRetries) {
      yield { type: "error", error: providerError(failure, n), stopReason: "error", usage };
      return;
    }
    const delayMs = retryDelay(n, { policy, retryAfterMs: failure.retryAfterMs });
    const left = remaining();
    if (left !== undefined && left <= delayMs) {
      // The stall limit bounds the whole wait: no retry that would start after it is spent.
      const spent = { ...failure, detail: stallDetail(failure.detail, run.stallLimitMs ?? 0) };
      yield { type: "error", error: providerError(spent, n), stopReason: "error", usage };
      return;
    }
    const reason = failure.detail === undefined ? failure.summary : `${failure.summary}: ${failure.detail}`;
    run.debug?.(`${run.label}: attempt ${n} failed (${reason}); retrying in ${delayMs} ms`);
    yield { type: "retry", attempt: n + 1, delayMs, reason };
    try {
      await run.clock.sleep(delayMs, run.signal);
    } catch {
      yield cancelled(run.label, n, usage);
      return;
    }
  }
}

function stallDetail(detail: string | undefined, limitMs: number): string {
  const spent = `no retry: the stall limit of ${limitMs} ms for one request, retries included, is spent`;
  return detail === undefined || detail === "" ? spent : `${detail} (${spent})`;
}

/** `<summary> after <n> attempts: <detail>`, the shape users and logs see. */
export function providerError(failure: AttemptFailure, attempts: number): ProviderError {
  let message = failure.summary;
  if (attempts > 1) message += ` after ${attempts} attempts`;
  if (failure.detail !== undefined && failure.detail !== "") message += `: ${failure.detail}`;
  const error: ProviderError = { kind: failure.kind, message, attempts };
  if (failure.status !== undefined) error.status = failure.status;
  if (failure.api !== undefined) error.api = failure.api;
  return error;
}

function cancelled(label: string, attempts: number, usage: Usage): ProviderEvent {
  return {
    type: "error",
    error: { kind: "aborted", message: `${label} request was cancelled`, attempts },
    stopReason: "aborted",
    usage,
  };
}
