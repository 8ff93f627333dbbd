// Entry module of a child run's Deno Worker (SPEC §2): the child session runs here under the
// permission set its parent chose, so a bug in tool filtering still cannot write, spawn or connect
// beyond the grant. Delegation tools (Task, TaskOutput, TaskStop) are proxies: nested children are
// started by the main thread, because a Worker cannot grant more than it has.

import { serveSandbox } from "../permissions/sandbox_child.ts";
import type { RuntimeEvent } from "../protocol/events.ts";
import { realPorts } from "../sys/mod.ts";
import { storageLayout } from "../config/storage.ts";
import { type ProviderConfig, providerFromConfig } from "../provider/factory.ts";
import { coreTools } from "../tools/registry.ts";
import { taskTool } from "../tools/task.ts";
import { taskOutputTool, taskStopTool } from "../tools/task_control.ts";
import type { AnyTool, ToolResult } from "../tools/tool.ts";
import type { SubtaskRefPart } from "../protocol/events.ts";
import { type ChildOutcome, type ChildSpec, runChild } from "./child.ts";

export interface ChildRunRequest {
  kind: "run";
  spec: ChildSpec;
  provider: ProviderConfig;
  storageRoot: string;
  maxTokens: number;
  platform: string;
  /** Values to redact from transcript lines. */
  secrets: string[];
  /** Whether this child may delegate (below the nesting limit). */
  delegation: boolean;
}

export type ChildReply = { kind: "reply"; id: number; ok: true; value: unknown } | {
  kind: "reply";
  id: number;
  ok: false;
  message: string;
};

export type ChildWorkerRequest = ChildRunRequest | ChildReply;

export type ProxyMethod = "plan" | "launch" | "output" | "stop";

export type ChildWorkerEvent =
  | { kind: "event"; event: RuntimeEvent }
  | { kind: "call"; id: number; method: ProxyMethod; args: Record<string, unknown> };

const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
let nextCall = 1;

serveSandbox<ChildWorkerRequest, ChildOutcome | null, ChildWorkerEvent>(async (request, ctx) => {
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
    ctx.emit({ kind: "call", id, method, args });
    return promise;
  };
  const ports = realPorts();
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
  return await runChild(
    {
      ports,
      provider,
      layout: storageLayout(request.storageRoot),
      maxTokens: request.maxTokens,
      platform: request.platform,
      redact: (text) => secrets.reduce((t, s) => t.split(s).join("[REDACTED]"), text),
      emit: (event) => ctx.emit({ kind: "event", event }),
      toolsFor: () => [...coreTools(), ...delegation],
    },
    request.spec,
    ctx.signal,
  );
});
