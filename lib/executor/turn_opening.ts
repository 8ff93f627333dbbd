// Owns the rule of a turn's opening batch (docs/reference/sessions.md, "A turn's opening"): the batch
// (a fresh session's `session_created`, `turn_started`, delivered notices, the input) is written and
// fsynced while the turn's first model request is already on its way (sent once the batch's bytes are
// handed to the file system, so that the thread is free while the fsyncs run), and nothing observable happens
// before it is durable: events the loop emits are held (in order) until then, a tool call's warm-up
// too, and the loop uses nothing of the answer before awaiting `durable`. When the write fails, the
// request is aborted, what was held is dropped and `durable` rejects with the write's error, which the
// run fails with. The loop (loop.ts) opens every turn through this; nothing else decides it.

export type OpeningState = "writing" | "durable" | "failed";

export class TurnOpening {
  /** Resolves when the batch is durable (held events delivered first); rejects with the write's error. */
  readonly durable: Promise<void>;
  /** Resolves once the batch's bytes are written (its fsyncs may still run), or it settled. */
  readonly handed: Promise<void>;
  #state: OpeningState = "writing";
  #held: (() => void)[] = [];
  #failed = new AbortController();

  /** `write` starts the batch's append, calling `onWritten` when its bytes are handed to the file system. */
  constructor(write: (onWritten: () => void) => Promise<unknown>) {
    let handed = () => {};
    this.handed = new Promise<void>((resolve) => (handed = resolve));
    this.durable = write(() => handed()).then(() => {
      this.#state = "durable";
      for (const deliver of this.#held.splice(0)) deliver();
    }, (error: unknown) => {
      this.#state = "failed";
      this.#held = [];
      this.#failed.abort(error);
      throw error;
    });
    // The loop awaits `durable` after its request; a failure before then is not an unhandled rejection.
    this.durable.catch(() => {});
    this.durable.finally(handed).catch(() => {});
  }

  get state(): OpeningState {
    return this.#state;
  }

  /** Runs `fn` now when the batch is durable, else once it is (in call order); never if the write failed. */
  after(fn: () => void): void {
    if (this.#state === "durable") fn();
    else if (this.#state === "writing") this.#held.push(fn);
  }

  /** `sink`, holding what it is given until the batch is durable (dropped if the write fails). */
  hold<T>(sink: (value: T) => void): (value: T) => void {
    return (value) => this.after(() => sink(value));
  }

  /** The request's signal: the run's, also aborted when the batch's write fails. */
  signal(run: AbortSignal): AbortSignal {
    return this.#state === "durable" ? run : AbortSignal.any([run, this.#failed.signal]);
  }
}
