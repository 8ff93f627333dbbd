// Owns folding an Anthropic Messages API event stream (message_start, content_block_start/delta/stop,
// message_delta, message_stop, ping, error) into provider events and the final assistant message.
// Does not own HTTP, timeouts or retries.

import { type ContentBlock, emptyUsage, type ToolCallBlock, type Usage } from "../protocol/messages.ts";
import type { ProviderErrorKind, SearchHit, SearchPart, StopReason } from "../protocol/provider.ts";
import type { AttemptEvent, AttemptFailure } from "./retry.ts";
import type { SseEvent } from "./sse.ts";
import { hintFor, parseToolArguments, toolCallBlock } from "./tool_arguments.ts";

const LABEL = "Anthropic API";

type Block =
  | { type: "text"; text: string }
  | {
    type: "tool";
    id: string;
    name: string;
    json: string;
    input: unknown;
    call?: ToolCallBlock;
    /** How many leading string fields of `json` were hinted (tool_call_started). */
    hinted: number;
  }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  /** A server-side web search call (its query arrives as input JSON) and its results. */
  | { type: "server_search"; id: string; json: string; input: unknown }
  | { type: "search_result"; toolUseId: string; content: unknown }
  | { type: "other" };

type Json = Record<string, unknown>;

/** Feed it SSE events in order; it answers with the provider events each one produces. */
export class AnthropicStream {
  #blocks = new Map<number, Block>();
  #usage: Usage = emptyUsage();
  #stopReason: string | undefined;
  #finished = false;

  get usage(): Usage {
    return { ...this.#usage };
  }

  /** True once `message_stop` arrived (the last event yielded was `done`). */
  get finished(): boolean {
    return this.#finished;
  }

  apply(sse: SseEvent): AttemptEvent[] {
    let data: Json;
    try {
      data = JSON.parse(sse.data);
    } catch {
      return [this.#failed({
        kind: "stream",
        summary: `${LABEL} sent a malformed "${sse.event}" event`,
        detail: sse.data.slice(0, 200),
        retryable: true,
      })];
    }
    const type = typeof data["type"] === "string" ? data["type"] : sse.event;
    switch (type) {
      case "message_start":
        this.#addUsage(record(record(data["message"])["usage"]));
        return [];
      case "content_block_start":
        return this.#start(number(data["index"]), record(data["content_block"]));
      case "content_block_delta":
        return this.#delta(number(data["index"]), record(data["delta"]));
      case "content_block_stop":
        return this.#stop(number(data["index"]));
      case "message_delta": {
        const reason = record(data["delta"])["stop_reason"];
        if (typeof reason === "string") this.#stopReason = reason;
        this.#addUsage(record(data["usage"]));
        return [];
      }
      case "message_stop":
        return this.#finish();
      case "error":
        return [this.#failed(streamErrorFailure(record(data["error"])))];
      default: // ping and event types newer than this code
        return [];
    }
  }

