// Owns folding an OpenAI-compatible chat-completions chunk stream (`data: {…}` chunks, tool calls
// streamed by index, a usage chunk, `data: [DONE]`) into provider events and the final assistant
// message. Does not own HTTP, timeouts or retries.

import { type ContentBlock, emptyUsage, type ToolCallBlock, type Usage } from "../protocol/messages.ts";
import type { StopReason } from "../protocol/provider.ts";
import type { AttemptEvent, AttemptFailure } from "./retry.ts";
import type { SseEvent } from "./sse.ts";
import { hintFor, parseToolArguments, toolCallBlock } from "./tool_arguments.ts";

const LABEL = "OpenAI-compatible API";

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
  /** How many leading string fields of `arguments` were hinted (tool_call_started). */
  hinted: number;
}

type Json = Record<string, unknown>;

/** Feed it SSE events in order, then `end()` when the body closes. */
export class OpenAiStream {
  #text = "";
  #calls = new Map<number, PendingCall>();
  #finishReason: string | undefined;
  #usage: Usage = emptyUsage();
  #finished = false;

  get usage(): Usage {
    return { ...this.#usage };
  }

  get finished(): boolean {
    return this.#finished;
  }

  apply(sse: SseEvent): AttemptEvent[] {
    if (sse.data.trim() === "[DONE]") return this.end();
    let chunk: Json;
    try {
      chunk = JSON.parse(sse.data);
    } catch {
      return [this.#failed({
        kind: "stream",
        summary: `${LABEL} sent a malformed chunk`,
        detail: sse.data.slice(0, 200),
        retryable: true,
      })];
    }
    if (chunk["error"] !== undefined && chunk["error"] !== null) {
      const error = record(chunk["error"]);
      const message = typeof error["message"] === "string"
        ? error["message"]
        : JSON.stringify(chunk["error"]);
      return [this.#failed({
        kind: "server",
        summary: `${LABEL} reported an error mid-stream`,
        detail: message,
        retryable: true,
      })];
    }
    const usage = record(chunk["usage"]);
    if (typeof usage["prompt_tokens"] === "number") {
      // prompt_tokens includes cached ones: they are counted apart, as Anthropic's usage does.
      const cached = record(usage["prompt_tokens_details"])["cached_tokens"];
      const read = typeof cached === "number" && cached > 0 ? Math.min(cached, usage["prompt_tokens"]) : 0;
      this.#usage.inputTokens = usage["prompt_tokens"] - read;
      if (read > 0) this.#usage.cacheReadInputTokens = read;
    }
    if (typeof usage["completion_tokens"] === "number") this.#usage.outputTokens = usage["completion_tokens"];
    const events: AttemptEvent[] = [];
    const choices = Array.isArray(chunk["choices"]) ? chunk["choices"] : [];
    const choice = record(choices[0]);
    const delta = record(choice["delta"]);
    if (typeof delta["content"] === "string" && delta["content"] !== "") {
      this.#text += delta["content"];
      events.push({ type: "text_delta", text: delta["content"] });
    }
    if (Array.isArray(delta["tool_calls"])) {
      delta["tool_calls"].forEach((c, i) => events.push(...this.#callDelta(record(c), i)));
    }
    if (typeof choice["finish_reason"] === "string") this.#finishReason = choice["finish_reason"];
    return events;
  }

  /** The body closed (or `[DONE]` arrived): the final events, or a failure if no finish reason came. */
  end(): AttemptEvent[] {
    if (this.#finished) return [];
    if (this.#finishReason === undefined) {
      return [this.#failed({
        kind: "stream",
        summary: `${LABEL} stream ended before a finish_reason`,
        retryable: true,
      })];
    }
    this.#finished = true;
    const content: ContentBlock[] = this.#text === "" ? [] : [{ type: "text", text: this.#text }];
    const calls: ToolCallBlock[] = [...this.#calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, c]) =>
        toolCallBlock({
          id: c.id || `call_${index}`,
          name: c.name,
          ...parseToolArguments(c.arguments, c.name),
        })
      );
    content.push(...calls);
    return [
      ...calls.map((call): AttemptEvent => ({ type: "tool_call", call })),
      {
        type: "done",
        message: { role: "assistant", content },
        stopReason: stopReasonOf(this.#finishReason, calls.length > 0),
        usage: this.usage,
      },
    ];
  }

  #callDelta(delta: Json, position: number): AttemptEvent[] {
    const index = typeof delta["index"] === "number" ? delta["index"] : position;
    const call = this.#calls.get(index) ?? { id: "", name: "", arguments: "", hinted: 0 };
    this.#calls.set(index, call);
    if (typeof delta["id"] === "string" && call.id === "") call.id = delta["id"];
    const fn = record(delta["function"]);
    // OpenAI sends the name once; some servers repeat it in every chunk.
    if (typeof fn["name"] === "string" && fn["name"] !== call.name) call.name += fn["name"];
    if (typeof fn["arguments"] !== "string" || fn["arguments"] === "") return [];
    call.arguments += fn["arguments"];
    return hintFor(call, call.arguments);
  }

  #failed(failure: AttemptFailure): AttemptEvent {
    return { type: "attempt_failed", failure, usage: this.usage };
  }
}

function stopReasonOf(reason: string, hasCalls: boolean): StopReason {
  if (reason === "length") return "max_tokens";
  return hasCalls ? "tool_use" : "end_turn"; // stop, tool_calls, function_call, content_filter
}

function record(value: unknown): Json {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value as Json : {};
}
