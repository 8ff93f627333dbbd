// Entry module of a child-run Worker (SPEC §2): child sessions run here under the permission set
// their parent chose, so a bug in tool filtering still cannot write, spawn or connect beyond the
// grant. One Worker serves every concurrent child with the same permission set (each run has its own
// id and cancellation). Delegation tools (Task, TaskOutput, TaskStop) are proxies: nested children
// are started by the main thread, because a Worker cannot grant more than it has.

import { serveSandbox } from "../permissions/sandbox_child.ts";
import type { RuntimeEvent } from "../protocol/events.ts";
import { realPorts } from "../sys/mod.ts";
import { storageLayout } from "../config/storage.ts";
import { redactor } from "../config/config.ts";
import { type ProviderConfig, providerFromConfig } from "../provider/factory.ts";
import { coreTools } from "../tools/registry.ts";
import { taskTool } from "../tools/task.ts";
import { taskOutputTool, taskStopTool } from "../tools/task_control.ts";
import type { AnyTool, ToolResult } from "../tools/tool.ts";
import type { SubtaskRefPart } from "../protocol/events.ts";
import { type ChildOutcome, type ChildSpec, runChild } from "./child.ts";

export interface ChildRunRequest {
  kind: "run";
  runId: number;
  spec: ChildSpec;
  provider: ProviderConfig;
  storageRoot: string;
  maxTokens: number;
  platform: string;
  /** Values to redact from transcript lines. */
  secrets: string[];
  /** Whether this child may delegate (below the nesting limit). */
  delegation: boolean;
  /** The user's home folder (a Worker child has no environment grant to read HOME itself). */
  home?: string;
}

export type ChildReply = { kind: "reply"; id: number; ok: true; value: unknown } | {
  kind: "reply";
  id: number;
  ok: false;
  message: string;
};

/** Stop one run (the others in this Worker go on). */
export interface ChildCancel {
  kind: "cancel";
  runId: number;
  reason: string;
}

export type ChildWorkerRequest = ChildRunRequest | ChildReply | ChildCancel;

export type ProxyMethod = "plan" | "launch" | "output" | "stop";

export type ChildWorkerEvent =
  | { kind: "event"; runId: number; event: RuntimeEvent }
  | { kind: "call"; runId: number; id: number; method: ProxyMethod; args: Record<string, unknown> };

const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
const runs = new Map<number, AbortController>();
let nextCall = 1;

serveSandbox<ChildWorkerRequest, ChildOutcome | null, ChildWorkerEvent>(async (request, ctx) => {
  if (request.kind === "cancel") {
    runs.get(request.runId)?.abort(new Error(request.reason));
    return null;
  }
  if (request.kind === "reply") {
    const waiter = pending.get(request.id);
    pending.delete(request.id);
    if (request.ok) waiter?.resolve(request.value);
    else waiter?.reject(new Error(request.message));
    return null;
  }
  const call = (method: ProxyMethod, args: Record<string, unknown>): Promise<unknown> => {
    const id = nextCall++;
    const { promise, resolve, reject } = Promise.withResolvers<unknown>();
    pending.set(id, { resolve, reject });
    ctx.emit({ kind: "call", runId: request.runId, id, method, args });
    return promise;
  };
  const real = realPorts();
  const home = request.home;
  const ports = { ...real, env: { ...real.env, home: () => home } };
  const provider = await providerFromConfig(request.provider, { clock: ports.clock });
  const secrets = request.secrets;
  const delegation: AnyTool[] = !request.delegation ? [] : [
    taskTool({
      agentTypes: () => [],
      plan: (input) => call("plan", { input }) as Promise<SubtaskRefPart | undefined>,
      launch: (input, tctx) => call("launch", { input, callId: tctx.callId }) as Promise<ToolResult>,
    }),
    taskOutputTool({
      output: (input) => call("output", { input }) as Promise<ToolResult>,
      stop: (taskId) => call("stop", { taskId }) as Promise<ToolResult>,
    }),
    taskStopTool({
      output: (input) => call("output", { input }) as Promise<ToolResult>,
      stop: (taskId) => call("stop", { taskId }) as Promise<ToolResult>,
    }),
  ];
  const controller = new AbortController();
  runs.set(request.runId, controller);
  const onWorkerAbort = () => controller.abort(ctx.signal.reason);
  ctx.signal.addEventListener("abort", onWorkerAbort, { once: true });
  try {
    return await runChild(
      {
        ports,
        provider,
        layout: storageLayout(request.storageRoot),
        maxTokens: request.maxTokens,
        platform: request.platform,
        redact: redactor(secrets),
        emit: (event) => ctx.emit({ kind: "event", runId: request.runId, event }),
        toolsFor: () => [...coreTools(), ...delegation],
      },
      request.spec,
      controller.signal,
    );
  } finally {
    runs.delete(request.runId);
    ctx.signal.removeEventListener("abort", onWorkerAbort);
  }
});
