// Owns translating a ModelRequest into an Anthropic Messages API request body. Pure, no I/O. Does not
// own streaming the answer back (anthropic_stream.ts) or sending it (anthropic.ts).

import type { ContentBlock } from "../protocol/messages.ts";
import type { ModelRequest } from "../protocol/provider.ts";
import type { Effort } from "../protocol/effort.ts";
import { modelProfile } from "../config/models.ts";
import { mergeForWire, type WireMessage } from "./wire_messages.ts";
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
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string };

/** One text block of the system prompt. */
export interface AnthropicSystemBlock {
  type: "text";
  text: string;
  cache_control?: CacheControl;
}

export type AnthropicMessage =
  | { role: "user" | "assistant"; content: AnthropicBlock[] }
  /**
   * A system turn (messages.ts Role) as Claude Code 2.1.332 sends it: its texts as one string, a blank
   * line between them; one text block when it carries the cache breakpoint.
   */
  | { role: "system"; content: string | { type: "text"; text: string; cache_control?: CacheControl }[] };

/** A wire message's content as blocks (a system turn's string as one text block). */
export function wireBlocks(m: AnthropicMessage): AnthropicBlock[] {
  return typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
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
  thinking?:
    | { type: "enabled"; budget_tokens: number; display?: string }
    | { type: "adaptive"; display?: string }
    | { type: "disabled" };
  /** Thinking blocks of earlier turns stay in the context (Claude Code's `clear_thinking` with keep all). */
  context_management?: { edits: { type: string; keep: string }[] };
  output_config?: {
    effort?: Effort;
    format?: { type: "json_schema"; schema: Record<string, unknown> };
  };
  /** Sent (1) when thinking is turned off on a model that thinks on a budget, as Claude Code does. */
  temperature?: number;
  stream: true;
}

/** The run's model options (provider config): what Claude Code's flags and variables set. */
export interface AnthropicModelOptions {
  /** MAX_THINKING_TOKENS / `--max-thinking-tokens`: a budget model's budget; 0 = no thinking where allowed. */
  thinkingBudget?: number | undefined;
  /** `--thinking disabled` turns thinking off where the model allows it. */
  thinking?: "adaptive" | "enabled" | "disabled" | undefined;
  /** `thinking.display`: `omitted`, `updates` when messages are printed, or the SDK's choice. */
  thinkingDisplay?: string | undefined;
  /** `--effort`: the session's effort (a request's own `effort`, an agent's, wins). */
  effort?: Effort | undefined;
  /**
   * What prompt caching is switched off for (prompt_cache.ts `cachesPrompt`): `"*"` or model families
   * (DISABLE_PROMPT_CACHING and its variants). Default: on for every model.
   */
  cacheOff?: readonly string[] | undefined;
}

/** Beta features a body uses, as Claude Code names them in `anthropic-beta`. */
export function betasOf(body: AnthropicRequestBody): string[] {
  return [
    ...(body.thinking !== undefined && body.thinking.type !== "disabled"
      ? ["interleaved-thinking-2025-05-14"]
      : []),
    ...(body.context_management === undefined ? [] : ["context-management-2025-06-27"]),
    ...(body.output_config?.effort === undefined ? [] : ["effort-2025-11-24"]),
    ...(body.thinking !== undefined && "display" in body.thinking && body.thinking.display === "updates"
      ? ["thinking-display-updates-2026-08-18"]
      : []),
  ];
}

/** The least `budget_tokens` the API takes. */
const MIN_BUDGET = 1024;

/**
 * `max_tokens`, `thinking`, `context_management` and `output_config` of a request, as Claude Code
 * 2.1.332 sends them for the request's model (tests/fixtures/claude/models/).
 */
