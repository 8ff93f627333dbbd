// Owns building the transcript events of a session's lifecycle: a message with its parts (one
// `message_created`, then one `part_created` per part), the opening and closing of a turn, and the
// receipts of delivered notices. Pure apart from ids drawn from the Ids port; nothing module-global.
// Writing them is the TranscriptWriter's job (transcript.ts), deciding when is the loop's.

import type { Ids } from "../sys/ids.ts";
import type { Message, Usage } from "../protocol/messages.ts";
import type { NewTranscriptEvent, TranscriptPart, TurnAbortCause } from "../protocol/events.ts";

export interface MessageExtras {
  /** The inbox entry a delivered notice came from (its receipt). */
  inboxId?: string;
  /** Parts persisted after the message's own content (e.g. `subtask_ref`). */
  parts?: TranscriptPart[];
  /** Finalization receipt: this assistant message ends its turn. */
  final?: boolean;
  /** A tool-result message adopted from a child's sidecar after a restart. */
  adopted?: boolean;
}

/** A notice delivered into a turn: a hidden message, its inbox id and its receipt parts. */
export interface DeliveredNotice {
  inboxId: string;
  message: Message;
  parts: TranscriptPart[];
}

/** The events that persist one message with all its parts, in one batch. */
export function messageEvents(ids: Ids, message: Message, extra: MessageExtras = {}): NewTranscriptEvent[] {
  const messageId = `msg-${ids.random21()}`;
  const created: NewTranscriptEvent = {
    type: "message_created",
    data: {
      messageId,
      role: message.role,
      ...(message.hidden === true ? { hidden: true } : {}),
      ...(extra.inboxId === undefined ? {} : { inboxId: extra.inboxId }),
      ...(extra.final === true ? { final: true as const } : {}),
      ...(extra.adopted === true ? { adopted: true as const } : {}),
    },
  };
  const parts: TranscriptPart[] = [...message.content, ...(extra.parts ?? [])];
  return [
    created,
    ...parts.map((part, i): NewTranscriptEvent => ({
      type: "part_created",
      data: { messageId, partId: `part-${ids.random21()}-${i + 1}`, part },
    })),
  ];
}

/** Each delivered notice as its hidden message carrying the inbox id and receipt parts. */
export function deliveryEvents(ids: Ids, deliveries: readonly DeliveredNotice[]): NewTranscriptEvent[] {
  return deliveries.flatMap((d) => messageEvents(ids, d.message, { inboxId: d.inboxId, parts: d.parts }));
}

/** `turn_completed`, plus the acknowledgement of the notices the turn delivered, in one batch. */
export function turnCompletedEvents(
  data: { turn: number; turns: number; toolCalls: number; durationMs: number; usage: Usage },
  acknowledged: readonly string[],
): NewTranscriptEvent[] {
  const events: NewTranscriptEvent[] = [{ type: "turn_completed", data }];
  if (acknowledged.length > 0) {
    events.push({ type: "inbox_acknowledged", data: { inboxIds: [...acknowledged] } });
  }
  return events;
}

export function turnAbortedEvent(turn: number, cause: TurnAbortCause, reason?: string): NewTranscriptEvent {
  return { type: "turn_aborted", data: reason === undefined ? { turn, cause } : { turn, cause, reason } };
}
