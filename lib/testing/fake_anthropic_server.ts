// Owns a loopback fake of the Anthropic Messages API (`POST /v1/messages`, streaming), scripted per
// test with a queue of responses, recording every request. Does not own the shared server machinery
// (fake_model_server.ts). Never imported by main.ts.
//
//   await using server = startFakeAnthropicServer([fakeTurn({ text: "Hi" }), fakeStatus(429)]);
//   const provider = anthropicProvider({ baseUrl: server.url, apiKey: "test", clock: realClock() });
//
// A turn streams: message_start, ping, [text: content_block_start, text_delta…, content_block_stop],
// [per tool call: content_block_start, input_json_delta ×2, content_block_stop], message_delta,
// message_stop. Count these when using cutAfterEvents / stallAfterEvents.

import type { AnthropicMessage, AnthropicRequestBody } from "../provider/anthropic_wire.ts";
import {
  argumentPieces,
  type FakeResponse,
  type FakeServer,
  type FakeServerOptions,
  type FakeTurn,
  type SseFrame,
  startFakeServer,
  textPieces,
  type WireDialect,
} from "./fake_model_server.ts";

export * from "./fake_model_server.ts";

export type FakeAnthropicServer = FakeServer<AnthropicRequestBody>;

export function startFakeAnthropicServer(
  options: FakeServerOptions<AnthropicRequestBody> | FakeResponse[] = {},
): FakeAnthropicServer {
  return startFakeServer(anthropicDialect, options);
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

export const anthropicDialect: WireDialect = {
  name: "Anthropic",
  path: "/v1/messages",
  errorBody: (status, message) => ({
    type: "error",
    error: { type: ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error"), message },
  }),
  turnFrames: anthropicFrames,
};

/** The SSE events of one streamed Anthropic reply. */
export function anthropicFrames(
  turn: FakeTurn,
  context: { model: string; requestNumber: number },
): SseFrame[] {
  const text = turn.text ?? "";
  const calls = turn.toolCalls ?? [];
  const frames: SseFrame[] = [
    frame("message_start", {
      message: {
        id: `msg_fake_${context.requestNumber}`,
        type: "message",
        role: "assistant",
        model: context.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: turn.usage?.inputTokens ?? 10,
          ...(turn.usage?.cacheCreationInputTokens === undefined
            ? {}
            : { cache_creation_input_tokens: turn.usage.cacheCreationInputTokens }),
          ...(turn.usage?.cacheReadInputTokens === undefined
            ? {}
            : { cache_read_input_tokens: turn.usage.cacheReadInputTokens }),
          output_tokens: 1,
        },
      },
    }),
    frame("ping", {}),
  ];
  let index = 0;
  if (text !== "") {
    frames.push(frame("content_block_start", { index, content_block: { type: "text", text: "" } }));
    for (const piece of textPieces(text, turn.chunks)) {
      frames.push(frame("content_block_delta", { index, delta: { type: "text_delta", text: piece } }));
    }
    frames.push(frame("content_block_stop", { index }));
    index++;
  }
  calls.forEach((call, i) => {
    const id = call.id ?? `toolu_fake_${context.requestNumber}_${i}`;
    frames.push(frame("content_block_start", {
      index,
      content_block: { type: "tool_use", id, name: call.name, input: {} },
    }));
    for (const partial_json of argumentPieces(call)) {
      frames.push(frame("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } }));
    }
    frames.push(frame("content_block_stop", { index }));
    index++;
  });
  if (turn.streamError !== undefined) {
    frames.push(frame("error", { error: turn.streamError }));
    return frames;
  }
  frames.push(frame("message_delta", {
    delta: {
      stop_reason: turn.stopReason ?? (calls.length > 0 ? "tool_use" : "end_turn"),
      stop_sequence: null,
    },
    usage: { output_tokens: turn.usage?.outputTokens ?? Math.max(1, Math.ceil(text.length / 4)) },
  }));
  frames.push(frame("message_stop", {}));
  return frames;
}

/** One result of a fake server-side web search, as the API sends it. */
export interface FakeSearchResult {
  title: string;
  url: string;
  page_age?: string | null;
}

/**
 * A streamed answer with Anthropic's server-side web search: a `server_tool_use` block (its query as
 * input JSON), a `web_search_tool_result` block (the results, or `errorCode`), then `text`.
 */
export function fakeWebSearch(o: {
  query: string;
  results?: FakeSearchResult[];
  errorCode?: string;
  text: string;
}): FakeResponse {
  const content = o.errorCode !== undefined
    ? { type: "web_search_tool_result_error", error_code: o.errorCode }
    : (o.results ?? []).map((r, i) => ({
      type: "web_search_result",
      encrypted_content: `EnC${i}`,
      page_age: null,
      ...r,
    }));
  return {
    kind: "sse",
    events: [
      frame("message_start", {
        message: {
          id: "msg_search",
          type: "message",
          role: "assistant",
          model: "claude-fake",
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 1 },
        },
      }),
      frame("content_block_start", {
        index: 0,
        content_block: { type: "server_tool_use", id: "srvtoolu_01", name: "web_search", input: {} },
      }),
      frame("content_block_delta", {
        index: 0,
        delta: { type: "input_json_delta", partial_json: JSON.stringify({ query: o.query }) },
      }),
      frame("content_block_stop", { index: 0 }),
      frame("content_block_start", {
        index: 1,
        content_block: { type: "web_search_tool_result", tool_use_id: "srvtoolu_01", content },
      }),
      frame("content_block_stop", { index: 1 }),
      frame("content_block_start", { index: 2, content_block: { type: "text", text: "" } }),
      frame("content_block_delta", { index: 2, delta: { type: "text_delta", text: o.text } }),
      frame("content_block_stop", { index: 2 }),
      frame("message_delta", {
        delta: { stop_reason: "end_turn", stop_sequence: null },
        usage: { output_tokens: 20, server_tool_use: { web_search_requests: 1 } },
      }),
      frame("message_stop", {}),
    ],
  };
}

function frame(type: string, fields: Record<string, unknown>): SseFrame {
  return { event: type, data: { type, ...fields } };
}

/** The system prompt a request sent, its text blocks joined as Blade splits them (a blank line). */
export function systemText(body: Pick<AnthropicRequestBody, "system">): string {
  return (body.system ?? []).map((b) => b.text).join("\n\n");
}

/** A request's messages without their prompt-cache breakpoints: the conversation as sent. */
export function withoutBreakpoints(
  messages: AnthropicRequestBody["messages"],
): AnthropicRequestBody["messages"] {
  return messages.map((m): AnthropicMessage => {
    if (m.role === "system") {
      return {
        role: "system",
        content: typeof m.content === "string" ? m.content : m.content.map((b) => b.text).join("\n\n"),
      };
    }
    return {
      role: m.role,
      content: m.content.map((b) => {
        if (!("cache_control" in b)) return b;
        const { cache_control: _, ...rest } = b;
        return rest;
      }),
    };
  });
}
