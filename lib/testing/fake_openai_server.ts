// Owns a loopback fake of an OpenAI-compatible chat-completions API (`POST /v1/chat/completions`,
// streaming), scripted per test with a queue of responses, recording every request. Does not own the
// shared server machinery (fake_model_server.ts). Never imported by main.ts.
//
//   await using server = startFakeOpenAiServer([fakeTurn({ text: "Hi" })]);
//   const provider = openAiProvider({ baseUrl: `${server.url}/v1`, clock: realClock() });
//
// A turn streams: role chunk, [text chunk…], [per tool call: header chunk, argument chunk ×2],
// finish chunk, usage chunk, [DONE]. Count these when using cutAfterEvents / stallAfterEvents.

import type { OpenAiRequestBody } from "../provider/openai_wire.ts";
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

export type FakeOpenAiServer = FakeServer<OpenAiRequestBody>;

export function startFakeOpenAiServer(
  options: FakeServerOptions<OpenAiRequestBody> | FakeResponse[] = {},
): FakeOpenAiServer {
  return startFakeServer(openAiDialect, options);
}

export const openAiDialect: WireDialect = {
  name: "OpenAI",
  path: "/v1/chat/completions",
  errorBody: (status, message) => ({
    error: {
      message,
      type: status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error",
      code: null,
    },
  }),
  turnFrames: openAiFrames,
};

/** The SSE chunks of one streamed chat-completions reply. */
export function openAiFrames(turn: FakeTurn, context: { model: string; requestNumber: number }): SseFrame[] {
  const text = turn.text ?? "";
  const calls = turn.toolCalls ?? [];
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): SseFrame => ({
    data: {
      id: `chatcmpl-fake-${context.requestNumber}`,
      object: "chat.completion.chunk",
      created: 0,
      model: context.model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    },
  });
  const frames: SseFrame[] = [chunk({ role: "assistant", content: "" })];
  for (const piece of textPieces(text, turn.chunks)) frames.push(chunk({ content: piece }));
  calls.forEach((call, index) => {
    const id = call.id ?? `call_fake_${context.requestNumber}_${index}`;
    frames.push(
      chunk({ tool_calls: [{ index, id, type: "function", function: { name: call.name, arguments: "" } }] }),
    );
    for (const piece of argumentPieces(call)) {
      frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  if (turn.streamError !== undefined) {
    frames.push({ data: { error: { message: turn.streamError.message, type: turn.streamError.type } } });
    return frames;
  }
  frames.push(chunk({}, turn.stopReason ?? (calls.length > 0 ? "tool_calls" : "stop")));
  const promptTokens = turn.usage?.inputTokens ?? 10;
  const completionTokens = turn.usage?.outputTokens ?? Math.max(1, Math.ceil(text.length / 4));
  frames.push({
    data: {
      id: `chatcmpl-fake-${context.requestNumber}`,
      object: "chat.completion.chunk",
      created: 0,
      model: context.model,
      choices: [],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
    },
  });
  frames.push({ data: "[DONE]" });
  return frames;
}
