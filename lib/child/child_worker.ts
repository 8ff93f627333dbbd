// Entry module of a child-run Worker (docs/reference/permissions.md): child sessions run here under the permission set
// their parent chose, so a bug in tool filtering still cannot write, spawn or connect beyond the
// grant. One Worker serves every concurrent child with the same permission set (each run has its own
// id and cancellation). Delegation tools (Task, TaskOutput, TaskStop) are proxies: nested children
// are started by the main thread, because a Worker cannot grant more than it has. So are model
// requests (proxy_fetch.ts): the Worker has no network grant and never holds the provider's credentials.

import { enableProfile, profileMark } from "../sys/profile.ts";
import type { McpToolShape } from "../mcp/tool_adapter.ts";
import { type SandboxChildContext, serveSandbox } from "./serve.ts";
import { FetchProxy } from "./proxy_fetch.ts";
import { realPorts } from "../sys/mod.ts";
import { realProcess } from "../sys/process.ts";
import { storageLayout } from "../config/storage.ts";
import { printRedactor } from "../config/redact_prints.ts";
import { providerFromConfig } from "../provider/factory.ts";
import type { AnyTool } from "../tools/tool.ts";
import type { Provider } from "../protocol/provider.ts";
import { type ChildOutcome, runChild } from "../executor/child.ts";
import { type ApprovalRequest, isApprovalAnswer } from "../protocol/approval.ts";
import { isChildHookAnswer, workerHooks } from "../hooks/child_hooks.ts";
import {
  type ChildRunRequest,
  type ChildWorkerEvent,
  type ChildWorkerRequest,
  type DelegationCall,
  isFetchNotice,
  isMcpResult,
  isPlannedRef,
  isToolResult,
  type TaskOutputRequest,
} from "./child_protocol.ts";

/** Sends one delegation call to the main thread; its answer is checked by `accept` before use. */
type Call = <T>(call: DelegationCall, accept: (value: unknown) => value is T) => Promise<T>;

profileMark("modules evaluated");

const pending = new Map<number, { resolve(value: unknown): void; reject(e: Error): void }>();
const runs = new Map<number, AbortController>();
let nextCall = 1;
/** The runs' model requests, answered by the main thread's notices; made with the first run. */
let proxy: FetchProxy | undefined;

serveSandbox<ChildWorkerRequest, ChildOutcome | null, ChildWorkerEvent>(
  (request, ctx) => request.kind === "run" ? runOne(request, ctx) : control(request),
  undefined,
  {
    onNotice: (value) => {
      if (isFetchNotice(value)) proxy?.receive(value);
    },
  },
);

// While this Worker waits for its first run (its parent still records the launch): the HTTP
// providers' modules the run will build its provider from, so that costs the run nothing.
void Promise.all([import("../provider/anthropic.ts"), import("../provider/openai.ts")]).catch(() => {});

/** A request that is not a run: a cancel or a reply to a call. */
function control(request: Exclude<ChildWorkerRequest, ChildRunRequest>): null {
  switch (request.kind) {
    case "cancel":
      runs.get(request.runId)?.abort(new Error(request.reason));
      return null;
    case "reply": {
      const waiter = pending.get(request.id);
      pending.delete(request.id);
      if (request.ok) waiter?.resolve(request.value);
      else waiter?.reject(new Error(request.message));
      return null;
    }
    default: {
      const unknown: never = request;
      return unknown;
    }
  }
}

/** One child run, from its request to its outcome. */
async function runOne(
  request: ChildRunRequest,
  ctx: SandboxChildContext<ChildWorkerEvent>,
): Promise<ChildOutcome> {
  if (request.profile === true) enableProfile("worker");
  profileMark("run received");
  const call = callerFor(request.runId, (event) => ctx.emit(event));
  const ports = workerPorts(request, call);
  proxy ??= new FetchProxy((event) => ctx.emit(event));
  const provider = onFirstToolCall(
    await providerFromConfig(request.provider, {
      clock: ports.clock,
      fetch: proxy.fetchFor(request.runId),
    }),
    () => load(),
  );
  profileMark("provider ready");
  // The tool modules (and zod, ~5 ms of evaluation on this thread and a few MiB) load only once the
  // child needs them: when its first tool call is complete (the rest of the answer still streams), or
  // when first awaited. The parent sent the tool specs, so the request does not wait for them, and a
  // child that answers without calling a tool never loads them.
  const tools = Promise.withResolvers<AnyTool[]>();
  let loading = false;
  const load = () => {
    if (loading) return;
    loading = true;
    loadTools(call, request.delegation, request.mcpTools ?? []).then((t) => {
      profileMark("tools loaded");
      tools.resolve(t);
    }, tools.reject);
  };
  const lazyTools: PromiseLike<AnyTool[]> = {
    then: (onOk, onError) => {
      load();
      return tools.promise.then(onOk, onError);
    },
  };

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
        redact: printRedactor(request.secretPrints),
        emit: (event) => ctx.emit({ kind: "event", runId: request.runId, event }),
        toolsFor: () => lazyTools,
        // No network here: WebFetch and WebSearch are run by the main thread, for a child whose tools hold them.
        web: {
          fetch: (input) => call({ method: "web", kind: "fetch", input }, isToolResult),
          search: (input) => call({ method: "web", kind: "search", input }, isToolResult),
        },
        ...(request.approvals === true
          ? {
            approve: (req: ApprovalRequest) => call({ method: "approve", request: req }, isApprovalAnswer),
          }
          : {}),
        // The child's hooks run in the main thread (a Worker starts no process): each point asks there.
        ...(request.hookPoints === undefined ? {} : {
          hooks: () =>
            workerHooks(
              request.hookPoints!,
              (hook) => call({ method: "hook", call: hook }, isChildHookAnswer),
            ),
        }),
      },
      request.spec,
      controller.signal,
    );
  } finally {
    profileMark("run end");
    runs.delete(request.runId);
    ctx.signal.removeEventListener("abort", onWorkerAbort);
  }
}

