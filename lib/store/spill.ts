// Owns keeping a sidecar record readable whatever its run produced (docs/reference/sidecars.md,
// "Large results"): a result, an error or a conversation above an inline cap is moved to a file of its
// own beside the record (`<id>.spill/`), named by its content's SHA-256, and the record keeps a capped
// text with a pointer, or no messages, plus `spill`, which names the files. The file store writes the
// files (fsync, rename) before the record that names them, so a record never names a file that is not
// there; `withSpilled` reads them back for those who need the whole (tasks output, TaskOutput, a resume,
// recovery). The caps keep every record far below the 64 MiB read cap (file_store.ts).

import type { Message } from "../protocol/messages.ts";
import type { SidecarRecord } from "./schema.ts";

/** Characters of a result or an error kept in the record itself; longer ones are spilled. */
export const SPILL_TEXT_CHARS = 1_048_576;
/** Characters of the conversation (as JSON) kept in the record itself; a longer one is spilled whole. */
export const SPILL_MESSAGES_CHARS = 16 * 1_048_576;
/** What the record keeps of a spilled result or error: its head, then the pointer. */
export const SPILL_HEAD_CHARS = 32_000;

export type SpilledField = "result" | "error" | "messages";

/** What a store keeps inline (characters); the NATS store's are smaller (a KV value is one message). */
export interface SpillCaps {
  textChars: number;
  messagesChars: number;
}

/** The file store's: records far below its 64 MiB read cap. */
export const FILE_SPILL_CAPS: SpillCaps = {
  textChars: SPILL_TEXT_CHARS,
  messagesChars: SPILL_MESSAGES_CHARS,
};

/** One spilled value: its file (in `<id>.spill/`) and its size. */
export interface SpillRef {
  file: string;
  chars: number;
  /** `messages`: how many messages the file holds. */
  count?: number;
}

export type SpillRefs = Partial<Record<SpilledField, SpillRef>>;

/** A file to write before the record. */
export interface SpillFile {
  name: string;
  text: string;
}

/** The folder of a record's spilled values, beside its file. */
export function spillDir(sessionsDir: string, id: string): string {
  return `${sessionsDir}/${id}.spill`;
}

/** The record's spill references (an unknown field of schema v2, kept by every store). */
export function spillOf(record: SidecarRecord): SpillRefs | undefined {
  return (record as SidecarRecord & { spill?: SpillRefs }).spill;
}

function withRefs(record: SidecarRecord, refs: SpillRefs): SidecarRecord {
  const { spill: _, ...rest } = record as SidecarRecord & { spill?: SpillRefs };
  return (Object.keys(refs).length === 0 ? rest : { ...rest, spill: refs }) as SidecarRecord;
}

/** The text a record keeps of a spilled value. */
export function spilledHead(text: string, ref: SpillRef, o: { id: string; what: string }): string {
  return `${
    text.slice(0, SPILL_HEAD_CHARS)
  }\n\n[${o.what} continues: ${ref.chars} characters in all, kept in ` +
    `${o.id}.spill/${ref.file}; \`blade tasks output ${o.id}\` or TaskOutput reads it whole]`;
}

async function contentName(field: SpilledField, text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("").slice(0, 24);
  return `${field}-${hex}.${field === "messages" ? "jsonl" : "txt"}`;
}

/**
 * The record as it is stored and the files to write first. A value at or below its cap stays inline;
 * a larger one moves to a file. A record read back (capped text, no messages) keeps its references
 * as they are, so a later change of another field does not lose them.
 */
export async function planSpill(
  record: SidecarRecord,
  caps: SpillCaps = FILE_SPILL_CAPS,
): Promise<{ record: SidecarRecord; files: SpillFile[] }> {
  const before = spillOf(record) ?? {};
  const refs: SpillRefs = {};
  const files: SpillFile[] = [];
  let next = record;
  // The conversation: spilled whole, one message a line.
  if (record.messages.length === 0 && before.messages !== undefined) refs.messages = before.messages;
  else {
    const json = JSON.stringify(record.messages);
    if (json.length > caps.messagesChars) {
      const text = record.messages.map((m) => JSON.stringify(m)).join("\n") + "\n";
      const file = await contentName("messages", text);
      files.push({ name: file, text });
      refs.messages = { file, chars: json.length, count: record.messages.length };
      next = { ...next, messages: [] };
    }
  }
  for (const field of ["result", "error"] as const) {
    const value = field === "result" ? record.result.message : record.result.error;
    if (value === undefined) continue;
    const kept = before[field];
    if (
      kept !== undefined &&
      value.endsWith(
        `${record.id}.spill/${kept.file}; \`blade tasks output ${record.id}\` or TaskOutput reads it whole]`,
      )
    ) {
      refs[field] = kept;
      continue;
    }
    if (value.length <= caps.textChars) continue;
    const file = await contentName(field, value);
    const ref = { file, chars: value.length };
    files.push({ name: file, text: value });
    refs[field] = ref;
    const head = spilledHead(value, ref, {
      id: record.id,
      what: field === "result" ? "The result" : "The error",
    });
    next = {
      ...next,
      result: field === "result" ? { ...next.result, message: head } : { ...next.result, error: head },
    };
  }
  return { record: withRefs(next, refs), files };
}

/** How a store reads a spilled value back (the file store: from `<id>.spill/`). */
export type SpillReader = (id: string, file: string) => Promise<string>;

/** The record with its spilled values read back: the whole result, error and conversation. */
export async function withSpilled(record: SidecarRecord, read: SpillReader): Promise<SidecarRecord> {
  const refs = spillOf(record);
  if (refs === undefined) return record;
  let full = record;
  if (refs.result !== undefined) {
    full = { ...full, result: { ...full.result, message: await read(record.id, refs.result.file) } };
  }
  if (refs.error !== undefined) {
    full = { ...full, result: { ...full.result, error: await read(record.id, refs.error.file) } };
  }
  if (refs.messages !== undefined) {
    const text = await read(record.id, refs.messages.file);
    const messages = text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Message);
    full = { ...full, messages };
  }
  return withRefs(full, {});
}
