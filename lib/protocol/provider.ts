// Owns the one streaming contract every model provider implements. No I/O.
//
// Contract: `stream()` never throws and never rejects for model or network failures. The iterable
// yields any number of deltas and ends with exactly one terminal event, `done` or `error`.

import type { Message, ToolCallBlock, ToolSpec, Usage } from "./messages.ts";
import type { Effort } from "./effort.ts";

export interface ModelRequest {
  /** Concrete model id (aliases are resolved before a request is built). */
  model: string;
  system: string;
  messages: Message[];
  tools: ToolSpec[];
  /**
   * The run's cap on output tokens (CLAUDE_CODE_MAX_OUTPUT_TOKENS, settings `maxTokens`); 0 when none
   * was given: the provider uses the model's own (config/models.ts).
   */
  maxTokens: number;
  /** This session's effort (an agent file's `effort`); unset = the run's (`--effort`) or the model's. */
  effort?: Effort | undefined;
  /**
   * This session's thinking budget (the Agent SDK's setMaxThinkingTokens): a budget model's
   * `budget_tokens`, 0 = no thinking where the model allows it; unset = the run's.
   */
  thinkingBudget?: number | undefined;
  /** This session's `thinking.display` (the Agent SDK's `summarized` or `highlights`); unset = the run's. */
  thinkingDisplay?: string | undefined;
  /** Who is asking. Real providers ignore it; the scripted provider keys its replies on it. */
  meta: RequestMeta;
  /**
   * Anthropic's server-side web search for this request (WebSearch, lib/web/web_search.ts): the API
   * searches and answers in one response. Only the Anthropic provider offers it.
   */
  webSearch?: WebSearchTool;
  /**
   * `false` for a one-shot side request (WebSearch's search, WebFetch's answer): nothing of it is sent
   * again, and a prompt-cache write costs more than plain input, so it carries no breakpoint (as in
   * Claude Code). Default: the provider caches (Anthropic: lib/provider/prompt_cache.ts).
   */
  promptCache?: false;
  /**
   * The JSON schema the answer's text must follow (a `prompt` hook's decision: lib/hooks/prompt_hook.ts);
   * Anthropic's `output_config.format`, as Claude Code 2.1.332 sends it.
   */
  outputSchema?: Record<string, unknown>;
}

/** The server-side web search tool of one request. */
export interface WebSearchTool {
  allowedDomains?: string[];
  blockedDomains?: string[];
  /** Searches the model may make in this response. */
  maxUses: number;
}

/** One search result of a server-side web search. */
export interface SearchHit {
  title: string;
  url: string;
  pageAge?: string;
}

/** A server-side web search answer, in the order the API sent its parts: searches and text. */
export type SearchPart =
  | { type: "search"; query: string; hits: SearchHit[] }
  | { type: "search_error"; query: string; errorCode: string }
  | { type: "text"; text: string };

export interface RequestMeta {
  sessionId: string;
  /** `"main"` for a top-level session, else the child's agent type. */
  agentType: string;
  /** Nesting depth: 0 for the top-level session. */
  depth: number;
}

export type StopReason = "end_turn" | "tool_use" | "max_tokens" | "error" | "aborted";

export type ProviderErrorKind =
  | "rate_limit" // 429, after retries
  | "overloaded" // 529 / overloaded_error, after retries
  | "server" // 5xx, after retries
  | "network" // connection refused/reset, after retries
  | "timeout" // request or stream-idle timeout
  | "stream" // stream cut or malformed mid-message
  | "auth" // 401/403
  | "invalid_request" // other 4xx
  | "aborted" // cancelled through the AbortSignal
  | "script"; // scripted provider: script error or scripted failure

export interface ProviderError {
  kind: ProviderErrorKind;
  message: string;
  status?: number;
  /** The API's own error type and message (`invalid_request_error`, `max_tokens: …`), when it gave them. */
  api?: { type?: string; message?: string };
  /** How many attempts were made before giving up. */
  attempts?: number;
}

export type ProviderEvent =
  | { type: "request_started"; attempt: number }
  | { type: "text_delta"; text: string }
  | { type: "tool_call"; call: ToolCallBlock }
  /**
   * While a call's arguments still stream: the complete string fields they open with, each time that
   * set grows (a hint for getting ready early, e.g. a Task call's `subagent_type`; never its input).
   */
  | { type: "tool_call_started"; id: string; name: string; fields: Record<string, string> }
  | { type: "retry"; attempt: number; delayMs: number; reason: string }
  | {
    type: "done";
    message: Message;
    stopReason: StopReason;
    usage: Usage;
    /** With `webSearch`: the answer's searches and text, in order (the message has its text only). */
    search?: SearchPart[];
  }
  | { type: "error"; error: ProviderError; stopReason: "error" | "aborted"; usage: Usage };

export interface StreamOptions {
  signal?: AbortSignal;
}

export interface Provider {
  readonly name: string;
  stream(request: ModelRequest, options?: StreamOptions): AsyncIterable<ProviderEvent>;
}
