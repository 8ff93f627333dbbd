// Owns the shape of background work as a session sees it: a delivery of a completion notice into the
// session (hidden message plus its durable receipt) and the PendingWork port lib/run/background.ts implements
// for the loop and for settling (docs/reference/background.md). Vocabulary only, no I/O.

import type { Message } from "./messages.ts";
import type { TranscriptPart } from "./events.ts";

/** A completion notice to put into a session: a hidden user message plus its durable receipt parts. */
export interface Delivery {
  inboxId: string;
  message: Message;
  /** The terminal `subtask_ref` written with the hidden message. */
  parts: TranscriptPart[];
}

/** Background work owned by one session. Implemented by lib/run/background.ts. */
export interface PendingWork {
  /** Children of this session still running (in this process). */
  running(): string[];
  /** Notices ready to deliver that the transcript does not hold yet. */
  takeDeliveries(): Promise<Delivery[]>;
  /** Called after `inbox_acknowledged` is durable: the inbox may forget these entries. */
  acknowledged(inboxIds: readonly string[]): Promise<void>;
  /** Resolves when a completion is ready, every child ended, or `signal` aborts. */
  waitForChange(signal: AbortSignal): Promise<void>;
  /** Cancels every running child (e.g. --background-wait expired); returns their ids. */
  cancelAll(reason: string): Promise<string[]>;
}
