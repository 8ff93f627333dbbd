// Owns keeping a tool result past its size out of the conversation (docs/reference/limits.md "Large
// tool results"), as Claude Code 2.1.332 does: the whole text is written durably (temp file, fsync,
// rename, fsync folder) to `<session folder>/tool-results/<call id>.txt` beside the transcript before
// the result is recorded, and the result becomes the `<persisted-output>` block naming that file
// (tools/persisted_output.ts) — what the transcript keeps and every later request sends, so the
// conversation's prefix stays the same. The model reads the rest with Read (the folder is in the
// session's read scope, tool_runner.ts). Without a folder, or when the write fails, the model gets the
// head of the text and a note that the rest was dropped.

import type { Fs } from "../sys/fs.ts";
import type { ToolResult } from "../tools/tool.ts";
import { persistedMessage, unsavedMessage } from "../tools/persisted_output.ts";

/** The session's folder of saved results, from its transcript's path (`<id>.jsonl` → `<id>/tool-results`). */
export function toolResultsDir(transcriptPath: string | undefined): string | undefined {
  if (transcriptPath === undefined || !transcriptPath.endsWith(".jsonl")) return undefined;
  return `${transcriptPath.slice(0, -".jsonl".length)}/tool-results`;
}

/** A call id as a file name: letters, digits, `_`, `-` and inner dots kept, every other character %XX. */
export function resultFileName(callId: string): string {
  let name = "";
  for (const ch of callId) {
    const plain = /^[A-Za-z0-9_-]$/.test(ch) || (ch === "." && name !== "");
    name += plain
      ? ch
      : [...new TextEncoder().encode(ch)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`)
        .join("");
  }
  return `${name === "" ? "%" : name}.txt`;
}

/**
 * `result` as the model gets it: unchanged up to `limit` characters; past it, saved whole in `dir`
 * and replaced by the block naming the file (`dir` absent or the write failed: the head only).
 */
export async function fitResult(
  result: ToolResult,
  o: {
    callId: string;
    limit: number;
    fs: Fs;
    dir?: string | undefined;
    redact?: ((text: string) => string) | undefined;
  },
): Promise<ToolResult> {
  const text = result.content;
  // Decided by size alone: a tool's text that merely starts like a block is no reason to keep it whole.
  if (text.length <= o.limit) return result;
  if (o.dir !== undefined) {
    const path = `${o.dir}/${resultFileName(o.callId)}`;
    try {
      await o.fs.ensureDir(o.dir);
      // Secrets are kept out of the file as out of the transcript beside it.
      await o.fs.writeAtomic(path, o.redact === undefined ? text : o.redact(text));
      return { ...result, content: persistedMessage(text, path) };
    } catch {
      // The head below, saying the rest was dropped.
    }
  }
  return { ...result, content: unsavedMessage(text, o.limit) };
}
