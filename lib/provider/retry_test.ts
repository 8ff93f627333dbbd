import assert from "node:assert/strict";
import type { ProviderEvent } from "../protocol/provider.ts";
import type { Clock } from "../sys/clock.ts";
import { FakeClock } from "../testing/fakes.ts";
import {
  type AttemptEvent,
  type AttemptFailure,
  parseRetryAfter,
  providerError,
  retryDelay,
  retryPolicy,
  withRetries,
} from "./retry.ts";

/** A clock whose sleeps return at once and are recorded. */
function instantClock(): Clock & { sleeps: number[] } {
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => 0,
    sleep(ms, signal) {
      sleeps.push(ms);
      return signal?.aborted ? Promise.reject(signal.reason) : Promise.resolve();
    },
    timer: () => () => {},
  };
}

async function collect(events: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

const serverError: AttemptFailure = {
  kind: "server",
  summary: "Test API returned 500 Internal Server Error",
  detail: "api_error: boom",
  status: 500,
  retryable: true,
};

function failing(failure: AttemptFailure): AsyncIterable<AttemptEvent> {
  return (async function* () {
    yield { type: "request_started", attempt: 0 };
    yield { type: "attempt_failed", failure, usage: { inputTokens: 3, outputTokens: 0 } };
  })();
}

function succeeding(): AsyncIterable<AttemptEvent> {
  return (async function* () {
    yield { type: "text_delta", text: "ok" };
    yield {
      type: "done",
      message: { role: "assistant", content: [{ type: "text", text: "ok" }] },
      stopReason: "end_turn",
      usage: { inputTokens: 1, outputTokens: 1 },
    };
  })();
}

Deno.test("retryDelay: full jitter under an exponential ceiling capped at maxDelayMs", () => {
  const policy = retryPolicy({ baseDelayMs: 500, maxDelayMs: 3000, random: () => 0.5 });
  assert.deepEqual([1, 2, 3, 4, 5].map((n) => retryDelay(n, { policy })), [250, 500, 1000, 1500, 1500]);
  assert.equal(retryDelay(3, { policy: retryPolicy({ random: () => 0 }) }), 0);
  assert.equal(retryDelay(1, { policy: retryPolicy({ random: () => 0.999 }) }), 499);
});

Deno.test("retryDelay: a server's retry-after wins over backoff, capped at a minute", () => {
  const policy = retryPolicy({ random: () => 0.5 });
  assert.equal(retryDelay(1, { policy, retryAfterMs: 2000 }), 2000);
  assert.equal(retryDelay(4, { policy, retryAfterMs: 0 }), 0);
  assert.equal(retryDelay(1, { policy, retryAfterMs: 3_600_000 }), 60_000);
});

Deno.test("retryPolicy: defaults are 4 retries, 500 ms base, 30 s cap", () => {
  const { maxRetries, baseDelayMs, maxDelayMs } = retryPolicy();
  assert.deepEqual({ maxRetries, baseDelayMs, maxDelayMs }, {
    maxRetries: 4,
    baseDelayMs: 500,
    maxDelayMs: 30_000,
  });
});

Deno.test("parseRetryAfter: milliseconds, seconds and HTTP dates", () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);
  const h = (init: Record<string, string>) => new Headers(init);
  assert.equal(parseRetryAfter(h({ "retry-after-ms": "250" }), now), 250);
  assert.equal(parseRetryAfter(h({ "retry-after-ms": "250", "retry-after": "9" }), now), 250);
  assert.equal(parseRetryAfter(h({ "retry-after": "2" }), now), 2000);
  assert.equal(parseRetryAfter(h({ "retry-after": "1.5" }), now), 1500);
  assert.equal(parseRetryAfter(h({ "retry-after": "Thu, 01 Jan 2026 12:00:03 GMT" }), now), 3000);
  assert.equal(parseRetryAfter(h({ "retry-after": "Thu, 01 Jan 2026 11:00:00 GMT" }), now), 0);
  assert.equal(parseRetryAfter(h({ "retry-after": "soon" }), now), undefined);
  assert.equal(parseRetryAfter(h({ "retry-after-ms": "-5" }), now), undefined);
  assert.equal(parseRetryAfter(h({}), now), undefined);
});

Deno.test("withRetries: retries retryable failures, then yields the successful attempt", async () => {
  const clock = instantClock();
  let calls = 0;
  const events = await collect(withRetries(
    (n) => {
      calls++;
      if (n === 1) return failing(serverError);
      return n === 2 ? failing({ ...serverError, retryAfterMs: 1234 }) : succeeding();
    },
    { clock, label: "Test API", retry: { random: () => 0.5 } },
  ));
  assert.equal(calls, 3);
  assert.deepEqual(events.filter((e) => e.type === "retry"), [
    {
      type: "retry",
      attempt: 2,
      delayMs: 250,
      reason: "Test API returned 500 Internal Server Error: api_error: boom",
    },
    {
      type: "retry",
      attempt: 3,
      delayMs: 1234,
      reason: "Test API returned 500 Internal Server Error: api_error: boom",
    },
  ]);
  assert.deepEqual(clock.sleeps, [250, 1234]);
  assert.equal(events.at(-1)?.type, "done");
});

