// Owns translating a ModelRequest into an OpenAI-compatible /chat/completions request body. Pure, no
// I/O. Does not own streaming the answer back (openai_stream.ts) or sending it (openai.ts).

import type { ModelRequest } from "../protocol/provider.ts";
import { mergeForWire } from "./wire_messages.ts";

export interface OpenAiToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type OpenAiMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: OpenAiToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export interface OpenAiRequestBody {
  model: string;
  messages: OpenAiMessage[];
  tools?: {
    type: "function";
    function: { name: string; description: string; parameters: Record<string, unknown> };
  }[];
  max_tokens?: number;
  max_completion_tokens?: number;
  stream: true;
  stream_options: { include_usage: true };
}

export interface OpenAiWireOptions {
  /** OpenAI's newer models want `max_completion_tokens`; most local servers know `max_tokens`. */
  maxTokensField?: "max_tokens" | "max_completion_tokens";
}

export function openAiRequestBody(request: ModelRequest, options: OpenAiWireOptions = {}): OpenAiRequestBody {
  const messages: OpenAiMessage[] = [];
  if (request.system !== "") messages.push({ role: "system", content: request.system });
  for (const message of mergeForWire(request.messages)) {
    const text = message.content.flatMap((b) => b.type === "text" ? [b.text] : []).join("\n");
    if (message.role === "system") {
      // A system turn (a hook's context) stays one: chat completions take system messages anywhere.
      messages.push({
        role: "system",
        content: message.content.flatMap((b) => b.type === "text" ? [b.text] : []).join("\n\n"),
      });
      continue;
    }
    if (message.role === "user") {
      // Tool results must directly follow the assistant message that asked for them.
      for (const block of message.content) {
        if (block.type !== "tool_result") continue;
        const content = block.isError ? `Error: ${block.content}` : block.content;
        messages.push({ role: "tool", tool_call_id: block.callId, content });
      }
      if (text !== "") messages.push({ role: "user", content: text });
      continue;
    }
    const calls: OpenAiToolCall[] = message.content.flatMap((b) =>
      b.type === "tool_call"
        ? [{
          id: b.id,
          type: "function" as const,
          function: { name: b.name, arguments: JSON.stringify(b.input) },
        }]
        : []
    );
    messages.push(
      calls.length > 0
        ? { role: "assistant", content: text === "" ? null : text, tool_calls: calls }
        : { role: "assistant", content: text },
    );
  }
  const body: OpenAiRequestBody = {
    model: request.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
  };
  body[options.maxTokensField ?? "max_tokens"] = request.maxTokens;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.inputSchema },
    }));
  }
  return body;
}
