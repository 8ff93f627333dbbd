// Owns the agent loop's durability port (docs/reference/sessions.md): the loop hands each step to its
// LoopJournal and reports the step (events, the conversation) only once the journal's promise resolved,
// so what anyone is told has already happened is on disk. Each method is one commit point of the loop,
// exactly one durable batch: a turn's opening, a message (an answer with the parts of its calls and a
// correction sent back with it, or the tool results), notices delivered mid-turn, an approval's answer,
// and the turn's end. `transcriptJournal` is the real one: each batch is one append to the session's
// transcript, its events built by session/events.ts. Deciding when a step happens is the loop's job.

import type { Ids } from "../sys/ids.ts";
import type { Message, Usage } from "../protocol/messages.ts";
import type { NewTranscriptEvent, TurnAbortCause } from "../protocol/events.ts";
import type { Delivery } from "../protocol/delivery.ts";
import type { ApprovalAnswer } from "../protocol/approval.ts";
import type { TranscriptLog } from "../session/transcript.ts";
import {
  deliveryEvents,
  messageEvents,
  type MessageExtras,
  turnAbortedEvent,
  turnCompletedEvents,
} from "../session/events.ts";

/** A turn's opening batch: events written before it (a new child's `session_created`), then the turn. */
export interface TurnOpeningStep {
  turn: number;
  prelude: readonly NewTranscriptEvent[];
  /** Notices delivered with the opening; they happened before the input. */
  deliveries: readonly Delivery[];
  /** The input that opens the turn. */
  messages: readonly Message[];
}

/** One message of the conversation with what is persisted alongside it. */
export interface JournalMessage {
  message: Message;
  extra?: MessageExtras;
}

/** What a completed turn's end records (`turn_completed`'s data). */
export interface TurnSummary {
  turn: number;
  turns: number;
  toolCalls: number;
  durationMs: number;
  usage: Usage;
}

export interface ApprovalRecord {
  callId: string;
  tool: string;
  subject: string;
  answer: ApprovalAnswer;
  /** The approver's reason (a refusal's text the model is told). */
  message?: string;
  /** The call's input as the approver changed it (an allow with the Agent SDK's `updatedInput`). */
  updatedInput?: Record<string, unknown>;
}

/** Where the loop's steps become durable. Every method resolves once its batch is durable, or rejects. */
export interface LoopJournal {
  /** The turn's opening batch; `onWritten` once its bytes are handed to the file system (fsyncs may still run). */
  openTurn(step: TurnOpeningStep, onWritten: () => void): Promise<void>;
  /** Messages in one batch, in order: an answer (and a correction sent back with it), or tool results. */
  messages(list: readonly JournalMessage[]): Promise<void>;
  /** Notices delivered into the running turn (`current_turn`). */
  deliveries(late: readonly Delivery[]): Promise<void>;
  /** A person's answer to an askable refusal, before the call runs or is refused. */
  approval(record: ApprovalRecord): Promise<void>;
  /** The completed end: the final answer (when it was not written before), `turn_completed`, acknowledgements. */
  turnCompleted(
    end: { summary: TurnSummary; acknowledge: readonly string[]; answer?: JournalMessage },
  ): Promise<void>;
  /** The aborted end: messages said at the end (a cancelled turn's marker), then `turn_aborted` with its cause. */
  turnAborted(
    end: { turn: number; cause: TurnAbortCause; reason?: string; said?: readonly JournalMessage[] },
  ): Promise<void>;
}

/** The journal over a session's transcript: one append per step. */
export function transcriptJournal(transcript: TranscriptLog, ids: Ids): LoopJournal {
  const events = (list: readonly JournalMessage[]) =>
    list.flatMap((m) => messageEvents(ids, m.message, m.extra));
  return {
    async openTurn(step, onWritten) {
      await transcript.append([
        ...step.prelude,
        { type: "turn_started", data: { turn: step.turn } },
        // Notices first: they happened before the input that opens this turn.
        ...deliveryEvents(ids, step.deliveries),
        ...step.messages.flatMap((m) => messageEvents(ids, m)),
      ], { onWritten });
    },
    async messages(list) {
      await transcript.append(events(list));
    },
    async deliveries(late) {
      await transcript.append(deliveryEvents(ids, late));
    },
    async approval(record) {
      await transcript.append([{ type: "approval_decided", data: { ...record } }]);
    },
    async turnCompleted(end) {
      const said = end.answer === undefined ? [] : events([end.answer]);
      await transcript.append([...said, ...turnCompletedEvents(end.summary, end.acknowledge)]);
    },
    async turnAborted(end) {
      await transcript.append([...events(end.said ?? []), turnAbortedEvent(end.turn, end.cause, end.reason)]);
    },
  };
}
