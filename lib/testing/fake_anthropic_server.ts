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

import type { AnthropicRequestBody } from "../provider/anthropic_wire.ts";
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

function frame(type: string, fields: Record<string, unknown>): SseFrame {
  return { event: type, data: { type, ...fields } };
}
