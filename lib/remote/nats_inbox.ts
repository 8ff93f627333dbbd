// Owns a session's inbox in the NATS store (docs/guides/remote.md): the SessionInbox port of
// lib/session/inbox.ts over a JetStream stream, one subject per session, one message per entry.
// An entry is appended with expected-last-subject-sequence = the last message read, so two writers
// never both add the same inboxId (the loser re-reads and finds it pending), and with Nats-Msg-Id =
// the inboxId, so a repeat within the stream's duplicate window is dropped by the servers too.
// An append whose answer was lost (a node died, a leader being elected) is tried again after a pause,
// re-reading first: the entry is found if the first try was stored, and a repeat the servers still
// hold is dropped by its Nats-Msg-Id, so a retried enqueue adds the entry once.
// `remove` deletes the entries' messages. Limits are the file inbox's (INBOX_LIMITS); a message that
// is no inbox entry fails closed (`inbox_invalid`), as a corrupt inbox file does.

import { BladeError } from "../errors.ts";
import {
  checkedEntry,
  type EnqueueResult,
  type InboxEntry,
  parseEntry,
  refusal,
  type SessionInbox,
} from "../session/inbox.ts";
import type { Clock } from "../sys/clock.ts";
import { CasConflict, type MessageStream, type StreamMessage } from "./nats_link.ts";
import { keyOfId } from "./nats_keys.ts";
import { isTransient, pauseAfter } from "./nats_retry.ts";

/** The stream every session's inbox lives in, and its subjects. */
export const INBOX_STREAM = "blade_inbox";
export const INBOX_SUBJECTS = ["blade.inbox.>"];

/** How many times one enqueue re-reads after another writer appended first. */
const APPEND_ATTEMPTS = 64;

export class NatsInbox implements SessionInbox {
  readonly subject: string;
  #stream: MessageStream;
  #clock: Clock;

  /** `sessionId` is a valid session id (its '.' written as '=', nats_keys.ts); `clock` paces retries. */
  constructor(stream: MessageStream, sessionId: string, o: { clock: Clock }) {
    this.#stream = stream;
    this.#clock = o.clock;
    this.subject = `blade.inbox.${keyOfId(sessionId)}`;
  }

  async enqueue(entry: InboxEntry): Promise<EnqueueResult> {
    const checked = checkedEntry(entry);
    let last: unknown;
    for (let attempt = 0; attempt < APPEND_ATTEMPTS; attempt++) {
      const stored = await this.#read();
      const entries = stored.map((s) => s.entry);
      if (entries.some((e) => e.inboxId === checked.inboxId)) return { accepted: true, duplicate: true };
      const refused = refusal(entries, [...entries, checked]);
      if (refused !== null) return refused;
      try {
        const { duplicate } = await this.#stream.append(this.subject, JSON.stringify(checked), {
          lastSeq: stored.at(-1)?.seq ?? 0,
          msgId: checked.inboxId,
        });
        return { accepted: true, duplicate };
      } catch (error) {
        last = error;
        // Another writer came first: re-read at once. A lost answer: pause, then re-read (the entry
        // is found if it was stored).
        if (!(error instanceof CasConflict)) {
          if (!isTransient(error)) throw error;
          await pauseAfter(this.#clock, attempt + 1);
        }
      }
    }
    const why = last instanceof CasConflict ? "" : ` (the servers answered: ${(last as Error).message})`;
    throw new BladeError("store_conflict", `The inbox ${this.subject} kept changing under an enqueue${why}`, {
      hint: "Run again; if it repeats, many processes are writing to one session's inbox.",
    });
  }

  async pending(): Promise<InboxEntry[]> {
    return (await this.#read()).map((s) => s.entry);
  }

  async remove(inboxIds: readonly string[]): Promise<void> {
    if (inboxIds.length === 0) return;
    const gone = new Set(inboxIds);
    for (const { seq, entry } of await this.#read()) {
      if (gone.has(entry.inboxId)) await this.#stream.remove(seq);
    }
  }

  async #read(): Promise<{ seq: number; entry: InboxEntry }[]> {
    return (await this.#stream.read(this.subject)).map((m) => ({ seq: m.seq, entry: this.#decode(m) }));
  }

  #decode(message: StreamMessage): InboxEntry {
    let raw: unknown;
    try {
      raw = JSON.parse(message.text);
    } catch {
      raw = undefined;
    }
    const entry = parseEntry(raw);
    if (entry !== null) return entry;
    throw new BladeError(
      "inbox_invalid",
      `The session inbox ${this.subject} holds a message (#${message.seq}) that is no inbox entry`,
      {
        hint: "Its pending completions and messages are kept as they are. Remove that message " +
          "(nats stream rmm blade_inbox <seq>) to go on; results stay available through TaskOutput.",
      },
    );
  }
}
