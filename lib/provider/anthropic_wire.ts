// Owns translating a ModelRequest into an Anthropic Messages API request body. Pure, no I/O. Does not
// own streaming the answer back (anthropic_stream.ts) or sending it (anthropic.ts).

import type { ContentBlock } from "../protocol/messages.ts";
import type { ModelRequest } from "../protocol/provider.ts";
import { mergeForWire } from "./wire_messages.ts";
import {
  type CacheControl,
  cachesPrompt,
  EPHEMERAL,
  messageBreakpoint,
  systemBlocks,
  systemBreakpoint,
} from "./prompt_cache.ts";

export type AnthropicBlock =
  | { type: "text"; text: string; cache_control?: CacheControl }
  | {
    type: "tool_use";
    id: string;
    name: string;
    input: Record<string, unknown>;
    cache_control?: CacheControl;
  }
  | {
    type: "tool_result";
    tool_use_id: string;
    content: string;
    is_error: boolean;
    cache_control?: CacheControl;
  }
  | { type: "thinking"; thinking: string; signature: string };

/** One text block of the system prompt. */
export interface AnthropicSystemBlock {
  type: "text";
  text: string;
  cache_control?: CacheControl;
}

export interface AnthropicMessage {
  role: "user" | "assistant";
  content: AnthropicBlock[];
}

export interface AnthropicRequestBody {
  model: string;
  max_tokens: number;
  /** Text blocks (prompt_cache.ts `systemBlocks`); absent when the prompt is empty. */
  system?: AnthropicSystemBlock[];
  messages: AnthropicMessage[];
  tools?: (
    | { name: string; description: string; input_schema: Record<string, unknown> }
    | WebSearchWireTool
  )[];
  thinking?: { type: "enabled"; budget_tokens: number };
  stream: true;
}

/** Anthropic's server-side web search tool, as the Messages API takes it. */
export interface WebSearchWireTool {
  type: "web_search_20250305";
  name: "web_search";
  allowed_domains?: string[];
  blocked_domains?: string[];
  max_uses: number;
}

export interface AnthropicBodyOptions {
  thinkingBudget?: number | undefined;
  /**
   * What prompt caching is switched off for (prompt_cache.ts `cachesPrompt`): `"*"` or model families.
   * Default: on for every model.
   */
  cacheOff?: readonly string[] | undefined;
}

export function anthropicRequestBody(
  request: ModelRequest,
  options: AnthropicBodyOptions = {},
): AnthropicRequestBody {
  const budget = options.thinkingBudget;
  const body: AnthropicRequestBody = {
    model: request.model,
    // The API wants max_tokens above the thinking budget: the answer gets its usual room on top.
    max_tokens: budget === undefined || budget < request.maxTokens
      ? request.maxTokens
      : budget + request.maxTokens,
    messages: mergeForWire(request.messages).map((m) => ({
      role: m.role,
      // The API wants a user message's tool results before any text.
      content: m.role === "user"
        ? resultsFirst(m.content).map(anthropicBlock)
        : m.content.map(anthropicBlock),
    })),
    stream: true,
  };
  if (budget !== undefined) body.thinking = { type: "enabled", budget_tokens: budget };
  const cache = request.promptCache !== false && cachesPrompt(request.model, options.cacheOff ?? []);
  const system = systemBlocks(request.system);
  if (system.length > 0) {
    body.system = system.map((text, i) =>
      cache && systemBreakpoint(i, system.length) ? { type: "text", text, cache_control: EPHEMERAL } : {
        type: "text",
        text,
      }
    );
  }
  if (cache) markConversationTail(body.messages);
  if (request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.inputSchema,
    }));
  }
  const search = request.webSearch;
  if (search !== undefined) {
    body.tools = [...body.tools ?? [], {
      type: "web_search_20250305",
      name: "web_search",
      ...(search.allowedDomains === undefined ? {} : { allowed_domains: search.allowedDomains }),
      ...(search.blockedDomains === undefined ? {} : { blocked_domains: search.blockedDomains }),
      max_uses: search.maxUses,
    }];
  }
  return body;
}

/** The breakpoint on the conversation's tail: the last block of the last message that can carry one. */
function markConversationTail(messages: AnthropicMessage[]): void {
  const last = messages.at(-1);
  if (last === undefined) return;
  const at = messageBreakpoint(last.content);
  const block = last.content[at];
  if (block !== undefined && block.type !== "thinking") block.cache_control = EPHEMERAL;
}

function resultsFirst(content: ContentBlock[]): ContentBlock[] {
  return [
    ...content.filter((b) => b.type === "tool_result"),
    ...content.filter((b) => b.type !== "tool_result"),
  ];
}

function anthropicBlock(block: ContentBlock): AnthropicBlock {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "tool_call":
      return { type: "tool_use", id: block.id, name: block.name, input: block.input };
    case "tool_result":
      return {
        type: "tool_result",
        tool_use_id: block.callId,
        content: block.content,
        is_error: block.isError,
      };
    case "thinking":
      // Sent back unchanged: the API checks the signature when thinking precedes a tool call.
      return { type: "thinking", thinking: block.thinking, signature: block.signature };
  }
}
