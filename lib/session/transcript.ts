// Owns the transcript file format (docs/reference/sessions.md): append-only JSONL, one envelope per line with a
// monotonic `seq`, appended in batches under an exclusive per-file lock with fsync. Also the
// tolerant reader: a torn last line is reported, a bad line in the middle is reported, nothing is
// silently dropped. Does not know what the events mean (see session/history.ts).
// `TranscriptLog` is the port a session's transcript is written and read through; `TranscriptWriter`
// is the file one, lib/remote/nats_transcript.ts the NATS store's (a stream, one subject per session).

import { BladeError } from "../errors.ts";
import { dirname } from "../path.ts";
import { fsErrorCode } from "../sys/errors.ts";
import type { Fs, LockedFile } from "../sys/fs.ts";
import type { Clock } from "../sys/clock.ts";
import type { Ids } from "../sys/ids.ts";
import { type NewTranscriptEvent, TRANSCRIPT_EVENT_TYPES, type TranscriptEvent } from "../protocol/events.ts";

export interface TranscriptDiagnostic {
  line: number;
  kind: "torn_last_line" | "invalid_line" | "out_of_order" | "foreign_session";
  message: string;
}

export interface TranscriptRead {
  events: TranscriptEvent[];
  diagnostics: TranscriptDiagnostic[];
}

/** The end of a transcript file as read: its size in bytes, its last line's seq, its last byte. */
export interface TranscriptEnd {
  size: number;
  lastSeq: number;
  endsWithNewline: boolean;
}

const decoder = new TextDecoder();

function isEnvelope(v: unknown): v is TranscriptEvent {
  if (typeof v !== "object" || v === null) return false;
  const e = v as Record<string, unknown>;
  return typeof e.seq === "number" && typeof e.type === "string" &&
    (TRANSCRIPT_EVENT_TYPES as readonly string[]).includes(e.type) && typeof e.data === "object" &&
    e.data !== null;
}

/** Parse transcript text. Never throws. */
export function parseTranscript(text: string): TranscriptRead {
  const events: TranscriptEvent[] = [];
  const diagnostics: TranscriptDiagnostic[] = [];
  const lines = text.split("\n");
  const last = lines.length - 1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === "") continue;
    const torn = i === last; // no newline after it: the write was cut
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      diagnostics.push({
        line: i + 1,
        kind: torn ? "torn_last_line" : "invalid_line",
        message: torn
          ? `line ${
            i + 1
          } was cut short (the writer stopped mid-line); it is ignored, every line before it is kept`
          : `line ${i + 1} is not valid JSON; it is ignored`,
      });
      continue;
    }
    if (!isEnvelope(value)) {
      diagnostics.push({
        line: i + 1,
        kind: "invalid_line",
        message: `line ${i + 1} is not a transcript event`,
      });
      continue;
    }
    // seq only grows, and every line is of the file's own session (its first line's): a duplicated,
    // reordered or spliced-in line is reported and ignored, never replayed.
    const previous = events.at(-1);
    if (previous !== undefined && value.seq <= previous.seq) {
      diagnostics.push({
        line: i + 1,
        kind: "out_of_order",
        message: `line ${
          i + 1
        } has seq ${value.seq}, not after ${previous.seq} (a duplicated or reordered line); it is ignored`,
      });
      continue;
    }
    if (previous !== undefined && value.sessionId !== events[0]!.sessionId) {
      diagnostics.push({
        line: i + 1,
        kind: "foreign_session",
        message: `line ${i + 1} belongs to session ${JSON.stringify(value.sessionId)}, not ${
          JSON.stringify(events[0]!.sessionId)
        }; it is ignored`,
      });
      continue;
    }
    if (torn) {
      // Complete JSON but no newline: keep it (the bytes are all there) and still report it.
      diagnostics.push({
        line: i + 1,
        kind: "torn_last_line",
        message: `line ${i + 1} has no final newline`,
      });
    }
    events.push(value);
  }
  return { events, diagnostics };
}

/**
 * The transcript at `path`, null when there is none. Only a regular file is read: a symlink, folder or
 * FIFO in its place (never written by Blade) is BladeError `transcript_invalid`, so nothing is followed
 * out of the storage root and nothing blocks on a pipe.
 */
export async function readTranscript(fs: Fs, path: string): Promise<TranscriptRead | null> {
  return (await readTranscriptAndEnd(fs, path))?.read ?? null;
}

/**
 * readTranscript, and where the file ended when it was read: a TranscriptWriter given that end
 * (`after`) appends without reading the file again.
 */
