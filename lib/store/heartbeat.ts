// Owns the activity heartbeat of background runs (docs/reference/sidecars.md): bumps a record's `lastActiveAt` at most
// once per interval (default one second) per record, however often the run reports activity.
// Does not schedule anything itself: the run calls beat() when something happens.

import type { Clock } from "../sys/clock.ts";
import type { SidecarStore } from "./store.ts";

export const HEARTBEAT_INTERVAL_MS = 1000;

export interface HeartbeatOptions {
  clock: Clock;
  /** Minimum time between two writes for one record. Default 1000 ms. */
  intervalMs?: number;
}

export class Heartbeat {
  #store: SidecarStore;
  #clock: Clock;
  #intervalMs: number;
  #lastWrite = new Map<string, number>();

  constructor(store: SidecarStore, options: HeartbeatOptions) {
    this.#store = store;
    this.#clock = options.clock;
    this.#intervalMs = options.intervalMs ?? HEARTBEAT_INTERVAL_MS;
  }

  /** Records activity of `id`; writes only when the last write is at least an interval old. */
  async beat(id: string): Promise<boolean> {
    const now = this.#clock.now();
    const last = this.#lastWrite.get(id);
    if (last !== undefined && now - last < this.#intervalMs) return false;
    // Claimed before the write so that beats arriving while it is in flight are dropped.
    this.#lastWrite.set(id, now);
    await this.#store.update(id, {});
    return true;
  }

  /**
   * Counts a write of `id` made elsewhere at `at` (epoch ms; its creation, which set `lastActiveAt`)
   * as a beat, so the run's first activity within an interval of it writes nothing.
   */
  wrote(id: string, at: number): void {
    const last = this.#lastWrite.get(id);
    if (last === undefined || at > last) this.#lastWrite.set(id, at);
  }

  /** Stops tracking `id` (call when its run ends). */
  forget(id: string): void {
    this.#lastWrite.delete(id);
  }
}
