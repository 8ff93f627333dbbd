// Owns checking what a Worker child sends the main thread: its events and delegation calls are
// untrusted input (the child runs model-chosen tools), so each message is decoded into the typed
// ChildWorkerEvent union (child/child_protocol.ts) or dropped. Calls are validated with the same
// schemas the tools use, so a child cannot ask the main thread for more than a Task call could.

import type { RuntimeEvent } from "../protocol/events.ts";
import { taskInput } from "../tools/task.ts";
import type { ChildWorkerEvent, DelegationCall } from "./child_protocol.ts";
import {
  array,
  boolean,
  byField,
  type Check,
  type Issue,
  number,
  object,
  oneOf,
  optional,
  parseWith,
  record,
  string,
} from "../protocol/check.ts";

/** A Task call as the Task tool checks it, with its durable child id assigned. */
const taskRequest: Check = (value, path, issues) => {
  const parsed = taskInput.schema.safeParse(value);
  if (!parsed.success) {
    for (const i of parsed.error.issues) {
      issues.push({ path: [...path, ...i.path.map(String)], message: i.message });
    }
    return value;
  }
  const id = string({ min: 1 })((value as Record<string, unknown>).subagent_session_id, [
    ...path,
    "subagent_session_id",
  ], issues);
  return { ...parsed.data, subagent_session_id: id };
};

const method = (name: string) => oneOf([name]);
const point = (name: string) => oneOf([name]);
/** A tool call of the child as its hooks see it. */
const hookedCall = object({ id: string({ max: 200 }), name: string({ min: 1, max: 200 }), input: record() });
/** One hook point of the child's loop (hooks/child_hooks.ts ChildHookCall). */
const hookCall = byField("point", {
  beforePermission: object({ point: point("beforePermission"), call: hookedCall, input: record() }),
  afterToolCall: object({
    point: point("afterToolCall"),
    call: hookedCall,
    input: record(),
    result: object({ content: string(), isError: boolean(), response: optional(record()) }),
  }),
  onTurnEnd: object({
    point: point("onTurnEnd"),
    turn: number({ int: true, min: 0 }),
    answer: object({
      role: oneOf(["assistant"]),
      content: array(object({ type: string({ max: 100 }), text: optional(string()) }, { loose: true })),
    }, { loose: true }),
    conversation: array(object({
      role: oneOf(["user", "assistant", "system"]),
      content: array(object({ type: string({ max: 100 }) }, { loose: true })),
    }, { loose: true })),
  }),
});
const pgid = number({ int: true, min: 2 });
const callCheck = byField("method", {
  plan: object({ method: method("plan"), input: taskRequest }),
  launch: object({
    method: method("launch"),
    input: taskRequest,
    callId: string(),
    turnsLeft: optional(number({ int: true, min: 0 })),
  }),
  output: object({
    method: method("output"),
    input: object({ taskId: string(), block: boolean(), timeoutMs: number({ int: true, min: 0 }) }),
  }),
  stop: object({ method: method("stop"), taskId: string() }),
  approve: object({
    method: method("approve"),
    request: object({
      sessionId: string({ max: 200 }),
      agentType: string({ max: 200 }),
      tool: string({ max: 200 }),
      subject: string({ max: 100_000 }),
      reason: string({ max: 100_000 }),
      callId: optional(string({ max: 200 })),
      input: optional(record()),
    }),
  }),
  spawned: object({ method: method("spawned"), pgid }),
  kill: object({ method: method("kill"), pgid }),
  mcp: object({ method: method("mcp"), name: string({ min: 1 }), input: record() }),
  hook: object({ method: method("hook"), call: hookCall }),
  web: byField("kind", {
    fetch: object({
      method: method("web"),
      kind: oneOf(["fetch"]),
      input: object({
        url: string({ min: 1, max: 10_000 }),
        prompt: string({ min: 1 }),
        offset: optional(number({ int: true, min: 0 })),
      }),
    }),
    search: object({
      method: method("web"),
      kind: oneOf(["search"]),
      input: object({
        query: string({ min: 2, max: 10_000 }),
        allowedDomains: optional(array(string())),
        blockedDomains: optional(array(string())),
      }),
    }),
  }),
});

const eventCheck = byField("kind", {
  event: object({ kind: oneOf(["event"]), runId: number(), event: (v) => v }),
  call: object({ kind: oneOf(["call"]), runId: number(), id: number(), call: (v) => v }),
  // What the URL may be is the main thread's check against the run's provider (child_fetch.ts).
  fetch: object({
    kind: oneOf(["fetch"]),
    runId: number(),
    id: number(),
    request: object({
      url: string({ max: 10_000 }),
      method: string({ max: 20 }),
      headers: record(),
      body: string(),
    }),
  }),
  fetch_cancel: object({ kind: oneOf(["fetch_cancel"]), runId: number(), id: number() }),
});

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
  "compacted",
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
  const parsed = parseWith<
    | { kind: "event"; runId: number; event: unknown }
    | { kind: "call"; runId: number; id: number; call: unknown }
    | Extract<ChildWorkerEvent, { kind: "fetch" | "fetch_cancel" }>
  >(eventCheck, raw);
  if (!parsed.success) return { invalid: "not a child event or call" };
  const message = parsed.data;
  if (message.kind === "fetch" || message.kind === "fetch_cancel") return message;
  if (message.kind === "event") {
    const event = message.event;
    if (!isRuntimeEvent(event)) return { invalid: "an event of no known type" };
    return { kind: "event", runId: message.runId, event };
  }
  const call = parseWith<DelegationCall>(callCheck, message.call);
  if (!call.success) {
    return {
      invalid: `malformed ${describeMethod(message.call)} call: ${describeIssues(call.error.issues)}`,
    };
  }
  return { kind: "call", runId: message.runId, id: message.id, call: call.data };
}

function describeIssues(issues: readonly Issue[]): string {
  return issues.slice(0, 3).map((i) => i.path.length === 0 ? i.message : `${i.path.join(".")}: ${i.message}`)
    .join("; ");
}

function describeMethod(call: unknown): string {
  if (typeof call !== "object" || call === null || !("method" in call)) return "delegation";
  return typeof call.method === "string" ? JSON.stringify(call.method.slice(0, 20)) : "delegation";
}