export async function readTranscriptAndEnd(
  fs: Fs,
  path: string,
): Promise<{ read: TranscriptRead; end: TranscriptEnd } | null> {
  const info = await fs.lstat(path);
  if (info === null) return null;
  if (!info.isFile) {
    throw new BladeError(
      "transcript_invalid",
      `The transcript ${path} is not a regular file (a symlink, folder or special file); it is not read`,
      { hint: "Blade writes transcripts as plain files: move this one aside to start afresh." },
    );
  }
  let bytes: Uint8Array;
  try {
    bytes = await fs.readBytes(path);
  } catch (e) {
    if (fsErrorCode(e) === "ENOENT") return null;
    throw e;
  }
  const text = decoder.decode(bytes);
  const end = {
    size: bytes.length,
    lastSeq: lastSeqIn(text) ?? 0,
    endsWithNewline: text === "" || text.endsWith("\n"),
  };
  return { read: parseTranscript(text), end };
}

/** The seq of the last line that has one (a torn or bad line is skipped), read from the end. */
export function lastSeqIn(text: string): number | undefined {
  let stop = text.length;
  while (stop > 0) {
    const start = text.lastIndexOf("\n", stop - 1) + 1;
    const line = text.slice(start, stop);
    stop = start - 1;
    if (line.trim() === "") continue;
    try {
      const v = JSON.parse(line) as { seq?: unknown };
      if (typeof v.seq === "number") return v.seq;
    } catch { /* torn or bad line: look further back */ }
  }
  return undefined;
}

/** How one batch is appended (TranscriptLog.append). */
export interface TranscriptAppendOptions {
  /** false: not made durable before it resolves (nothing depends on it surviving a power loss). */
  sync?: boolean;
  /** Called once the batch was handed on, before it is durable (a hint for scheduling only). */
  onWritten?: () => void;
}

/**
 * A session's transcript, wherever it is kept: batches appended whole and in order, each event given
 * the next `seq` after every line already there (whoever wrote it), never doubled or reordered.
 */
export interface TranscriptLog {
  readonly sessionId: string;
  readonly projectPath: string;
  /** The last seq this log wrote or saw. */
  readonly lastSeq: number;
  /** The file it is kept in, for the model to read (after a compaction); none in a shared store's stream. */
  readonly path?: string | undefined;
  /** `text` with the secrets this log keeps out of its lines removed (files written beside it use it too). */
  redacted?(text: string): string;
  append(events: NewTranscriptEvent[], options?: TranscriptAppendOptions): Promise<TranscriptEvent[]>;
  /** The transcript as kept now (tolerantly parsed); null when there is none. */
  read(): Promise<TranscriptRead | null>;
}

export interface TranscriptWriterOptions {
  fs: Fs;
  clock: Clock;
  ids: Ids;
  path: string;
  sessionId: string;
  projectPath: string;
  /** Applied to every serialised line: removes secrets (API keys) before anything reaches disk. */
  redact?: (text: string) => string;
  /**
   * The file's end as the caller just read it (readTranscriptAndEnd): the first append reads nothing
   * back unless the file's size changed since.
   */
  after?: TranscriptEnd;
  /**
   * When this writer makes the transcript's folder, fsync the folder's parent too, so the folder's
   * name survives a power loss. For the main session's writer, which makes a project's folder; a
   * child's folder is its parent's (already there), and a sandboxed child may not read its parent.
   */
  syncMadeFolder?: boolean;
  /**
   * The transcript's folder is known to exist (a child's is its parent's project folder, which holds
   * the child's lease): the first batch does not make it. Made only if the file cannot be opened.
   */
  folderExists?: boolean;
}

/**
 * Appends events to one transcript. Safe across processes: each batch takes the file lock, learns
 * the current last `seq` from bytes appended by others since it last looked, and writes whole lines.
 */
export class TranscriptWriter implements TranscriptLog {
  readonly path: string;
  readonly sessionId: string;
  readonly projectPath: string;
  #o: TranscriptWriterOptions;
  #knownSize = 0;
  #lastSeq = 0;
  #endsWithNewline = true;
  #queue: Promise<unknown> = Promise.resolve();
  /** The folder is known to exist: it is made (and its mode asserted) once per writer, not per batch. */
  #dirReady = false;
  /** This writer made the folder: the first durable batch also fsyncs the folder's parent. */
  #madeDir = false;
  /** The transcript's folder. */
  readonly #dir: string;

  redacted(text: string): string {
    return this.#o.redact === undefined ? text : this.#o.redact(text);
  }

  constructor(options: TranscriptWriterOptions) {
    this.#o = options;
    this.path = options.path;
    this.#dir = dirname(options.path);
    this.sessionId = options.sessionId;
    this.projectPath = options.projectPath;
    if (options.after !== undefined) {
      this.#knownSize = options.after.size;
      this.#lastSeq = options.after.lastSeq;
      this.#endsWithNewline = options.after.endsWithNewline;
      // The file was just read, so its folder exists (made with its mode by whoever created it).
      this.#dirReady = true;
    }
    if (options.folderExists === true) this.#dirReady = true;
  }

  get lastSeq(): number {
    return this.#lastSeq;
  }

