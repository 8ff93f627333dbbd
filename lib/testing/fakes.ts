// Owns hand-written fakes of the sys ports for tests. Never imported by main.ts.

import type { Clock } from "../sys/clock.ts";
import type { Env } from "../sys/env.ts";
import type { Ids } from "../sys/ids.ts";

/** A clock that only moves when told to. sleep() resolves when advance() passes its deadline. */
export class FakeClock implements Clock {
  #now: number;
  #sleepers: { at: number; resolve: () => void }[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const entry = { at: this.#now + ms, resolve };
      this.#sleepers.push(entry);
      signal?.addEventListener("abort", () => {
        this.#sleepers = this.#sleepers.filter((s) => s !== entry);
        reject(signal.reason);
      }, { once: true });
    });
  }

  /** Move time forward, waking every sleeper whose deadline has passed. */
  advance(ms: number): void {
    this.#now += ms;
    const due = this.#sleepers.filter((s) => s.at <= this.#now);
    this.#sleepers = this.#sleepers.filter((s) => s.at > this.#now);
    for (const s of due) s.resolve();
  }

  get pendingSleepers(): number {
    return this.#sleepers.length;
  }
}

/** Deterministic ids: `000000000000000000001`, `…2`, … (21 chars each). */
export function sequentialIds(prefix = ""): Ids {
  let n = 0;
  return {
    random21: () => (prefix + String(++n)).padStart(21, "0").slice(-21),
    uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`,
  };
}

export function fakeEnv(
  vars: Record<string, string>,
  options: { cwd: string; home?: string; tty?: boolean },
): Env {
  return {
    get: (n) => vars[n],
    home: () => options.home ?? vars["HOME"],
    cwd: () => options.cwd,
    stdoutIsTerminal: () => options.tty ?? false,
    stdinIsTerminal: () => options.tty ?? false,
  };
}
