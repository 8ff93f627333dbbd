// Owns a session's durable inbox (docs/reference/background.md): the `<sessionId>.inbox.json` file holding completion
// notices and user steering messages that the session has not consumed yet. Every change runs under
// an exclusive cross-process lock on `<path>.lock` (removed when released) and rewrites the file atomically, or
// removes it when its last entries go (no fsync: what it held is acknowledged in the transcript); a corrupt file is
// reported, never overwritten. Does not build notices (run/notice.ts), write transcripts or decide
// when entries are acknowledged: callers remove entries once the transcript holds them.
// `SessionInbox` is the port (the NATS store's is lib/remote/nats_inbox.ts); `Inbox` is the file one.

import { dirname } from "../path.ts";
import { array, number, object, oneOf, optional, parseWith, string } from "../protocol/check.ts";
import { BladeError } from "../errors.ts";
import type { Clock } from "../sys/clock.ts";
import type { Fs } from "../sys/fs.ts";

export interface InboxEntry {
  inboxId: string;
  kind: "completion" | "steering";
  text: string;
  createdAt: number;
  agentId?: string;
}

export type EnqueueResult =
  | { accepted: true; duplicate: boolean }
  | { accepted: false; reason: "queue_full" | "too_large"; message: string };

export const INBOX_LIMITS = { completions: 100, steering: 20, bytes: 8 * 1024 * 1024 };

/**
 * A session's inbox, wherever it is kept: an entry is pending once until removed (an inboxId already
 * pending is an accepted no-op), within INBOX_LIMITS; unusable stored data is BladeError `inbox_invalid`.
 */
export interface SessionInbox {
  /** Adds `entry` unless its inboxId is already pending (then an accepted no-op) or a limit is hit. */
  enqueue(entry: InboxEntry): Promise<EnqueueResult>;
  /** Entries not yet removed, in enqueue order. */
  pending(): Promise<InboxEntry[]>;
  /** Removes the entries with these ids (ids not pending are ignored). */
  remove(inboxIds: readonly string[]): Promise<void>;
}

/** The entry checked as the port requires (BladeError `invalid_inbox_entry`), for every implementation. */
export function checkedEntry(entry: InboxEntry): InboxEntry {
  const parsed = parseWith<InboxEntry>(entryCheck, entry);
  if (!parsed.success) {
    throw new BladeError(
      "invalid_inbox_entry",
      `Cannot enqueue inbox entry: ${parsed.error.issues[0]?.message}`,
    );
  }
  return parsed.data;
}

/** A stored entry's JSON decoded and checked; null when it is not an inbox entry. */
export function parseEntry(raw: unknown): InboxEntry | null {
  const parsed = parseWith<InboxEntry>(entryCheck, raw);
  return parsed.success ? parsed.data : null;
}

const INBOX_VERSION = 1;
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

const entryCheck = object({
  inboxId: string({ min: 1 }),
  kind: oneOf(["completion", "steering"]),
  text: string(),
  createdAt: number(),
  agentId: optional(string()),
}, { loose: true });

const fileCheck = object({ version: oneOf([INBOX_VERSION]), entries: array(entryCheck) }, { loose: true });

const encoder = new TextEncoder();

export class Inbox implements SessionInbox {
  readonly path: string;
  #fs: Fs;

  /** `clock` is taken like every session store's, but unused so far: entries carry their createdAt. */
  constructor(options: { fs: Fs; clock: Clock; path: string }) {
    this.#fs = options.fs;
    this.path = options.path;
  }

