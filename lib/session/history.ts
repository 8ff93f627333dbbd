// Owns the meaning of a transcript: rebuilding the conversation (messages), the session header, the
// subtask references and whether a turn is still open. Pure; no I/O.

import type { ContentBlock, Message } from "../protocol/messages.ts";
import type { SubtaskRefPart, TranscriptEvent, TranscriptEventData } from "../protocol/events.ts";

/** What redaction puts in place of a secret (config/redact.ts). */
const REDACTED = "[REDACTED]";

export interface History {
  header: TranscriptEventData["session_created"] | undefined;
  messages: Message[];
  /** Latest subtask_ref per call id; a terminal state is never downgraded by a later `running`. */
  subtasks: Map<string, SubtaskRefPart>;
  /** Inbox ids whose hidden message is in the transcript. */
  deliveredInboxIds: Set<string>;
  acknowledgedInboxIds: Set<string>;
  /** The turn number of a turn_started without a matching turn_completed/turn_aborted. */
  openTurn: number | undefined;
  turns: number;
  lastTerminal: "turn_completed" | "turn_aborted" | undefined;
  /** The open turn's number when its final assistant message carries a finalization receipt. */
  finalizedOpenTurn: number | undefined;
}

export function rebuildHistory(events: readonly TranscriptEvent[]): History {
  const messages: Message[] = [];
  const byId = new Map<string, Message>();
  const subtasks = new Map<string, SubtaskRefPart>();
  const delivered = new Set<string>();
  const acked = new Set<string>();
  let header: History["header"];
  let openTurn: number | undefined;
  let turns = 0;
  let lastTerminal: History["lastTerminal"];
  let finalized: number | undefined;
  for (const e of events) {
    switch (e.type) {
      case "session_created":
        header ??= e.data;
        break;
      case "turn_started":
        openTurn = e.data.turn;
        finalized = undefined;
        turns = Math.max(turns, e.data.turn);
        break;
      case "turn_completed":
      case "turn_aborted":
        openTurn = undefined;
        finalized = undefined;
        lastTerminal = e.type;
        break;
      case "message_created": {
        const m: Message = e.data.hidden === true
          ? { role: e.data.role, content: [], hidden: true }
          : { role: e.data.role, content: [] };
        byId.set(e.data.messageId, m);
        messages.push(m);
        if (e.data.inboxId !== undefined) delivered.add(e.data.inboxId);
        if (e.data.final === true && e.data.role === "assistant") finalized = openTurn;
        else if (e.data.role === "assistant") finalized = undefined;
        break;
      }
      case "part_created": {
        const part = e.data.part;
        if (part.type === "subtask_ref") {
          const prev = subtasks.get(part.callId);
          if (prev === undefined || prev.state === "running" || part.state !== "running") {
            subtasks.set(part.callId, part);
          }
          break;
        }
        // A thinking block whose text lost a secret to the transcript's redaction no longer matches its
        // signature: it is left out (the API allows earlier turns' thinking to be omitted).
        if (part.type === "thinking" && part.thinking.includes(REDACTED)) break;
        byId.get(e.data.messageId)?.content.push(part);
        break;
      }
      case "inbox_acknowledged":
        for (const id of e.data.inboxIds) acked.add(id);
        break;
      case "approval_decided":
        break; // a record for people; the conversation is unchanged
      default: {
        const never: never = e;
        void never;
      }
    }
  }
  return {
    header,
    messages: repairDanglingToolCalls(messages.filter((m) => m.content.length > 0)),
    subtasks,
    deliveredInboxIds: delivered,
    acknowledgedInboxIds: acked,
    openTurn,
    turns,
    lastTerminal,
    finalizedOpenTurn: openTurn === undefined ? undefined : finalized,
  };
}

/**
 * A crash or interruption can leave tool calls without results. Providers reject such histories, so
 * each missing result becomes an error result saying the call was interrupted.
 */
export function repairDanglingToolCalls(messages: Message[]): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    out.push(m);
    if (m.role !== "assistant") continue;
    const calls = m.content.filter((b) => b.type === "tool_call");
    if (calls.length === 0) continue;
    const next = messages[i + 1];
    const answered = new Set(
      next?.role === "user" ? next.content.flatMap((b) => (b.type === "tool_result" ? [b.callId] : [])) : [],
    );
    const missing: ContentBlock[] = calls.filter((c) => !answered.has(c.id)).map((c) => ({
      type: "tool_result",
      callId: c.id,
      content:
        "Interrupted: this tool call did not finish (the run stopped); its side effects are uncertain.",
      isError: true,
    }));
    if (missing.length === 0) continue;
    if (next?.role === "user" && answered.size > 0) {
      next.content.unshift(...missing);
    } else {
      out.push({ role: "user", content: missing });
    }
  }
  return out;
}
