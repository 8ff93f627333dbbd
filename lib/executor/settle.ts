// Owns running a session until its background children have settled: the parent waits at the end of
// a turn and continues with their completions as a new turn (docs/reference/background.md). The shape
// of that background work (Delivery, PendingWork) is vocabulary in lib/protocol/delivery.ts.

import { addUsage, type Usage } from "../protocol/messages.ts";
import type { AgentLoop, RunResult, TurnInput } from "./loop.ts";
import type { Delivery, PendingWork } from "../protocol/delivery.ts";

export interface SettleOptions {
  signal: AbortSignal;
  /** Give up waiting for children after this long (print mode `--background-wait`); undefined = no limit. */
  waitLimitMs?: number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface SettledRun {
  /** The last turn's result. */
  result: RunResult;
  /** Tool calls, usage and duration summed over every turn of the run. */
  totals: { toolCalls: number; usage: Usage; durationMs: number };
  /** Turns run in total (1 + continuations). */
  turns: number;
  /** Children cancelled because the wait limit expired. */
  abandoned: string[];
}

/**
 * Delivery `next_turn`: when completion notices wait, runs one turn with them and returns its result;
 * undefined when none wait. Print mode calls it after each turn; the interactive session while idle.
 */
export async function deliverReady(
  loop: AgentLoop,
  pending: PendingWork,
  signal: AbortSignal,
  /** Called with the notices just before their turn starts (the interactive session shows them). */
  onDeliver?: (deliveries: readonly Delivery[]) => void,
): Promise<RunResult | undefined> {
  const deliveries = await pending.takeDeliveries();
  if (deliveries.length === 0) return undefined;
  onDeliver?.(deliveries);
  return await loop.run({ messages: [], deliveries }, signal);
}

/**
 * Runs one user turn, then — while this session's background children run or their notices wait —
 * waits and runs a continuation turn with the notices (delivery `next_turn`).
 */
export async function runUntilSettled(
  loop: AgentLoop,
  input: TurnInput,
  pending: PendingWork | undefined,
  options: SettleOptions,
): Promise<SettledRun> {
  // Notices an earlier run left undelivered (its children were cancelled, or it was killed) join this
  // turn ahead of the prompt: the printed answer is the prompt's, never a later turn on an old notice.
  const waiting = pending === undefined ? [] : await pending.takeDeliveries();
  const first = waiting.length === 0
    ? input
    : { ...input, deliveries: [...waiting, ...input.deliveries ?? []] };
  let result = await loop.run(first, options.signal);
  let turns = 1;
  const totals = { toolCalls: result.toolCalls, usage: result.usage, durationMs: result.durationMs };
  if (pending === undefined) return { result, totals, turns, abandoned: [] };
  const limit = new AbortController();
  const onAbort = () => limit.abort();
  options.signal.addEventListener("abort", onAbort, { once: true });
  // An abort that landed while the first turn was finishing must stop the wait too.
  if (options.signal.aborted) limit.abort();
  let expired = false;
  if (options.waitLimitMs !== undefined) {
    options.sleep(options.waitLimitMs, limit.signal).then(() => {
      expired = true;
      limit.abort();
    }, () => {});
  }
  try {
    while (result.status === "completed") {
      const delivered = await deliverReady(loop, pending, options.signal);
      if (delivered !== undefined) {
        result = delivered;
        turns++;
        totals.toolCalls += result.toolCalls;
        totals.usage = addUsage(totals.usage, result.usage);
        totals.durationMs += result.durationMs;
        continue;
      }
      if (pending.running().length === 0) break;
      await pending.waitForChange(limit.signal);
      if (options.signal.aborted) break;
      if (expired) {
        const abandoned = await pending.cancelAll("--background-wait expired");
        return { result, totals, turns, abandoned };
      }
    }
    return { result, totals, turns, abandoned: [] };
  } finally {
    options.signal.removeEventListener("abort", onAbort);
    limit.abort();
  }
}
