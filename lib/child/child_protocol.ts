// Owns the one protocol between the main thread and a child-run Worker (child_worker.ts): every message
// that crosses, in each direction, as one discriminated union — HostToWorker (run, reply, cancel,
// abort, and the notices of a proxied model response) and WorkerToHost (ready, a run's outcome, the
// child's events, its calls — Task, TaskOutput, TaskStop, approvals, MCP calls, process groups —, its
// model requests, fatal, exit). The envelope (request/response ids, notices, start and end) is
// sandbox_protocol.ts's, filled here with these payloads. Replies are checked by the guards here before
// the Worker uses them; calls are checked by the main thread (child/child_calls.ts). No I/O, no zod:
// the Worker imports this before its tools load.

import type { RuntimeEvent, SubtaskRefPart } from "../protocol/events.ts";
import type { ProviderConfig } from "../provider/factory.ts";
import type { SecretPrints } from "../config/redact_prints.ts";
import type { TaskRequest } from "../tools/task.ts";
import type { ToolResult } from "../tools/tool.ts";
import type { ChildOutcome, ChildSpec } from "../executor/child.ts";
import type { ApprovalRequest } from "../protocol/approval.ts";
import type { McpToolShape } from "../mcp/tool_adapter.ts";
import type { McpCallResult } from "../mcp/client.ts";
import type { TaskOutputInput } from "../tools/task_control.ts";
import type { WebFetchRequest, WebSearchRequest } from "../protocol/web.ts";
import type { ChildHookCall, ChildHookPoint } from "../hooks/child_hooks.ts";
import type { ChildMessage, ParentMessage } from "./sandbox_protocol.ts";

export interface ChildRunRequest {
  kind: "run";
  runId: number;
  spec: ChildSpec;
  provider: ProviderConfig;
  storageRoot: string;
  maxTokens: number;
  platform: string;
  /**
   * What to redact from transcript lines: the secrets' prints (config/redact_prints.ts), never the
   * secrets themselves.
   */
  secretPrints: SecretPrints;
  /** Whether this child may delegate (below the nesting limit). */
  delegation: boolean;
  /** The child's MCP tools; their calls are answered by the main thread, which owns the connections. */
  mcpTools?: McpToolShape[];
  /** The user's home folder (a Worker child has no environment grant to read HOME itself). */
  home?: string;
  /** Variables the child's tools read, from the main thread (the Bash limits: config/bash_limits.ts). */
  toolEnv?: Record<string, string>;
  /** A foreground child of an interactive session: unapproved calls are asked through the main thread. */
  approvals?: boolean;
  /**
   * The hook points of the child's loop some hook listens to (docs/guides/hooks.md): the Worker asks
   * the main thread at each (a `hook` call), which runs the hooks. Absent: none.
   */
  hookPoints?: ChildHookPoint[];
  /** Write this run's phase marks to stderr (lib/sys/profile.ts; the Worker cannot read BLADE_PROFILE). */
  profile?: boolean;
}

export type ChildReply =
  | { kind: "reply"; id: number; ok: true; value: unknown }
  | { kind: "reply"; id: number; ok: false; message: string };

/** Stop one run (the others in this Worker go on). */
export interface ChildCancel {
  kind: "cancel";
  runId: number;
  reason: string;
}

export type ChildWorkerRequest = ChildRunRequest | ChildReply | ChildCancel;

export type TaskOutputRequest = TaskOutputInput;

