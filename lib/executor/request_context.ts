// Owns putting a session's context (memory, the skills listing: docs/guides/memory.md) in front of the
// conversation for one model request: the first user message opens with it, as in Claude Code. The
// conversation itself (and the transcript) never holds it; the text tool results bring along; and where
// hooks' system turns go in a turn's opening messages. Pure.

import type { Message, TextBlock } from "../protocol/messages.ts";
import type { ToolResult } from "../tools/tool.ts";

/** The loop's option (LoopOptions extends it). */
export interface RequestContext {
  /** Text opening the first user message of each request, never persisted (memory, the skills listing). */
  context?: readonly string[] | undefined;
}

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

/**
 * What hooks said after the results (ToolResult.systemContext): one system turn following the results'
 * message, as Claude Code 2.1.332 sends a PostToolUse hook's additional context; none when nothing was said.
 */
export function resultSystemTurn(results: readonly ToolResult[]): Message | undefined {
  const texts = results.flatMap((r) => r.systemContext ?? []);
  if (texts.length === 0) return undefined;
  return { role: "system", content: texts.map((text) => ({ type: "text", text })), hidden: true };
}

/** What tool results bring along (nested memory, a skill's instructions): text after the results. */
export function resultContext(results: readonly ToolResult[]): TextBlock[] {
  return results.flatMap((r) => r.context ?? []).map((text) => ({ type: "text", text }));
}

/**
 * A turn's opening messages: what the session's start held, then the input; system turns (hooks'
 * context) after the rest, the session start's before the prompt's (Claude Code 2.1.332's order).
 */
export function openingMessages(held: readonly Message[], input: readonly Message[]): Message[] {
  const all = [...held, ...input];
  return [...all.filter((m) => m.role !== "system"), ...all.filter((m) => m.role === "system")];
}