  read(): Promise<TranscriptRead | null> {
    return readTranscript(this.#o.fs, this.path);
  }

  /**
   * Append a batch atomically with respect to other writers; resolves after fsync. `sync: false`
   * skips the fsync, for a batch that nothing depends on surviving a power loss (whole lines are
   * still written under the lock, so a crash of the process never tears one). `onWritten` is called
   * once the batch's bytes have been handed to the file system, its fsyncs still running (a hint for
   * scheduling only: nothing is durable then).
   */
  append(events: NewTranscriptEvent[], options: TranscriptAppendOptions = {}): Promise<TranscriptEvent[]> {
    const run = this.#queue.then(() => this.#appendNow(events, options.sync !== false, options.onWritten));
    this.#queue = run.catch(() => {});
    return run;
  }

  async #appendNow(
    events: NewTranscriptEvent[],
    sync: boolean,
    onWritten?: () => void,
  ): Promise<TranscriptEvent[]> {
    const { fs } = this.#o;
    if (!this.#dirReady) {
      await this.#ensureFolder();
      this.#dirReady = true;
    }
    let ran = false;
    const batch = (file: LockedFile) => {
      ran = true;
      return this.#appendLocked(file, events, sync, onWritten);
    };
    try {
      // A file known to be there (read, or appended to) is opened without creating it.
      return await fs.withLockedFile(this.path, batch, this.#knownSize > 0 ? { create: false } : {});
    } catch (e) {
      // The file or its folder was removed since (a user cleaned up): made again, then one retry.
      if (ran || fsErrorCode(e) !== "ENOENT") throw e;
    }
    await this.#ensureFolder();
    return await fs.withLockedFile(this.path, batch);
  }

  async #ensureFolder(): Promise<void> {
    const { fs } = this.#o;
    if (this.#o.syncMadeFolder === true && (await fs.lstat(this.#dir)) === null) this.#madeDir = true;
    await fs.ensureDir(this.#dir);
  }

  /**
   * The folders whose entries a batch must make durable besides the file's bytes: a file found empty
   * may have just been created (by this writer or a crashed one), and its name survives a power loss
   * only once its folder is fsynced; a folder this writer made, only once its parent is.
   */
  #foldersToSync(size: number): string[] {
    if (size > 0) return [];
    return this.#madeDir ? [this.#dir, dirname(this.#dir)] : [this.#dir];
  }

  async #appendLocked(
    file: LockedFile,
    events: NewTranscriptEvent[],
    sync: boolean,
    onWritten?: () => void,
  ): Promise<TranscriptEvent[]> {
    const { clock, ids } = this.#o;
    const size = await file.size();
    if (size !== this.#knownSize) {
      const fresh = size < this.#knownSize || this.#knownSize < 0 ? 0 : this.#knownSize;
      const text = decoder.decode(await file.readFrom(fresh));
      const seq = lastSeqIn(text);
      if (seq !== undefined) this.#lastSeq = Math.max(fresh === 0 ? 0 : this.#lastSeq, seq);
      this.#endsWithNewline = text === "" ? this.#endsWithNewline : text.endsWith("\n");
    }
    const timestamp = new Date(clock.now()).toISOString();
    const seqBefore = this.#lastSeq;
    const written: TranscriptEvent[] = events.map((e) => ({
      seq: ++this.#lastSeq,
      id: ids.uuid(),
      sessionId: this.sessionId,
      projectPath: this.projectPath,
      timestamp,
      type: e.type,
      data: e.data,
    } as TranscriptEvent));
    // A torn line left by a crashed writer stays on its own line.
    const prefix = size > 0 && !this.#endsWithNewline ? "\n" : "";
    const redact = this.#o.redact ?? ((t: string) => t);
    const text = prefix + written.map((e) => redact(JSON.stringify(e))).join("\n") + "\n";
    const folders = sync ? this.#foldersToSync(size) : [];
    try {
      // The folders' fsyncs run alongside the file's: each must be done before the batch counts as
      // written, in no particular order (they usually share one journal commit).
      const writing = [file.append(text, { sync }), ...folders.map((d) => this.#o.fs.syncDir(d))];
      onWritten?.();
      const done = await Promise.allSettled(writing);
      const failed = done.find((r) => r.status === "rejected");
      if (failed !== undefined) throw failed.reason;
    } catch (e) {
      await this.#rollBack(file, size, seqBefore);
      throw e;
    }
    if (folders.length > 0) this.#madeDir = false;
    this.#knownSize = size + new TextEncoder().encode(text).length;
    this.#endsWithNewline = true;
    return written;
  }

  /**
   * A failed append (a full disk, a read-only remount) may have written part of the batch: cut the
   * file back to where it ended, so no torn line is left and no `seq` is used up. If even that fails,
   * the next batch re-reads the file and keeps the torn part on its own line.
   */
  async #rollBack(file: LockedFile, size: number, seq: number): Promise<void> {
    this.#lastSeq = seq;
    try {
      await file.truncate(size);
    } catch {
      this.#knownSize = -1; // the error that matters is the append's, thrown by the caller
    }
  }
}
