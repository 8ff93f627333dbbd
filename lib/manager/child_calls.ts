// Owns checking what a Worker child sends the main thread: its events and delegation calls are
// untrusted input (the child runs model-chosen tools), so each message is decoded into the typed
// ChildWorkerEvent union (executor/child_protocol.ts) or dropped. Calls are validated with the same
// schemas the tools use, so a child cannot ask the main thread for more than a Task call could.

import { z } from "zod";
import type { RuntimeEvent } from "../protocol/events.ts";
import { taskInput } from "../tools/input_zod.ts";
import type { ChildWorkerEvent, DelegationCall } from "../executor/child_protocol.ts";

const taskRequest = taskInput.extend({ subagent_session_id: z.string().min(1) });

const callSchema = z.discriminatedUnion("method", [
  z.object({ method: z.literal("plan"), input: taskRequest }),
  z.object({ method: z.literal("launch"), input: taskRequest, callId: z.string() }),
  z.object({
    method: z.literal("output"),
    input: z.object({ taskId: z.string(), block: z.boolean(), timeoutMs: z.number().int().min(0) }),
  }),
  z.object({ method: z.literal("stop"), taskId: z.string() }),
  z.object({
    method: z.literal("approve"),
    request: z.object({
      sessionId: z.string().max(200),
      agentType: z.string().max(200),
      tool: z.string().max(200),
      subject: z.string().max(100_000),
      reason: z.string().max(100_000),
      callId: z.string().max(200).optional(),
      input: z.record(z.string(), z.unknown()).optional(),
    }),
  }),
  z.object({ method: z.literal("spawned"), pgid: z.number().int().min(2) }),
  z.object({ method: z.literal("kill"), pgid: z.number().int().min(2) }),
  z.object({ method: z.literal("mcp"), name: z.string().min(1), input: z.record(z.string(), z.unknown()) }),
]) satisfies z.ZodType<DelegationCall>;

const eventSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("event"), runId: z.number(), event: z.unknown() }),
  z.object({ kind: z.literal("call"), runId: z.number(), id: z.number(), call: z.unknown() }),
]);

const EVENT_TYPES: ReadonlySet<string> = new Set<RuntimeEvent["type"]>([
  "session_started",
  "turn_started",
  "text_delta",
  "retry",
  "assistant_message",
  "tool_started",
  "tool_completed",
  "turn_completed",
  "turn_aborted",
  "subagent_spawned",
  "subagent_event",
  "subagent_completed",
]);

/**
 * A runtime event by its type. Rendering and stream-json treat an event's fields as data, so only
 * the discriminant is checked here; a renderer never trusts the rest.
 */
function isRuntimeEvent(value: unknown): value is RuntimeEvent {
  return typeof value === "object" && value !== null && "type" in value && typeof value.type === "string" &&
    EVENT_TYPES.has(value.type);
}

/** The message as a typed event or call; a reason string when it is not one. */
export function decodeWorkerMessage(raw: unknown): ChildWorkerEvent | { invalid: string } {
  const parsed = eventSchema.safeParse(raw);
  if (!parsed.success) return { invalid: "not a child event or call" };
  const message = parsed.data;
  if (message.kind === "event") {
    const event = message.event;
    if (!isRuntimeEvent(event)) return { invalid: "an event of no known type" };
    return { kind: "event", runId: message.runId, event };
  }
  const call = callSchema.safeParse(message.call);
  if (!call.success) {
    return { invalid: `malformed ${describeMethod(message.call)} call: ${call.error.message}` };
  }
  return { kind: "call", runId: message.runId, id: message.id, call: call.data };
}

function describeMethod(call: unknown): string {
  if (typeof call !== "object" || call === null || !("method" in call)) return "delegation";
  return typeof call.method === "string" ? JSON.stringify(call.method.slice(0, 20)) : "delegation";
}