  /** The body closed: a stream failure unless `message_stop` came first. */
  end(): AttemptEvent[] {
    if (this.#finished) return [];
    return [
      this.#failed({ kind: "stream", summary: `${LABEL} stream ended before message_stop`, retryable: true }),
    ];
  }

  #start(index: number, block: Json): AttemptEvent[] {
    if (block["type"] === "text") {
      const text = typeof block["text"] === "string" ? block["text"] : "";
      this.#blocks.set(index, { type: "text", text });
      return text === "" ? [] : [{ type: "text_delta", text }];
    }
    if (block["type"] === "tool_use") {
      const id = typeof block["id"] === "string" ? block["id"] : `toolu_missing_${index}`;
      const name = typeof block["name"] === "string" ? block["name"] : "";
      this.#blocks.set(index, { type: "tool", id, name, json: "", input: block["input"], hinted: 0 });
      return [];
    }
    if (block["type"] === "thinking") {
      const thinking = typeof block["thinking"] === "string" ? block["thinking"] : "";
      const signature = typeof block["signature"] === "string" ? block["signature"] : "";
      this.#blocks.set(index, { type: "thinking", thinking, signature });
      return [];
    }
    if (block["type"] === "redacted_thinking") {
      // Encrypted thinking: kept and sent back as it came, as the API requires with tool use.
      this.#blocks.set(index, {
        type: "redacted_thinking",
        data: typeof block["data"] === "string" ? block["data"] : "",
      });
      return [];
    }
    if (block["type"] === "server_tool_use" && block["name"] === "web_search") {
      const id = typeof block["id"] === "string" ? block["id"] : "";
      this.#blocks.set(index, { type: "server_search", id, json: "", input: block["input"] });
      return [];
    }
    if (block["type"] === "web_search_tool_result") {
      const toolUseId = typeof block["tool_use_id"] === "string" ? block["tool_use_id"] : "";
      this.#blocks.set(index, { type: "search_result", toolUseId, content: block["content"] });
      return [];
    }
    this.#blocks.set(index, { type: "other" }); // other server tools: not ours to show
    return [];
  }

  #delta(index: number, delta: Json): AttemptEvent[] {
    const block = this.#blocks.get(index);
    if (block?.type === "text" && delta["type"] === "text_delta" && typeof delta["text"] === "string") {
      block.text += delta["text"];
      return delta["text"] === "" ? [] : [{ type: "text_delta", text: delta["text"] }];
    }
    if (block?.type === "thinking") {
      if (delta["type"] === "thinking_delta" && typeof delta["thinking"] === "string") {
        block.thinking += delta["thinking"];
      }
      if (delta["type"] === "signature_delta" && typeof delta["signature"] === "string") {
        block.signature += delta["signature"];
      }
      return [];
    }
    if (block?.type === "server_search" && delta["type"] === "input_json_delta") {
      if (typeof delta["partial_json"] === "string") block.json += delta["partial_json"];
      return [];
    }
    if (block?.type === "tool" && delta["type"] === "input_json_delta") {
      if (typeof delta["partial_json"] !== "string" || delta["partial_json"] === "") return [];
      block.json += delta["partial_json"];
      return hintFor(block, block.json);
    }
    return [];
  }

  #stop(index: number): AttemptEvent[] {
    const block = this.#blocks.get(index);
    if (block?.type !== "tool" || block.call !== undefined) return [];
    block.call = finishToolCall(block);
    return [{ type: "tool_call", call: block.call }];
  }

  #finish(): AttemptEvent[] {
    const events: AttemptEvent[] = [];
    const content: ContentBlock[] = [];
    for (const index of [...this.#blocks.keys()].sort((a, b) => a - b)) {
      const block = this.#blocks.get(index)!;
      if (block.type === "thinking") {
        content.push({ type: "thinking", thinking: block.thinking, signature: block.signature });
      }
      if (block.type === "redacted_thinking") content.push({ type: "redacted_thinking", data: block.data });
      if (block.type === "text" && block.text !== "") content.push({ type: "text", text: block.text });
      if (block.type === "tool") {
        if (block.call === undefined) events.push(...this.#stop(index));
        content.push(block.call!);
      }
    }
    this.#finished = true;
    const hasCalls = content.some((b) => b.type === "tool_call");
    const search = this.#searchParts();
    events.push({
      type: "done",
      message: { role: "assistant", content },
      stopReason: stopReasonOf(this.#stopReason, hasCalls),
      usage: this.usage,
      ...(search === undefined ? {} : { search }),
    });
    return events;
  }

  /** A web search answer's searches and text in order; undefined when the answer made no search. */
  #searchParts(): SearchPart[] | undefined {
    const blocks = [...this.#blocks.entries()].sort(([a], [b]) => a - b).map(([, b]) => b);
    if (!blocks.some((b) => b.type === "search_result")) return undefined;
    const queries = new Map<string, string>();
    for (const b of blocks) if (b.type === "server_search") queries.set(b.id, searchQuery(b));
    const parts: SearchPart[] = [];
    for (const b of blocks) {
      if (b.type === "text" && b.text !== "") parts.push({ type: "text", text: b.text });
      if (b.type !== "search_result") continue;
      const query = queries.get(b.toolUseId) ?? "";
      if (Array.isArray(b.content)) parts.push({ type: "search", query, hits: b.content.flatMap(searchHit) });
      else {
        const code = record(b.content)["error_code"];
        parts.push({ type: "search_error", query, errorCode: typeof code === "string" ? code : "unknown" });
      }
    }
    return parts;
  }

  #addUsage(usage: Json): void {
    // message_delta carries cumulative counts; input counts appear there only in newer API versions.
    // Cache reads and writes stay apart from input_tokens (Claude Code reports them so).
    if (typeof usage["input_tokens"] === "number") this.#usage.inputTokens = usage["input_tokens"];
    const created = usage["cache_creation_input_tokens"];
    if (typeof created === "number" && created > 0) this.#usage.cacheCreationInputTokens = created;
    const read = usage["cache_read_input_tokens"];
    if (typeof read === "number" && read > 0) this.#usage.cacheReadInputTokens = read;
    const output = usage["output_tokens"];
    if (typeof output === "number") this.#usage.outputTokens = output;
  }

  #failed(failure: AttemptFailure): AttemptEvent {
    return { type: "attempt_failed", failure, usage: this.usage };
  }
}

function searchQuery(block: Extract<Block, { type: "server_search" }>): string {
  let input = block.input;
  try {
    if (block.json !== "") input = JSON.parse(block.json);
  } catch {
    return "";
  }
  const query = record(input)["query"];
  return typeof query === "string" ? query : "";
}

function searchHit(item: unknown): SearchHit[] {
  const r = record(item);
  if (typeof r["url"] !== "string") return [];
  return [{
    title: typeof r["title"] === "string" ? r["title"] : r["url"],
    url: r["url"],
    ...(typeof r["page_age"] === "string" ? { pageAge: r["page_age"] } : {}),
  }];
}

function finishToolCall(block: Extract<Block, { type: "tool" }>): ToolCallBlock {
  if (block.json === "" && typeof block.input === "object" && block.input !== null) {
    return toolCallBlock({ id: block.id, name: block.name, input: block.input as Record<string, unknown> });
  }
  return toolCallBlock({ id: block.id, name: block.name, ...parseToolArguments(block.json, block.name) });
}

function stopReasonOf(reason: string | undefined, hasCalls: boolean): StopReason {
  if (reason === "max_tokens") return "max_tokens";
  return hasCalls ? "tool_use" : "end_turn"; // end_turn, stop_sequence, pause_turn, refusal
}

const ERROR_KINDS: Record<string, ProviderErrorKind> = {
  overloaded_error: "overloaded",
  rate_limit_error: "rate_limit",
  api_error: "server",
  timeout_error: "timeout",
  authentication_error: "auth",
  permission_error: "auth",
  invalid_request_error: "invalid_request",
};

function streamErrorFailure(error: Json): AttemptFailure {
  const type = typeof error["type"] === "string" ? error["type"] : "error";
  const message = typeof error["message"] === "string" ? error["message"] : "";
  const kind = ERROR_KINDS[type] ?? "stream";
  return {
    kind,
    summary: `${LABEL} reported an error mid-stream`,
    detail: message === "" ? type : `${type}: ${message}`,
    retryable: kind === "overloaded" || kind === "rate_limit" || kind === "server" || kind === "timeout",
  };
}

function record(value: unknown): Json {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value as Json : {};
}

function number(value: unknown): number {
  return typeof value === "number" ? value : -1;
}
