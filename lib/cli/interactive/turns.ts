// Owns when the interactive session runs a turn: one at a time, prompts in the order they were sent
// (typed-ahead prompts queue), and while idle, completion notices of background children start a turn
// through the same delivery as print mode (deliverReady, delivery `next_turn`). A turn can be
// interrupted (its signal aborts the loop and its foreground children). Does not read keys or draw.

import type { MainSession } from "../../executor/main_runner.ts";
import type { RunResult, TurnInput } from "../../executor/loop.ts";
import { deliverReady } from "../../executor/settle.ts";
import type { Delivery } from "../../protocol/delivery.ts";
import type { TranscriptPart } from "../../protocol/events.ts";
import type { SessionView } from "./view.ts";
import type { ProviderError } from "../../protocol/provider.ts";
import type { Clock } from "../../sys/clock.ts";

export interface TurnsOptions {
  view: SessionView;
  /** The open session (it changes with /clear and /resume). */
  session: () => MainSession;
  /** Shows an unexpected failure of a turn (a bug or an environment problem). */
  report: (error: unknown) => void;
  /** What to do about a model API failure that ended a turn (shown under the failure's line). */
  hintFor?: (error: ProviderError) => string | undefined;
  /** A prompt as the turn sends it (a custom command expanded); default: as typed. */
  input?: (prompt: string, signal: AbortSignal) => Promise<TurnInput>;
  /**
   * Said once the session has sat idle at the prompt `afterMs` after a prompt's turn (Notification
   * hooks' `idle_prompt`); once per prompt.
   */
  idle?: { afterMs: number; timer: Clock["timer"]; notify: () => void };
}

export class Turns {
  #o: TurnsOptions;
  #queue: string[] = [];
  #running: AbortController | undefined;
  /** The prompt of the running turn (undefined while a notice's turn runs). */
  #prompt: string | undefined;
  #idle: AbortController | undefined;
  #stopped = false;
  #ended: Promise<void> = Promise.resolve();
  /** A prompt's turn ran since the last idle notice. */
  #prompted = false;

  constructor(options: TurnsOptions) {
    this.#o = options;
  }

  /** A turn is on screen (a notice check that has not started a turn does not count). */
  get busy(): boolean {
    return this.#running !== undefined && this.#o.view.busy;
  }

  /** Anything runs, the quiet notice check included. */
  get running(): boolean {
    return this.#running !== undefined;
  }

  /** Sends a prompt: now when idle, after the running turn otherwise. */
  enqueue(prompt: string): void {
    this.#queue.push(prompt);
    this.#showQueue();
    this.#idle?.abort();
  }

  /** The prompts still waiting (the view lists them below the running turn). */
  #showQueue(): void {
    this.#o.view.setQueued(this.#queue);
  }

  /**
   * Cancels the running turn (and its foreground children). Returns the prompt of the turn it cancels
   * (none for a notice's turn) and the queued prompts, now unsent: they go back into the editor.
   */
  interrupt(): string[] {
    const unsent = [
      ...(this.#running === undefined || this.#prompt === undefined ? [] : [this.#prompt]),
      ...this.#queue,
    ];
    this.#queue = [];
    this.#showQueue();
    this.#running?.abort(new Error("interrupted"));
    return unsent;
  }

  /** Looks again (the session changed). */
  wake(): void {
    this.#idle?.abort();
  }

  /** Interrupts, and resolves once the last turn has written its end. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.interrupt();
    this.#idle?.abort();
    await this.#ended;
  }

  /** The loop; resolves after stop(). */
  async run(): Promise<void> {
    while (!this.#stopped) {
      const session = this.#o.session();
      const prompt = this.#queue.shift();
      if (prompt !== undefined) {
        this.#showQueue();
        this.#o.view.prompt(prompt);
        this.#prompt = prompt;
        const input = this.#o.input ?? ((p: string) => Promise.resolve(session.input(p)));
        await this.#turn(async (signal) => session.loop.run(await input(prompt, signal), signal));
        this.#prompt = undefined;
        this.#prompted = true;
        continue;
      }
      const pending = session.pending;
      if (pending !== undefined) {
        let ran = false;
        await this.#turn((signal) =>
          deliverReady(session.loop, pending, signal, (d) => {
            ran = true;
            this.#showNotices(d);
          }), { quietUntilStarted: true });
        if (ran) continue;
      }
      if (this.#queue.length > 0 || this.#stopped) continue;
      const idle = new AbortController();
      this.#idle = idle;
      const stopNotice = this.#idleNotice();
      await (pending === undefined
        ? new Promise<void>((resolve) => idle.signal.addEventListener("abort", () => resolve()))
        : pending.waitForChange(idle.signal));
      stopNotice();
      this.#idle = undefined;
    }
  }

  /** Starts the idle notice's timer (after a prompt's turn); returns what cancels it. */
  #idleNotice(): () => void {
    const idle = this.#o.idle;
    if (idle === undefined || !this.#prompted) return () => {};
    return idle.timer(idle.afterMs, () => {
      this.#prompted = false;
      idle.notify();
    });
  }

  #showNotices(deliveries: readonly Delivery[]): void {
    for (const d of deliveries) {
      const ref = d.parts.find((p: TranscriptPart) => p.type === "subtask_ref");
      const what = ref !== undefined && ref.type === "subtask_ref"
        ? `${ref.subagentType} ${ref.agentId} ${ref.state}: ${ref.description}`
        : d.inboxId;
      this.#o.view.notice(`Background task finished — ${what}; continuing with its result.`);
    }
  }

  async #turn(
    run: (signal: AbortSignal) => Promise<RunResult | undefined>,
    options: { quietUntilStarted?: boolean } = {},
  ): Promise<void> {
    const { view } = this.#o;
    const controller = new AbortController();
    this.#running = controller;
    const ended = Promise.withResolvers<void>();
    this.#ended = ended.promise;
    if (options.quietUntilStarted !== true) view.turnStarted();
    const unsub = options.quietUntilStarted === true ? this.#startOnFirstEvent() : () => {};
    try {
      const result = await run(controller.signal);
      const failure = result?.status === "failed" ? result.error?.providerError : undefined;
      const hint = failure === undefined ? undefined : this.#o.hintFor?.(failure);
      if (hint !== undefined) view.hint(hint);
    } catch (e) {
      this.#o.report(e);
    } finally {
      unsub();
      this.#running = undefined;
      view.turnEnded();
      ended.resolve();
    }
  }

  /** A notice turn shows the working line only once it really starts. */
  #startOnFirstEvent(): () => void {
    const { view } = this.#o;
    const previous = view.onChange;
    let started = false;
    view.onChange = () => {
      if (!started && this.#running !== undefined) {
        started = true;
        view.onChange = previous;
        view.turnStarted();
      }
      previous();
    };
    return () => {
      if (!started) view.onChange = previous;
    };
  }
}