function modelFields(request: ModelRequest, o: AnthropicModelOptions): Partial<AnthropicRequestBody> {
  const profile = modelProfile(request.model);
  const maxTokens = Math.min(
    request.maxTokens > 0 ? request.maxTokens : profile.defaultMaxTokens,
    profile.maxTokensCap,
  );
  // A session's own budget (the SDK's setMaxThinkingTokens) replaces the run's choice of thinking.
  const budget = request.thinkingBudget ?? o.thinkingBudget;
  const off = profile.thinkingOff &&
    (request.thinkingBudget === undefined
      ? o.thinking === "disabled" || o.thinkingBudget === 0
      : budget === 0);
  const display = request.thinkingDisplay ?? o.thinkingDisplay ?? "omitted";
  const thinking: AnthropicRequestBody["thinking"] = profile.thinking === "none" ? undefined : off
    // Claude Code turns a model it knows off explicitly; a custom id gets no thinking field.
    ? (profile.known ? { type: "disabled" } : undefined)
    : profile.thinking === "adaptive"
    ? { type: "adaptive", display }
    // The budget is at least the API's least (1024, as Claude Code raises it) and below max_tokens.
    : {
      type: "enabled",
      budget_tokens: Math.min(Math.max(budget ?? maxTokens - 1, MIN_BUDGET), maxTokens - 1),
      display,
    };
  const effort = profile.effort === undefined ? undefined : request.effort ?? o.effort ?? profile.effort;
  return {
    max_tokens: maxTokens,
    ...(thinking === undefined ? {} : { thinking }),
    ...(thinking === undefined || thinking.type === "disabled"
      ? {}
      : { context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] } }),
    ...outputConfig(effort, request.outputSchema),
    ...(thinking?.type === "disabled" ? { temperature: 1 } : {}),
  };
}

/** `output_config`: the effort, and the JSON schema the answer must follow (a `prompt` hook's). */
function outputConfig(
  effort: Effort | undefined,
  schema: Record<string, unknown> | undefined,
): Pick<AnthropicRequestBody, "output_config"> {
  if (effort === undefined && schema === undefined) return {};
  const config: NonNullable<AnthropicRequestBody["output_config"]> = {};
  if (effort !== undefined) config.effort = effort;
  if (schema !== undefined) config.format = { type: "json_schema", schema };
  return { output_config: config };
}

/** Anthropic's server-side web search tool, as the Messages API takes it. */
export interface WebSearchWireTool {
  type: "web_search_20250305";
  name: "web_search";
  allowed_domains?: string[];
  blocked_domains?: string[];
  max_uses: number;
}

export function anthropicRequestBody(
  request: ModelRequest,
  options: AnthropicModelOptions = {},
): AnthropicRequestBody {
  const body: AnthropicRequestBody = {
    model: request.model,
    max_tokens: 0,
    ...modelFields(request, options),
    messages: mergeForWire(request.messages).map(anthropicMessage),
    stream: true,
  };
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

function anthropicMessage(m: WireMessage): AnthropicMessage {
  if (m.role === "system") {
    return {
      role: "system",
      content: m.content.flatMap((b) => b.type === "text" ? [b.text] : []).join("\n\n"),
    };
  }
  // The API wants a user message's tool results before any text.
  return {
    role: m.role,
    content: m.role === "user" ? resultsFirst(m.content).map(anthropicBlock) : m.content.map(anthropicBlock),
  };
}

/** The breakpoint on the conversation's tail: the last block of the last message that can carry one. */
function markConversationTail(messages: AnthropicMessage[]): void {
  const last = messages.at(-1);
  if (last === undefined) return;
  if (last.role === "system") {
    const text = typeof last.content === "string"
      ? last.content
      : last.content.map((b) => b.text).join("\n\n");
    last.content = [{ type: "text", text, cache_control: EPHEMERAL }];
    return;
  }
  const block = last.content[messageBreakpoint(last.content)];
  if (block !== undefined && block.type !== "thinking" && block.type !== "redacted_thinking") {
    block.cache_control = EPHEMERAL;
  }
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
    case "redacted_thinking":
      return { type: "redacted_thinking", data: block.data };
  }
}
