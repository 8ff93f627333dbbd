// Owns one model request of a turn: streams the provider's answer, forwards text deltas and retries
// to the event sink, lets a tool get ready as soon as its call is known (its leading fields while its
// arguments stream, then the complete call, while the rest of the answer still streams), and turns
// the stream's end into one answer. A provider never throws by
// contract; if one does, or its stream ends without a result, that is a failed request, not a crash.

import { emptyUsage, type Message, type ToolCallBlock, type Usage } from "../protocol/messages.ts";
import type { ModelRequest, Provider, ProviderError, StopReason } from "../protocol/provider.ts";
import type { RuntimeEventSink } from "../protocol/events.ts";
import { describeError } from "../errors.ts";

export type ModelAnswer =
  | { kind: "done"; message: Message; usage: Usage; stopReason: StopReason }
  | { kind: "error"; error: ProviderError; usage: Usage };

export interface ModelTurnDeps {
  provider: Provider;
  emit: RuntimeEventSink;
  sessionId: string;
  /**
   * Called with each tool call as soon as the stream completes it, and before that, while its
   * arguments stream, with the string fields they open with so far (a Task call's `subagent_type`).
   */
  onToolCall?: (call: Pick<ToolCallBlock, "name" | "input">) => void;
}

export async function modelTurn(
  deps: ModelTurnDeps,
  request: ModelRequest,
  signal: AbortSignal,
): Promise<ModelAnswer> {
  const { emit, sessionId } = deps;
  try {
    for await (const event of deps.provider.stream(request, { signal })) {
      switch (event.type) {
        case "text_delta":
          emit({ type: "text_delta", sessionId, text: event.text });
          break;
        case "retry":
          emit({
            type: "retry",
            sessionId,
            attempt: event.attempt,
            delayMs: event.delayMs,
            reason: event.reason,
          });
          break;
        case "done":
          return { kind: "done", message: event.message, usage: event.usage, stopReason: event.stopReason };
        case "error":
          return { kind: "error", error: event.error, usage: event.usage };
        case "tool_call":
          deps.onToolCall?.(event.call);
          break;
        case "tool_call_started":
          deps.onToolCall?.({ name: event.name, input: event.fields });
          break;
        case "request_started":
          break;
        default: {
          const never: never = event;
          void never;
        }
      }
    }
  } catch (e) {
    return { kind: "error", error: { kind: "stream", message: describeError(e) }, usage: emptyUsage() };
  }
  return {
    kind: "error",
    error: { kind: "stream", message: "The model stream ended without a result." },
    usage: emptyUsage(),
  };
}
