// Owns the provider-neutral conversation vocabulary: messages, content blocks, tool specs, usage.
// No I/O. Providers translate to and from their wire formats; the loop, transcript and sidecars
// store exactly these shapes.

export interface TextBlock {
  type: "text";
  text: string;
}

export interface ToolCallBlock {
  type: "tool_call";
  /** Provider-assigned call id (Anthropic `toolu_…`, OpenAI `call_…`, scripted `call_…`). */
  id: string;
  name: string;
  /** Parsed arguments. `{}` when the model sent arguments that are not valid JSON (see inputError). */
  input: Record<string, unknown>;
  /** Set when the model's arguments could not be parsed; the loop answers with a tool error. */
  inputError?: string;
}

export interface ToolResultBlock {
  type: "tool_result";
  callId: string;
  content: string;
  isError: boolean;
}

/** The model's thinking: sent back to the model as it came (the API checks it); never shown as text. */
export interface ThinkingBlock {
  type: "thinking";
  thinking: string;
  signature: string;
}

/** Thinking the API returns encrypted: kept and sent back as it came, like ThinkingBlock. */
export interface RedactedThinkingBlock {
  type: "redacted_thinking";
  data: string;
}

export type ContentBlock =
  | TextBlock
  | ToolCallBlock
  | ToolResultBlock
  | ThinkingBlock
  | RedactedThinkingBlock;

/**
 * `system`: a system turn, text the harness (not the user) tells the model mid-conversation: a hook's
 * added context, sent as Claude Code 2.1.332 sends it (tests/fixtures/claude/hooks_*: a `role: "system"`
 * message after what it is about). Never shown as anyone's words.
 */
export type Role = "user" | "assistant" | "system";

export interface Message {
  role: Role;
  content: ContentBlock[];
  /** Hidden messages are sent to the model but not shown as user input (e.g. completion notices). */
  hidden?: boolean;
}

/** A tool as the model sees it. `inputSchema` is a JSON Schema object. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/**
 * Tokens of one or more model requests. As in Anthropic's usage (and Claude Code's results),
 * `inputTokens` excludes prompt-cache reads and writes, which are counted apart when the provider
 * reports them (absent = none).
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens?: number;
  cacheCreationInputTokens?: number;
}

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0 };
}

export function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
  };
  const read = (a.cacheReadInputTokens ?? 0) + (b.cacheReadInputTokens ?? 0);
  const created = (a.cacheCreationInputTokens ?? 0) + (b.cacheCreationInputTokens ?? 0);
  if (read > 0) sum.cacheReadInputTokens = read;
  if (created > 0) sum.cacheCreationInputTokens = created;
  return sum;
}

/** Every token of the usage: input, output and prompt-cache reads and writes. */
export function totalTokens(u: Usage): number {
  return u.inputTokens + u.outputTokens + (u.cacheReadInputTokens ?? 0) + (u.cacheCreationInputTokens ?? 0);
}

/** What a cancelled turn leaves in the conversation (Claude Code's words, so models trained on it know them). */
export const INTERRUPTED_BY_USER = "[Request interrupted by user]";

export function userText(text: string, hidden = false): Message {
  return hidden ? { role: "user", content: [{ type: "text", text }], hidden } : {
    role: "user",
    content: [{ type: "text", text }],
  };
}

/** A system turn of one text (Role), hidden from the visible conversation. */
export function systemText(text: string): Message {
  return { role: "system", content: [{ type: "text", text }], hidden: true };
}

/** Concatenated text of a message's text blocks. */
export function textOf(message: Message): string {
  return message.content.filter((b): b is TextBlock => b.type === "text").map((b) => b.text).join("");
}
