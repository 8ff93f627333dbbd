// Owns the scripted provider's placeholders: `{{last_user}}` and `{{match:REGEX}}`, expanded against the
// request's messages. Pure, no I/O. Does not own choosing the turn (scripted.ts) or validation
// (script_schema.ts, which uses matchSources to check each REGEX compiles).

import type { Message } from "../protocol/messages.ts";

/** `{{match:…}}` ends at the last two braces of the first run of `}`, so `{{match:\d{3}}}` works. */
const PLACEHOLDER = /\{\{last_user\}\}|\{\{match:([\s\S]*?)\}\}(?!\})/g;

export interface PlaceholderContext {
  /** Text and tool-result content of the last user message, blocks joined by newlines. */
  lastUser: string;
  /** Every text block and tool-result content of the request, in order. */
  texts: string[];
}

export function placeholderContext(messages: readonly Message[]): PlaceholderContext {
  const texts: string[] = [];
  let lastUser = "";
  for (const message of messages) {
    const own: string[] = [];
    for (const block of message.content) {
      if (block.type === "text") own.push(block.text);
      if (block.type === "tool_result") own.push(block.content);
    }
    texts.push(...own);
    if (message.role === "user") lastUser = own.join("\n");
  }
  return { lastUser, texts };
}

export function expandText(text: string, context: PlaceholderContext): string {
  return text.replace(
    PLACEHOLDER,
    (_whole, source: string | undefined) =>
      source === undefined ? context.lastUser : lastMatch(source, context.texts),
  );
}

/** Expands every string inside a JSON-like value (keys stay as written). */
export function expandValue(value: unknown, context: PlaceholderContext): unknown {
  if (typeof value === "string") return expandText(value, context);
  if (Array.isArray(value)) return value.map((v) => expandValue(v, context));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandValue(v, context)]));
  }
  return value;
}

/** The REGEX sources of every `{{match:REGEX}}` in a text. */
export function matchSources(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].flatMap((m) => m[1] === undefined ? [] : [m[1]]);
}

/** Group 1 (or the whole match) of the last match across all texts; "" when nothing matches. */
function lastMatch(source: string, texts: readonly string[]): string {
  let pattern: RegExp;
  try {
    pattern = new RegExp(source, "g");
  } catch {
    return ""; // validated at load time; a hand-built script object may still carry a bad one
  }
  let last: RegExpExecArray | undefined;
  for (const text of texts) for (const m of text.matchAll(pattern)) last = m;
  if (last === undefined) return "";
  return last.length > 1 ? last[1] ?? "" : last[0];
}
