// Owns a session's transcript in the NATS store (docs/guides/remote.md): the TranscriptLog port of
// lib/session/transcript.ts over a JetStream stream, one subject per session, one message per batch
// (its JSONL lines, redacted). A batch is appended with expected-last-subject-sequence = the subject's
// last message as this log knows it, so two writers never both follow the same line: the loser reads
// the subject's last message, numbers its events after it and tries again — a line is never doubled
// or reordered. Nats-Msg-Id = the subject and the batch's first event id, so a batch sent again after
// its answer was lost is dropped by the servers. A batch larger than one message goes as several, in
// order. `appendEnvelopes` appends events that already have their seq (a copy of a file transcript,
// made by its only writer): it never renumbers, and another writer's line in between is CasConflict.

import { BladeError } from "../errors.ts";
import type { Clock } from "../sys/clock.ts";
import type { Ids } from "../sys/ids.ts";
import type { NewTranscriptEvent, TranscriptEvent } from "../protocol/events.ts";
import {
  lastSeqIn,
  parseTranscript,
  type TranscriptAppendOptions,
  type TranscriptLog,
  type TranscriptRead,
} from "../session/transcript.ts";
import { CasConflict, type MessageStream } from "./nats_link.ts";
import { isTransient, pauseAfter } from "./nats_retry.ts";
import { keyOfId } from "./nats_keys.ts";

/** The stream every session's transcript lives in, and its subjects. */
export const TRANSCRIPT_STREAM = "blade_transcripts";
export const TRANSCRIPT_SUBJECTS = ["blade.transcript.>"];

/** How many times one batch is tried after another writer appended first (or an answer was lost). */
const APPEND_ATTEMPTS = 64;
/** Room left in a message for its headers (the expected sequence, the message id). */
const HEADER_ROOM = 4096;

export interface NatsTranscriptOptions {
  clock: Clock;
  ids: Ids;
  sessionId: string;
  projectPath: string;
  /** Applied to every serialised line: removes secrets before anything reaches the servers. */
  redact?: (text: string) => string;
  /** The most bytes of lines one message carries (default: what the servers take, less headers). */
  messageBytes?: number;
}

/** The transcript of session `sessionId` in `stream` (its subject's messages, whole lines), or null when it has none. */
export async function readNatsTranscript(
  stream: MessageStream,
  sessionId: string,
): Promise<TranscriptRead | null> {
  const messages = await stream.read(transcriptSubject(sessionId));
  if (messages.length === 0) return null;
  return parseTranscript(messages.map((m) => m.text).join(""));
}

/** The subject session `sessionId`'s transcript is kept on. */
function transcriptSubject(sessionId: string): string {
  return `blade.transcript.${keyOfId(sessionId)}`;
}