Deno.test("withRetries: gives up after maxRetries with what failed, attempts and last status", async () => {
  const clock = instantClock();
  const events = await collect(withRetries(() => failing(serverError), {
    clock,
    label: "Test API",
    retry: { maxRetries: 2, random: () => 0 },
  }));
  assert.equal(events.filter((e) => e.type === "retry").length, 2);
  assert.deepEqual(events.at(-1), {
    type: "error",
    error: {
      kind: "server",
      message: "Test API returned 500 Internal Server Error after 3 attempts: api_error: boom",
      status: 500,
      attempts: 3,
    },
    stopReason: "error",
    usage: { inputTokens: 3, outputTokens: 0 },
  });
});

Deno.test("withRetries: a final failure is not retried and its message has no attempt count", async () => {
  const events = await collect(withRetries(
    () =>
      failing({ kind: "auth", summary: "Test API returned 401 Unauthorized", status: 401, retryable: false }),
    { clock: instantClock(), label: "Test API" },
  ));
  assert.deepEqual(events.map((e) => e.type), ["request_started", "error"]);
  const last = events.at(-1);
  assert.equal(last?.type === "error" && last.error.message, "Test API returned 401 Unauthorized");
});

Deno.test("withRetries: never retries once a delta reached the consumer", async () => {
  let calls = 0;
  const events = await collect(withRetries(() => {
    calls++;
    return (async function* (): AsyncGenerator<AttemptEvent> {
      yield { type: "text_delta", text: "partial" };
      yield {
        type: "attempt_failed",
        failure: { ...serverError, kind: "stream" },
        usage: { inputTokens: 0, outputTokens: 0 },
      };
    })();
  }, { clock: instantClock(), label: "Test API" }));
  assert.equal(calls, 1);
  assert.deepEqual(events.map((e) => e.type), ["text_delta", "error"]);
});

Deno.test("withRetries: an attempt that throws becomes an error event, not a rejection", async () => {
  const events = await collect(withRetries(() => {
    return (async function* (): AsyncGenerator<AttemptEvent> {
      yield { type: "request_started", attempt: 1 };
      throw new Error("bug in a folder");
    })();
  }, { clock: instantClock(), label: "Test API" }));
  const last = events.at(-1);
  assert.equal(last?.type, "error");
  assert.match(last?.type === "error" ? last.error.message : "", /bug in a folder/);
});

Deno.test("withRetries: abort while waiting to retry ends with one aborted error", async () => {
  const clock = new FakeClock();
  const controller = new AbortController();
  const seen: ProviderEvent[] = [];
  for await (
    const event of withRetries(() => failing(serverError), {
      clock,
      label: "Test API",
      signal: controller.signal,
    })
  ) {
    seen.push(event);
    if (event.type === "retry") queueMicrotask(() => controller.abort());
  }
  assert.deepEqual(seen.map((e) => e.type), ["request_started", "retry", "error"]);
  const last = seen.at(-1);
  assert.equal(last?.type === "error" && last.stopReason, "aborted");
  assert.equal(last?.type === "error" && last.error.kind, "aborted");
  assert.equal(clock.pendingSleepers, 0);
});

Deno.test("providerError: keeps the status and counts attempts", () => {
  assert.deepEqual(providerError(serverError, 5), {
    kind: "server",
    message: "Test API returned 500 Internal Server Error after 5 attempts: api_error: boom",
    status: 500,
    attempts: 5,
  });
});

Deno.test("withRetries: the stall limit bounds the whole wait, retries and their waits included", async () => {
  let now = 0;
  const clock: Clock = {
    now: () => now,
    sleep: (ms) => {
      now += ms;
      return Promise.resolve();
    },
    timer: () => () => {},
  };
  const budgets: (number | undefined)[] = [];
  const stall: AttemptFailure = {
    kind: "timeout",
    summary: "Test API stream sent nothing for 1000 ms (stream idle timeout)",
    retryable: true,
  };
  const events = await collect(withRetries((_n, budget) => {
    budgets.push(budget.remainingMs);
    // The attempt stalls for its idle timeout (1000 ms), capped by what is left of the limit.
    now += Math.min(1000, budget.remainingMs ?? 1000);
    return failing(stall);
  }, { clock, label: "Test API", retry: { random: () => 0.5 }, stallLimitMs: 2500 }));
  // 1000 ms, a 250 ms wait, 1000 ms, a 500 ms wait: 2750 ms ≥ 2500, so no third attempt.
  assert.deepEqual(budgets, [2500, 1250]);
  const last = events.at(-1);
  assert.equal(last?.type, "error");
  assert.equal(
    last?.type === "error" ? last.error.message : "",
    "Test API stream sent nothing for 1000 ms (stream idle timeout) after 2 attempts: no retry: the stall " +
      "limit of 2500 ms for one request, retries included, is spent",
  );
});

Deno.test("withRetries: without a stall limit an attempt has no budget and retries run out as before", async () => {
  const budgets: (number | undefined)[] = [];
  const events = await collect(withRetries((_n, budget) => {
    budgets.push(budget.remainingMs);
    return failing(serverError);
  }, { clock: instantClock(), label: "Test API", retry: { maxRetries: 2 } }));
  assert.deepEqual(budgets, [undefined, undefined, undefined]);
  assert.equal(events.at(-1)?.type, "error");
});
