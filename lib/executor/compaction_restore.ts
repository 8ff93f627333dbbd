// Owns re-attaching the files a session read most recently after a compaction (docs/reference/limits.md,
// "Compaction"), as Claude Code 2.1.332 does (golden tests/fixtures/claude/compaction/reattach.json):
// the last five distinct files its successful Read calls before the kept messages named, most recent first, each
// read again now and sent after the kept messages as two hidden texts — the Read call's input, then
// "Result of calling the Read tool:" and what Read gives — a file past 5,000 tokens left out (so the five stay within 25,000). A file
// whose Read is among the kept messages is already in the conversation and is not attached again; a
// file that can no longer be read, or is past its budget, is not attached (the model reads it when it needs
// it). Pure but for the `reread` it is handed.

import type { Message, TextBlock } from "../protocol/messages.ts";

/** At most this many files are re-attached. */
export const RESTORE_MAX_FILES = 5;
/** A file past this many tokens (4 characters a token) is not re-attached. */
export const RESTORE_FILE_TOKENS = 5_000;

const READ = "Read";

/**
 * The files Read calls in `messages` read, in order: only calls whose result came back without error,
 * so a read the gate refused is never done now without it.
 */
function readPaths(messages: readonly Message[]): string[] {
  const succeeded = new Set<string>();
  for (const m of messages) {
    for (const b of m.content) if (b.type === "tool_result" && !b.isError) succeeded.add(b.callId);
  }
  const paths: string[] = [];
  for (const m of messages) {
    for (const b of m.content) {
      if (b.type !== "tool_call" || b.name !== READ || !succeeded.has(b.id)) continue;
      const path = (b.input as { file_path?: unknown }).file_path;
      if (typeof path === "string" && path !== "") paths.push(path);
    }
  }
  return paths;
}

/** The files to re-attach: read before the kept messages and not in them, most recent first, at most five. */
export function recentReads(head: readonly Message[], kept: readonly Message[]): string[] {
  const shown = new Set(readPaths(kept));
  const out: string[] = [];
  for (const path of readPaths(head).reverse()) {
    if (shown.has(path) || out.includes(path)) continue;
    out.push(path);
    if (out.length === RESTORE_MAX_FILES) break;
  }
  return out;
}

const reminder = (text: string) => `<system-reminder>\n${text}\n</system-reminder>`;

/** One file as Claude Code re-attaches it: its Read call, then its result. */
export function restoredTexts(path: string, content: string): TextBlock[] {
  return [
    {
      type: "text",
      text: reminder(`Called the Read tool with the following input: ${JSON.stringify({ file_path: path })}`),
    },
    { type: "text", text: reminder(`Result of calling the Read tool:\n${content}`) },
  ];
}

/**
 * The texts re-attaching the session's recent files (read again with `reread`, which gives undefined
 * for a file it cannot read), each within its budget.
 */
export async function restoreReads(
  head: readonly Message[],
  o: { kept: readonly Message[]; reread: (path: string) => Promise<string | undefined> },
): Promise<TextBlock[]> {
  const texts: TextBlock[] = [];
  for (const path of recentReads(head, o.kept)) {
    const content = await o.reread(path).catch(() => undefined);
    if (content === undefined) continue;
    if (Math.ceil(content.length / 4) > RESTORE_FILE_TOKENS) continue;
    texts.push(...restoredTexts(path, content));
  }
  return texts;
}

/** `messages` with `texts` sent after them: added to a last user message, else as a hidden one. */
export function withRestored(messages: Message[], texts: readonly TextBlock[]): Message[] {
  if (texts.length === 0) return messages;
  const last = messages.at(-1);
  if (last?.role === "user") {
    return [...messages.slice(0, -1), { ...last, content: [...last.content, ...texts] }];
  }
  return [...messages, { role: "user", content: [...texts], hidden: true }];
}
