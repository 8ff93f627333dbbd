// Owns where a child session runs, behind one port: `InThreadRunner` runs it on this thread
// (`BLADE_CHILD_SANDBOX=none`, for comparison and hosts without Workers), `WorkerRunner` in a Deno
// Worker under the child's own permission set (child_sandbox.ts). The launcher (subagents.ts) gives
// each run a ChildHost: the sink for the child's events, the tools it may have, and the answer to
// its delegation calls when it runs in another thread.

import type { Clock } from "../sys/clock.ts";
import type { Approver } from "../protocol/approval.ts";
import type { Ports } from "../sys/mod.ts";
import type { Provider } from "../protocol/provider.ts";
import type { RuntimeEventSink } from "../protocol/events.ts";
import type { StorageLayout } from "../config/storage.ts";
import type { ProviderConfig } from "../provider/factory.ts";
import type { AnyTool } from "../tools/tool.ts";
import { toolSpecs } from "../tools/registry.ts";
import { StructuredOutput } from "../tools/structured_output.ts";
import {
  type ChildDeps,
  type ChildOutcome,
  type ChildSpec,
  childTools,
  runChild,
} from "../executor/child.ts";
import type { DelegationCall } from "./child_protocol.ts";
import { ChildWorkerPool, type WorkerChildOptions } from "./child_sandbox.ts";
import { childSkillTools } from "../executor/child_context.ts";
import type { McpToolShape } from "../mcp/tool_adapter.ts";
import type { WebAccess } from "../protocol/web.ts";
import { type LoopHooks, mergeHooks } from "../executor/hooks.ts";
import type { ChildHookPoint } from "../hooks/child_hooks.ts";

/** What the launcher provides for one child run. */
export interface ChildHost {
  /** Receives the child's own events (the launcher wraps them for the parent). */
  emit: RuntimeEventSink;
  /** Every tool the child could have; its allow and deny lists apply after. */
  tools(): AnyTool[];
  /** Whether the child is below the nesting limit and may delegate. */
  delegation: boolean;
  /** Answers a delegation or MCP call the child makes from another thread. */
  answer(call: DelegationCall): Promise<unknown>;
  /** Set for a foreground child of an interactive session: it may ask the person. */
  approve?: Approver;
  /** The MCP tools among tools(): a Worker child gets proxies for those it keeps. */
  mcp?: McpToolShape[];
  /** The run's web access, for a child in this thread (a Worker child asks through `answer`). */
  web?: WebAccess | undefined;
  /**
   * The child's hooks (docs/guides/hooks.md), run in this thread: a child in this thread uses `loop`, a
   * Worker child asks at `points` (a `hook` call to `answer`). Absent: none apply.
   */
  hooks?: { loop: LoopHooks; points: ChildHookPoint[] } | undefined;
}

export interface ChildRunner {
  /** Runs the child to its end; never throws (a failure is a failed outcome). */
  run(spec: ChildSpec, host: ChildHost, signal: AbortSignal): Promise<ChildOutcome>;
  /** Prepares for a run of this spec (starts its Worker) while the parent's answer still streams. */
  warm(spec: ChildSpec, host: ChildHost): void;
  /** Ends what the runner keeps alive (idle Workers). */
  close(): Promise<void>;
}

export interface InThreadDeps {
  ports: Ports;
  provider: Provider;
  layout: StorageLayout;
  maxTokens: number;
  /** Removes secrets from transcript lines. */
  redact?: (text: string) => string;
  /** The hook points of each child's loop (ChildDeps.hooks), built in this thread for its spec. */
  hooks?: ChildDeps["hooks"];
}

export class InThreadRunner implements ChildRunner {
  #deps: InThreadDeps;

  constructor(deps: InThreadDeps) {
    this.#deps = deps;
  }

  run(spec: ChildSpec, host: ChildHost, signal: AbortSignal): Promise<ChildOutcome> {
    const d = this.#deps;
    // This thread's deps pass through; the host adds what is the run's own.
    return runChild(
      {
        ...d,
        platform: d.ports.env.platform(),
        hooks: (spec) => mergeHooks(d.hooks?.(spec), host.hooks?.loop),
        emit: host.emit,
        toolsFor: () => host.tools(),
        approve: host.approve,
        web: host.web,
      },
      spec,
      signal,
    );
  }

  warm(): void {}

  close(): Promise<void> {
    return Promise.resolve();
  }
}

export interface WorkerDeps {
  layout: StorageLayout;
  /** Times the idle shutdown of pooled Workers. */
  clock: Pick<Clock, "timer">;
  /** The provider as plain data: the Worker builds its own. */
  provider: ProviderConfig;
  maxTokens: number;
  /** The host's platform, for the child's system prompt. */
  platform: string;
  /** Values the Worker redacts from transcript lines. */
  secrets: string[];
  /** Folders every child may read besides its workspace (agent folders). */
  extraReadDirs: string[];
  /** The user's home folder, for `~` in paths (a Worker has no environment grant). */
  home?: string;
  /** Variables the child's tools read (the Bash limits), read here for the Worker. */
  toolEnv?: Record<string, string>;
  /** How the main thread sends children's model requests (one that adds a helper's key). */
  fetch?: typeof fetch;
}

export class WorkerRunner implements ChildRunner {
  #deps: WorkerDeps;
  readonly pool: ChildWorkerPool;

  constructor(deps: WorkerDeps) {
    this.#deps = deps;
    this.pool = new ChildWorkerPool({
      clock: deps.clock,
      ...(deps.fetch === undefined ? {} : { fetch: deps.fetch }),
    });
  }

  run(spec: ChildSpec, host: ChildHost, signal: AbortSignal): Promise<ChildOutcome> {
    return this.pool.run(this.#options(spec, host), signal);
  }

  warm(spec: ChildSpec, host: ChildHost): void {
    this.pool.warm(this.#options(spec, host));
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  #options(spec: ChildSpec, host: ChildHost): WorkerChildOptions {
    const d = this.#deps;
    // A child that returns an object gets StructuredOutput too (its own instance lives in the Worker).
    const extras = spec.structuredOutput === undefined
      ? []
      : [new StructuredOutput(spec.structuredOutput).tool()];
    // The Skill tool's spec travels too; the Worker's own instance reads the skills under its grant.
    const tools = childTools(spec, [...host.tools(), ...childSkillTools(spec.context)], extras);
    const names = tools.map((t) => t.name);
    const mcpTools = (host.mcp ?? []).filter((t) => names.includes(t.bladeName));
    return {
      // The specs travel with the child so its first model request need not wait for its tool modules.
      spec: { ...spec, toolSpecs: toolSpecs(tools) },
      toolNames: tools.map((t) => t.name),
      provider: d.provider,
      storageRoot: d.layout.root,
      transcriptDir: d.layout.projectDir(spec.parentProjectPath),
      extraReadDirs: d.extraReadDirs,
      maxTokens: d.maxTokens,
      platform: d.platform,
      secrets: d.secrets,
      delegation: host.delegation,
      approvals: host.approve !== undefined,
      ...(host.hooks === undefined || host.hooks.points.length === 0
        ? {}
        : { hookPoints: host.hooks.points }),
      ...(mcpTools.length === 0 ? {} : { mcpTools }),
      ...(d.home === undefined ? {} : { home: d.home }),
      ...(d.toolEnv === undefined ? {} : { toolEnv: d.toolEnv }),
      onEvent: host.emit,
      onCall: (call) => host.answer(call),
    };
  }
}
