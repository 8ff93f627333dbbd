// Owns small helpers for provider tests: a ModelRequest builder and a collector for provider streams.
// Never imported by main.ts.

import type { Message, ToolSpec } from "../protocol/messages.ts";
import type { ModelRequest, ProviderEvent } from "../protocol/provider.ts";

export function modelRequest(
  messages: Message[],
  options: Partial<Omit<ModelRequest, "messages">> & { agentType?: string } = {},
): ModelRequest {
  const { agentType = "main", ...rest } = options;
  return {
    model: "test-model",
    system: "",
    tools: [] as ToolSpec[],
    maxTokens: 1024,
    meta: { sessionId: "session-test", agentType, depth: agentType === "main" ? 0 : 1 },
    ...rest,
    messages,
  };
}

export async function collectEvents(events: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** The terminal event of a finished stream (asserts there is exactly one, at the end). */
export function terminalOf(events: ProviderEvent[]): Extract<ProviderEvent, { type: "done" | "error" }> {
  const terminals = events.filter((e) => e.type === "done" || e.type === "error");
  const last = events.at(-1);
  if (terminals.length !== 1 || last === undefined || (last.type !== "done" && last.type !== "error")) {
    throw new Error(
      `expected exactly one terminal event at the end, got: ${events.map((e) => e.type).join(", ")}`,
    );
  }
  return last;
}

export function textOfEvents(events: ProviderEvent[]): string {
  return events.map((e) => e.type === "text_delta" ? e.text : "").join("");
}