export class NatsTranscript implements TranscriptLog {
  readonly sessionId: string;
  readonly projectPath: string;
  readonly subject: string;
  #stream: MessageStream;
  #o: NatsTranscriptOptions;
  #lastSeq = 0;
  /** The subject's last message as this log knows it; undefined: read it before the next append. */
  #tail: number | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(stream: MessageStream, options: NatsTranscriptOptions) {
    this.#stream = stream;
    this.#o = options;
    this.sessionId = options.sessionId;
    this.projectPath = options.projectPath;
    this.subject = transcriptSubject(options.sessionId);
  }

  get lastSeq(): number {
    return this.#lastSeq;
  }

  append(events: NewTranscriptEvent[], options: TranscriptAppendOptions = {}): Promise<TranscriptEvent[]> {
    return this.#queued(() => this.#appendNew(events, options.onWritten));
  }

  /** Appends events that carry their seq already, unchanged; `CasConflict` when another writer's line came first. */
  appendEnvelopes(events: readonly TranscriptEvent[]): Promise<void> {
    return this.#queued(async () => {
      for (const chunk of this.#chunks(events)) {
        await this.#send(chunk, { renumber: false });
      }
    });
  }

  /** Deletes the whole transcript (a run started again from the beginning); this log starts over. */
  discard(): Promise<void> {
    return this.#queued(async () => {
      await this.#stream.purge(this.subject);
      this.#tail = undefined;
      this.#lastSeq = 0;
    });
  }

  read(): Promise<TranscriptRead | null> {
    return readNatsTranscript(this.#stream, this.sessionId);
  }

  #queued<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work);
    this.#queue = run.catch(() => {});
    return run;
  }

  async #appendNew(events: NewTranscriptEvent[], onWritten?: () => void): Promise<TranscriptEvent[]> {
    if (events.length === 0) return [];
    await this.#learnTail();
    const timestamp = new Date(this.#o.clock.now()).toISOString();
    // Ids are given once: a batch sent again after a lost answer carries the same message id.
    const envelopes: TranscriptEvent[] = events.map((e, k) => ({
      seq: this.#lastSeq + 1 + k,
      id: this.#o.ids.uuid(),
      sessionId: this.sessionId,
      projectPath: this.projectPath,
      timestamp,
      type: e.type,
      data: e.data,
    } as TranscriptEvent));
    const written: TranscriptEvent[] = [];
    let handedOn = false;
    for (const chunk of this.#chunks(envelopes)) {
      written.push(...await this.#send(chunk, { renumber: true, onSending: () => handedOn ||= true }));
    }
    if (handedOn) onWritten?.();
    return written;
  }

  /** The subject's last message and last seq, read when this log does not know them. */
  async #learnTail(): Promise<void> {
    if (this.#tail !== undefined) return;
    const last = await this.#stream.last(this.subject);
    this.#tail = last?.seq ?? 0;
    this.#lastSeq = last === null ? 0 : lastSeqIn(last.text) ?? 0;
  }

  /**
   * Sends one message of whole lines after the subject's last one. `renumber`: when another writer
   * appended first, the events are numbered after its lines and sent again; else that is CasConflict.
   */
  async #send(
    chunk: TranscriptEvent[],
    o: { renumber: boolean; onSending?: () => void },
  ): Promise<TranscriptEvent[]> {
    let events = chunk;
    let last: unknown;
    for (let attempt = 0; attempt < APPEND_ATTEMPTS; attempt++) {
      await this.#learnTail();
      if (o.renumber) events = events.map((e, k) => ({ ...e, seq: this.#lastSeq + 1 + k }));
      const text = this.#lines(events);
      try {
        o.onSending?.();
        const { seq } = await this.#stream.append(this.subject, text, {
          lastSeq: this.#tail!,
          // Message ids are deduplicated across the whole stream: scoped to this subject.
          msgId: `${this.subject}#${events[0]!.id}`,
        });
        this.#tail = seq;
        this.#lastSeq = events.at(-1)!.seq;
        return events;
      } catch (error) {
        last = error;
        if (error instanceof CasConflict) {
          if (!o.renumber) throw error;
          // Another writer came first: learn the subject's end again, and number after it.
          this.#tail = undefined;
        } else if (!isTransient(error)) throw error;
        else await pauseAfter(this.#o.clock, attempt + 1);
        // A lost answer: the same message again (same expected sequence, same id). If the first
        // one was stored, the servers answer with it as a duplicate; else this one is stored.
      }
    }
    const why = last instanceof CasConflict ? "" : ` (the servers answered: ${(last as Error).message})`;
    throw new BladeError(
      "store_conflict",
      `The transcript ${this.subject} kept changing under an append${why}`,
      {
        hint: "Run again; if it repeats, several processes are writing one session's transcript.",
      },
    );
  }

  #lines(events: readonly TranscriptEvent[]): string {
    const redact = this.#o.redact ?? ((t: string) => t);
    return events.map((e) => redact(JSON.stringify(e)) + "\n").join("");
  }

  /** The events split into messages of at most messageBytes of lines each (one line may not exceed it). */
  *#chunks(events: readonly TranscriptEvent[]): Generator<TranscriptEvent[]> {
    const limit = this.#o.messageBytes ?? this.#stream.maxPayload - HEADER_ROOM;
    const encoder = new TextEncoder();
    let chunk: TranscriptEvent[] = [];
    let bytes = 0;
    for (const e of events) {
      const size = encoder.encode(this.#lines([e])).length;
      if (size > limit) {
        throw new BladeError(
          "transcript_too_large",
          `A transcript line of ${this.subject} is ${size} bytes, over the ${limit} bytes one message holds`,
          { hint: "Raise max_payload on the NATS servers, or keep the tool's output smaller." },
        );
      }
      if (chunk.length > 0 && bytes + size > limit) {
        yield chunk;
        chunk = [];
        bytes = 0;
      }
      chunk.push(e);
      bytes += size;
    }
    if (chunk.length > 0) yield chunk;
  }
}