/** The run's way to call the main thread: each call gets an id, its answer settles `pending`. */
function callerFor(runId: number, emit: (event: ChildWorkerEvent) => void): Call {
  return <T>(delegation: DelegationCall, accept: (value: unknown) => value is T) => {
    const id = nextCall++;
    const { promise, resolve, reject } = Promise.withResolvers<T>();
    const resolveChecked = (value: unknown) =>
      accept(value) ? resolve(value) : reject(new Error(`malformed answer to ${delegation.method}`));
    pending.set(id, { resolve: resolveChecked, reject });
    emit({ kind: "call", runId, id, call: delegation });
    return promise;
  };
}

/** The run's ports: process groups killed by the main thread, HOME and tool variables from the request. */
function workerPorts(request: ChildRunRequest, call: Call) {
  const real = realPorts();
  const home = request.home;
  const isTrue = (v: unknown): v is true => v === true;
  // Deno refuses kill(-pgid) in a Worker: the main thread kills the groups this run reports.
  const groupKiller = {
    // Resolves once the main thread recorded the group in the child's sidecar; the command waits.
    started: async (pgid: number) => {
      await call({ method: "spawned", pgid }, isTrue);
    },
    kill: async (pgid: number) => {
      await call({ method: "kill", pgid }, isTrue);
    },
  };
  // The Worker has no environment grant: HOME and the tools' variables (Bash limits) come from the main thread.
  const toolEnv = request.toolEnv ?? {};
  const env = { ...real.env, home: () => home, get: (name: string) => toolEnv[name] ?? real.env.get(name) };
  return { ...real, process: realProcess(groupKiller), env };
}

async function loadTools(call: Call, delegation: boolean, mcp: readonly McpToolShape[]): Promise<AnyTool[]> {
  const [{ coreTools }, { taskTool }, { taskOutputTool, taskStopTool }] = await Promise.all([
    import("../tools/registry.ts"),
    import("../tools/task.ts"),
    import("../tools/task_control.ts"),
  ]);
  // MCP tools are proxies: this Worker never opens a connection or starts a server.
  const mcpTools = mcp.length === 0
    ? []
    : await import("../mcp/tool_adapter.ts").then(({ mcpTool }) =>
      mcp.map((shape) => mcpTool(shape, (name, input) => call({ method: "mcp", name, input }, isMcpResult)))
    );
  if (!delegation) return [...coreTools(), ...mcpTools];
  const control = {
    output: (input: TaskOutputRequest) => call({ method: "output", input }, isToolResult),
    stop: (taskId: string) => call({ method: "stop", taskId }, isToolResult),
  };
  return [
    ...coreTools(),
    taskTool({
      agentTypes: () => [],
      plan: (input) => call({ method: "plan", input }, isPlannedRef),
      launch: (input, tctx) =>
        call({
          method: "launch",
          input,
          callId: tctx.callId,
          ...(tctx.turnsLeft === undefined ? {} : { turnsLeft: tctx.turnsLeft }),
        }, isToolResult),
    }),
    taskOutputTool(control),
    taskStopTool(control),
    ...mcpTools,
  ];
}

/** The provider, calling `onCall` once, when the first tool call of an answer is complete. */
function onFirstToolCall(provider: Provider, onCall: () => void): Provider {
  let fired = false;
  return {
    name: provider.name,
    async *stream(request, options) {
      for await (const event of provider.stream(request, options)) {
        if (!fired && event.type === "tool_call") {
          fired = true;
          onCall();
        }
        yield event;
      }
    },
  };
}
