// Owns putting a session's context (memory, the skills listing: docs/guides/memory.md) in front of the
// conversation for one model request: the first user message opens with it, as in Claude Code. The
// conversation itself (and the transcript) never holds it. Pure.

import type { Message } from "../protocol/messages.ts";

/** `messages` with `context` as text blocks opening the first user message (a copy; unchanged when none). */
export function withContext(messages: Message[], context: readonly string[] | undefined): Message[] {
  if (context === undefined || context.length === 0) return messages;
  const first = messages.findIndex((m) => m.role === "user");
  if (first === -1) return messages;
  const out = [...messages];
  const m = out[first]!;
  out[first] = { ...m, content: [...context.map((text) => ({ type: "text" as const, text })), ...m.content] };
  return out;
}
