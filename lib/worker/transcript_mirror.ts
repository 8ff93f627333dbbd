// Owns copying a remote child's transcript into the shared store while it runs (docs/guides/remote.md).
// The child writes its transcript file on the worker (from its Worker, which has no network); this
// copies each new whole line, unchanged, to the run's subject of the transcript stream
// (NatsTranscript.appendEnvelopes: expected-last-subject-sequence, never renumbered), so any machine
// can read it and recover the run if this worker dies. Only while the run's lease is held: a worker
// that lost it copies nothing more. A sync soon after activity, and a last one before the run's end
// is committed.

import type { Clock } from "../sys/clock.ts";
import type { Fs } from "../sys/fs.ts";
import { parseTranscript } from "../session/transcript.ts";
import type { NatsTranscript } from "../remote/nats_transcript.ts";

/** How long after the child's activity its new lines are copied (at most one sync in flight). */
export const MIRROR_DELAY_MS = 250;

export class TranscriptMirror {
  #fs: Fs;
  #clock: Clock;
  #path: string;
  #target: NatsTranscript;
  #held: () => boolean;
  /** Bytes of the file already copied (whole lines only). */
  #copied = 0;
  #scheduled = false;
  #queue: Promise<void> = Promise.resolve();
  /** The first failure of a background sync (the last sync throws it). */
  #failure: unknown;

  constructor(o: { fs: Fs; clock: Clock; path: string; target: NatsTranscript; held: () => boolean }) {
    this.#fs = o.fs;
    this.#clock = o.clock;
    this.#path = o.path;
    this.#target = o.target;
    this.#held = o.held;
  }

  /** Copies new lines a little later (activity comes in bursts). */
  soon(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.#clock.timer(MIRROR_DELAY_MS, () => {
      this.#scheduled = false;
      this.sync().catch((e) => this.#failure ??= e);
    });
  }

  /** Copies every whole line written so far; throws when a copy failed (now or in the background). */
  sync(): Promise<void> {
    const run = this.#queue.then(() => this.#copy());
    this.#queue = run.catch(() => {});
    return run.then(() => {
      if (this.#failure !== undefined) throw this.#failure;
    });
  }

  async #copy(): Promise<void> {
    if (!this.#held()) return;
    const bytes = await this.#fs.readBytes(this.#path).catch(() => null);
    if (bytes === null || bytes.length <= this.#copied) return;
    const fresh = bytes.subarray(this.#copied);
    const end = fresh.lastIndexOf(0x0a);
    if (end < 0) return; // no whole line yet
    const events = parseTranscript(new TextDecoder().decode(fresh.subarray(0, end + 1))).events;
    if (events.length > 0) await this.#target.appendEnvelopes(events);
    this.#copied += end + 1;
  }
}