/** A delegation call a Worker child makes; the main thread starts or reads the grandchild. */
export type DelegationCall =
  | { method: "plan"; input: TaskRequest }
  | { method: "launch"; input: TaskRequest; callId: string; turnsLeft?: number }
  | { method: "output"; input: TaskOutputRequest }
  | { method: "stop"; taskId: string }
  | { method: "approve"; request: ApprovalRequest }
  /**
   * A process group this child's Bash started (reported at spawn) and a kill of one: Deno refuses
   * `kill(-pgid)` inside a Worker, so the main thread kills, and only groups the child reported
   * and that are direct children of this process leading their own group.
   */
  | { method: "spawned"; pgid: number }
  | { method: "kill"; pgid: number }
  /** An MCP tool call: the main thread checks the name against the child's tools and calls the server. */
  | { method: "mcp"; name: string; input: Record<string, unknown> }
  /** WebFetch or WebSearch: the Worker has no network; the main thread checks the child's tools and runs it. */
  | { method: "web"; kind: "fetch"; input: WebFetchRequest }
  | { method: "web"; kind: "search"; input: WebSearchRequest }
  /** A hook point of the child's loop (hooks/child_hooks.ts): the main thread runs the hooks and answers. */
  | { method: "hook"; call: ChildHookCall };

/**
 * A model request of one run's provider (child/proxy_fetch.ts). The main thread sends it only to
 * that provider's own endpoint, with its own headers (the credentials are never in the Worker).
 */
export interface ProxiedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
}

export type ChildWorkerEvent =
  | { kind: "event"; runId: number; event: RuntimeEvent }
  | { kind: "call"; runId: number; id: number; call: DelegationCall }
  | { kind: "fetch"; runId: number; id: number; request: ProxiedRequest }
  /** The Worker no longer wants request `id`'s response (cancelled, timed out or done reading). */
  | { kind: "fetch_cancel"; runId: number; id: number };

/** Everything the main thread sends a child's Worker. */
export type HostToWorker = ParentMessage<ChildWorkerRequest, FetchNotice>;

/** Everything a child's Worker sends the main thread (a run's response is its outcome; `null` answers a reply or cancel). */
export type WorkerToHost = ChildMessage<ChildOutcome | null, ChildWorkerEvent>;

/** Main thread → Worker, as sandbox notices: a proxied request's response, in order. */
export type FetchNotice =
  | { kind: "fetch_head"; id: number; status: number; statusText: string; headers: [string, string][] }
  /** One body chunk, its buffer transferred. */
  | { kind: "fetch_chunk"; id: number; chunk: Uint8Array }
  | { kind: "fetch_end"; id: number }
  /** The request failed on the main thread (before or after the head): the error and its causes. */
  | { kind: "fetch_error"; id: number; message: string; refused?: true };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A proxied response's notice as the main thread sends it (checked before use all the same). */
export function isFetchNotice(value: unknown): value is FetchNotice {
  if (!isRecord(value) || typeof value.id !== "number") return false;
  switch (value.kind) {
    case "fetch_head":
      return typeof value.status === "number" && typeof value.statusText === "string" &&
        Array.isArray(value.headers);
    case "fetch_chunk":
      return value.chunk instanceof Uint8Array;
    case "fetch_end":
      return true;
    case "fetch_error":
      return typeof value.message === "string";
    default:
      return false;
  }
}

/** A tool result as the main thread sends it back for launch, output and stop. */
export function isToolResult(value: unknown): value is ToolResult {
  if (!isRecord(value) || typeof value.content !== "string" || typeof value.isError !== "boolean") {
    return false;
  }
  if (value.metadata !== undefined && !isRecord(value.metadata)) return false;
  return value.parts === undefined ||
    (Array.isArray(value.parts) && value.parts.every((p) => isRecord(p) && typeof p.type === "string"));
}

/** The running `subtask_ref` answered to `plan` (undefined for an unknown agent type). */
export function isPlannedRef(value: unknown): value is SubtaskRefPart | undefined {
  if (value === undefined) return true;
  return isRecord(value) && value.type === "subtask_ref" && typeof value.agentId === "string" &&
    typeof value.subagentType === "string" && typeof value.state === "string" && isRecord(value.lineage);
}

/** An MCP call's answer (the main thread's McpCallResult). */
export function isMcpResult(value: unknown): value is McpCallResult {
  return isRecord(value) && typeof value.isError === "boolean" && Array.isArray(value.content) &&
    value.content.every((c) => isRecord(c) && typeof c.type === "string");
}
