// Owns how Blade's calls to a NATS cluster are tried again (docs/guides/remote.md): which errors leave
// the cluster able to answer a retry (a node died, a leader is being elected, the servers have just
// started), the pause between tries, and how long opening a bucket, stream, queue or object store
// keeps trying before it fails with `store_unavailable`. No open that failed is ever taken for a
// missing bucket or stream. nats_link.ts wraps every client call in these.

import { BladeError } from "../errors.ts";
import type { Clock } from "../sys/clock.ts";
// Types only (erased): the client's code is imported by nats_link.ts on first connect.
import type { JetStreamManager } from "@nats-io/jetstream";

/**
 * Errors after which the cluster may answer again (a node died, a new leader is being elected, the
 * servers have just started). "jetstream is not enabled" is what the client makes of a JetStream
 * request nobody answered: servers that have not yet set JetStream up (a cluster forming) say nothing.
 */
const TRANSIENT = new Set([
  "TimeoutError",
  "NoRespondersError",
  "RequestError",
  "ConnectionError",
  "JetStreamNotEnabled",
]);

/** The messages of those errors when the client names them otherwise (10008: the system account not ready). */
const TRANSIENT_MESSAGE = /\b(timeout|no responders|503)\b|temporarily unavailable/i;

/**
 * What a JetStream cluster that is forming answers to an open, beyond a transient error: too few peers
 * known yet to place three replicas.
 */
const SETTLING_MESSAGE = /no suitable peers|insufficient resources/i;

/** How many times an idempotent call (get, put, keys) is tried before the error is the caller's. */
const TRIES = 12;

/**
 * How long opening a bucket, stream, queue or object store keeps trying while the cluster answers
 * only transient errors (a fresh cluster electing its leaders under load, a node restarting); then
 * `store_unavailable`.
 */
export const OPEN_WITHIN_MS = 30_000;

/** How a connection waits: its clock, and how long an open keeps trying. */
export interface Patience {
  clock: Clock;
  openWithinMs: number;
  /** How long one read through a consumer may take before it is given up (`within`); default 60 s. */
  readWithinMs?: number;
}

/** The pause before retry `attempt` (1, 2, …): 100 ms doubling, at most 1 s. */
function backoff(attempt: number): number {
  return Math.min(50 * 2 ** attempt, 1000);
}

/**
 * Whether `error` left the outcome of a write unknown and the cluster may answer a retry: a request
 * that timed out may still have been applied, so a writer re-reads before it writes again.
 */
export function isTransient(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return TRANSIENT.has(error.name) || TRANSIENT_MESSAGE.test(error.message);
}

/** Whether an open that failed with `error` may succeed later (`opening` keeps trying). */
function isSettling(error: unknown): boolean {
  return isTransient(error) || (error instanceof Error && SETTLING_MESSAGE.test(error.message));
}

/**
 * The pause after the `attempt`th transient failure (1, 2, …) of a write that is tried again. A write
 * loop must pause: a cluster without a leader answers at once, and unpaused tries are spent in
 * milliseconds — long before a new leader is elected.
 */
export function pauseAfter(clock: Clock, attempt: number): Promise<void> {
  return clock.sleep(backoff(attempt));
}

/** A call the servers never settled within its bound: transient (a retry may be answered). */
export class StalledCall extends Error {
  constructor(what: string, ms: number) {
    super(`${what}: no answer within ${ms / 1000} s (timeout)`);
    this.name = "TimeoutError";
  }
}

/**
 * `call()`, or StalledCall when it has not settled within `ms`. For the client's calls that have no
 * timeout of their own — those read through a consumer (an object's chunks, a bucket's keys, a
 * pull from the work queue): a consumer whose server died or whose leader moved can leave them
 * waiting for good, and a job waiting on one would sit forever under a lease its worker renews.
 * The call itself is abandoned, not stopped (what it still delivers is unused).
 */
export function within<T>(call: () => Promise<T>, o: { clock: Clock; ms: number; what: string }): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const cancel = o.clock.timer(o.ms, () => reject(new StalledCall(o.what, o.ms)));
    call().then(resolve, reject).finally(cancel);
  });
}

/** Calls `call` (idempotent) again after a transient error, at most TRIES times, pausing between. */
export async function retried<T>(clock: Clock, call: () => Promise<T>): Promise<T> {
  for (let attempt = 1;; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= TRIES || !isTransient(error)) throw error;
      await pauseAfter(clock, attempt);
    }
  }
}

/**
 * Opens `what` with `call` (idempotent: it opens what exists, creates what does not), tried again
 * while the cluster answers transient errors, for at most OPEN_WITHIN_MS. A failed open is never
 * taken for a missing bucket or stream, and never left to a later call to find.
 */
export async function opening<T>(
  patience: Patience,
  o: { what: string; open: () => Promise<T> },
): Promise<T> {
  const { clock, openWithinMs } = patience;
  const { what, open: call } = o;
  const deadline = clock.now() + openWithinMs;
  for (let attempt = 1;; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!isSettling(error)) throw error;
      if (clock.now() >= deadline) {
        throw new BladeError(
          "store_unavailable",
          `Could not open ${what} in the NATS store within ${openWithinMs / 1000} s: ${
            (error as Error).message
          }`,
          {
            hint:
              "Check that the servers run with JetStream (-js) and, on a cluster, that a majority of them are up and see each other.",
          },
        );
      }
      await pauseAfter(clock, attempt);
    }
  }
}

/** JetStream's "consumer not found" and "stream not found" API errors. */
const NOT_FOUND = new Set([10014, 10059]);

function isNotFound(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const api = error as { message?: unknown; apiError?: () => { err_code?: number } };
  if (typeof api.apiError === "function" && NOT_FOUND.has(api.apiError()?.err_code ?? 0)) return true;
  return typeof api.message === "string" && /(stream|consumer) not found/i.test(api.message);
}

/**
 * Whether what `lookup` asks about (a stream's or a consumer's info) exists. Only "not found" is no:
 * any other failure (a leader being elected, a cluster forming) is thrown — never taken for absence,
 * which would make it again with this client's settings — and tried again by the caller's `opening`.
 */
export async function exists(lookup: () => Promise<unknown>): Promise<boolean> {
  try {
    await lookup();
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

/**
 * `open()` when `exists()`, else `create()`; a create that fails because another client made it
 * meanwhile (its identical one) opens that one.
 */
export async function openOrCreate<T>(
  o: { exists: () => Promise<boolean>; open: () => Promise<T>; create: () => Promise<T> },
): Promise<T> {
  if (await o.exists()) return await o.open();
  try {
    return await o.create();
  } catch (error) {
    if (await o.exists()) return await o.open();
    throw error;
  }
}

/** Whether stream `name` exists (`exists`: only "not found" is no). */
export function streamExists(jsm: JetStreamManager, name: string): Promise<boolean> {
  return exists(() => jsm.streams.info(name));
}

/** Makes stream `name` with `config` unless it exists (a concurrent creator's identical one is fine). */
export async function ensureStream(
  jsm: JetStreamManager,
  name: string,
  config: Omit<Parameters<JetStreamManager["streams"]["add"]>[0], "name">,
): Promise<void> {
  await openOrCreate({
    exists: () => streamExists(jsm, name),
    open: async () => {},
    create: async () => void await jsm.streams.add({ ...config, name }),
  });
}