  /** Adds `entry` unless its inboxId is already pending (then an accepted no-op) or a limit is hit. */
  async enqueue(entry: InboxEntry): Promise<EnqueueResult> {
    checkedEntry(entry);
    return await this.#change((entries) => {
      if (entries.some((e) => e.inboxId === entry.inboxId)) {
        return { result: { accepted: true, duplicate: true } };
      }
      const next = [...entries, { ...entry }];
      const refused = refusal(entries, next);
      if (refused !== null) return { result: refused };
      return { result: { accepted: true, duplicate: false }, text: encodeInbox(next) };
    });
  }

  /** Entries not yet removed, in enqueue order; [] when there is no inbox file. */
  async pending(): Promise<InboxEntry[]> {
    return await this.#read();
  }

  /**
   * Removes the entries with these ids (ids not pending are ignored). Callers remove only what the
   * transcript already holds, so this is no commit point: when no entry is left the file is unlinked,
   * not fsynced (a crash that undoes it leaves entries the next open drops as acknowledged, see
   * executor/main_runner.ts); entries kept are rewritten atomically, fsynced, as any change.
   */
  async remove(inboxIds: readonly string[]): Promise<void> {
    if (inboxIds.length === 0) return;
    const gone = new Set(inboxIds);
    await this.#change((entries) => {
      const kept = entries.filter((e) => !gone.has(e.inboxId));
      if (kept.length === entries.length) return { result: undefined };
      return kept.length === 0
        ? { result: undefined, text: null }
        : { result: undefined, text: encodeInbox(kept) };
    });
  }

  /**
   * Under the lock: read the file, let `apply` decide, write its text (if any) atomically; `null`
   * removes the file.
   */
  async #change<T>(apply: (entries: InboxEntry[]) => { result: T; text?: string | null }): Promise<T> {
    await this.#fs.ensureDir(dirname(this.path), DIR_MODE);
    return await this.#fs.withLockedFile(`${this.path}.lock`, async () => {
      const { result, text } = apply(await this.#read());
      if (text === null) await this.#fs.remove(this.path);
      else if (text !== undefined) {
        await this.#fs.writeAtomic(this.path, text, { mode: FILE_MODE, dirMode: DIR_MODE });
      }
      return result;
    }, { mode: FILE_MODE, transient: true });
  }

  async #read(): Promise<InboxEntry[]> {
    const info = await this.#fs.lstat(this.path);
    if (info === null) return [];
    // Never followed or opened: a symlink, folder or FIFO in its place; never read whole: an oversized file.
    if (!info.isFile) throw this.#invalid("is not a regular file (a symlink, folder or special file)");
    if (info.size > INBOX_LIMITS.bytes) {
      throw this.#invalid(`is too large (${info.size} bytes, over its limit of ${INBOX_LIMITS.bytes} bytes)`);
    }
    let text: string;
    try {
      text = await this.#fs.readText(this.path);
    } catch (e) {
      if (await this.#fs.lstat(this.path) === null) return [];
      throw this.#invalid(`cannot be read (${e instanceof Error ? e.message : String(e)})`, e);
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      throw this.#invalid(`is not valid JSON (${e instanceof Error ? e.message : String(e)})`, e);
    }
    const parsed = parseWith<{ entries: InboxEntry[] }>(fileCheck, raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue === undefined || issue.path.length === 0
        ? ""
        : `${issue.path.map(String).join(".")}: `;
      throw this.#invalid(`is not a version ${INBOX_VERSION} inbox (${where}${issue?.message ?? "invalid"})`);
    }
    return parsed.data.entries;
  }

  #invalid(why: string, cause?: unknown): BladeError {
    return new BladeError("inbox_invalid", `The session inbox ${this.path} ${why}`, {
      hint: "Its pending completions and messages are kept as they are. Inspect or repair the file " +
        "(results stay available through TaskOutput), or move it aside to start with an empty inbox.",
      cause,
    });
  }
}

/**
 * Why `next` (the pending entries and a new one) may not be kept: a queue at its limit, or over
 * INBOX_LIMITS.bytes as the file store encodes it (the same bound for every implementation); null: fine.
 */
export function refusal(entries: readonly InboxEntry[], next: readonly InboxEntry[]): EnqueueResult | null {
  const full = queueFull(entries, next[next.length - 1]!.kind);
  if (full !== null) return full;
  const bytes = encoder.encode(encodeInbox(next)).length;
  if (bytes <= INBOX_LIMITS.bytes) return null;
  return {
    accepted: false,
    reason: "too_large",
    message: `The inbox would grow to ${bytes} bytes, over its limit of ${INBOX_LIMITS.bytes} bytes`,
  };
}

function queueFull(entries: readonly InboxEntry[], kind: InboxEntry["kind"]): EnqueueResult | null {
  const limit = kind === "completion" ? INBOX_LIMITS.completions : INBOX_LIMITS.steering;
  const count = entries.filter((e) => e.kind === kind).length;
  if (count < limit) return null;
  const what = kind === "completion" ? "completion notices" : "steering messages";
  return {
    accepted: false,
    reason: "queue_full",
    message: `The inbox already holds ${count} pending ${what} (limit ${limit})`,
  };
}

function encodeInbox(entries: readonly InboxEntry[]): string {
  return `${JSON.stringify({ version: INBOX_VERSION, entries }, null, 2)}\n`;
}
