// Owns running child sessions inside Deno Workers under their own permission set (docs/reference/permissions.md): it
// derives the set from trust, the child's permission mode, its tools and its workspace, and runs the
// child in a Worker started with exactly that set. Children with the same set share one Worker (a
// Worker costs ~100 ms and ~16 MiB to start; sharing widens nothing), which is ended once idle.
// Events and delegation calls are routed per run; a crash becomes a failed ChildOutcome; cancelling
// one run gives it a grace period to kill its processes. A Worker has no network grant: its model
// requests come here (child_fetch.ts), sent to the run's provider endpoint with the credentials,
// which the Worker never gets.

import { profileEnabled, profileMark } from "../sys/profile.ts";
import type { Clock } from "../sys/clock.ts";
import type { McpToolShape } from "../mcp/tool_adapter.ts";
import type { RuntimeEvent } from "../protocol/events.ts";
import type { ChildOutcome, ChildSpec } from "../executor/child.ts";
import type { CompactionSettings } from "../executor/compaction_policy.ts";
import type { ChildRunRequest, ChildWorkerRequest, DelegationCall } from "./child_protocol.ts";
import type { ChildHookPoint } from "../hooks/child_hooks.ts";
import { decodeWorkerMessage } from "./child_calls.ts";
import { ChildFetches } from "./child_fetch.ts";
import { childPermissions, type DenoPermissionSet } from "../permissions/deno_permissions.ts";
import { childRulesOf } from "../permissions/ceiling.ts";
import { pathRulesOf } from "../permissions/write_scope.ts";
import { type Sandbox, startSandbox } from "./sandbox.ts";
import { type ProviderConfig, providerEndpoint, withoutCredentials } from "../provider/factory.ts";
import type { HttpEndpoint } from "../provider/http_provider.ts";
import { describeError } from "../errors.ts";
import { secretPrints } from "../config/redact_prints.ts";

const WORKER = new URL("./child_worker.ts", import.meta.url);

/**
 * The folder of the Worker's build when Blade runs from one (the dev bundle, dist/): that build imports
 * its lazy chunks (tools, zod, the bash grammar) by computed URL, so Deno reads them only when a run
 * needs them and checks the Worker's read grant then (scripts/bundle_split.ts, `deferLazyImports`). It
 * holds Blade's own code only. From the sources (a `.ts` entry) Deno preloads the string-literal
 * imports without a grant, and none is added.
 */
export function workerCodeDirs(module: URL): string[] {
  if (module.protocol !== "file:" || !module.pathname.endsWith(".js")) return [];
  const path = decodeURIComponent(module.pathname);
  const dir = path.slice(0, path.lastIndexOf("/"));
  // file:///C:/blade/worker/x.js → C:/blade/worker
  return [/^\/[A-Za-z]:\//.test(dir) ? dir.slice(1) : dir];
}

const WORKER_CODE_DIRS = workerCodeDirs(WORKER);
const CANCEL_GRACE_MS = 5_000;
const IDLE_MS = 2_000;

export interface WorkerChildOptions {
  spec: ChildSpec;
  /** Names of the tools the child ends up with (after its allow and deny lists). */
  toolNames: string[];
  provider: ProviderConfig;
  storageRoot: string;
  /** Folder of the child's transcript (written by the child itself). */
  transcriptDir: string;
  extraReadDirs: string[];
  maxTokens: number;
  /** When the child compacts its conversation (the session's settings). */
  compaction?: CompactionSettings | undefined;
  platform: string;
  secrets: string[];
  delegation: boolean;
  /** Unapproved calls are asked through `onCall` (a foreground child of an interactive session). */
  approvals?: boolean;
  /** The child's hook points: asked through `onCall` (a `hook` call); the main thread runs the hooks. */
  hookPoints?: ChildHookPoint[];
  /** The child's MCP tools: proxies in the Worker, calls answered by onCall("mcp"). */
  mcpTools?: McpToolShape[];
  /** The user's home folder, for `~` in paths. */
  home?: string;
  /** Variables the child's tools read (the Bash limits), read by the main thread. */
  toolEnv?: Record<string, string>;
  onEvent: (event: RuntimeEvent) => void;
  /** Answers the child's Task / TaskOutput / TaskStop and MCP calls. */
  onCall: (call: DelegationCall) => Promise<unknown>;
}

export function permissionsForChild(o: WorkerChildOptions): DenoPermissionSet {
  return childPermissions({
    trusted: o.spec.trusted,
    mode: o.spec.config.permissionMode,
    tools: o.toolNames,
    workspaceRoot: o.spec.workspaceRoot,
    ...(o.spec.additionalDirs === undefined ? {} : { additionalDirs: o.spec.additionalDirs }),
    isolated: o.spec.worktree !== undefined,
    storageRoot: o.storageRoot,
    // Its own project folder only (its transcript, inbox, locks): not other projects', not sidecars.
    storageReadDirs: [o.transcriptDir],
    moduleDirs: WORKER_CODE_DIRS,
    // No network: the Worker's model requests go through the main thread (child_fetch.ts).
    providerHosts: [],
    envNames: [],
    // A child isolated in a worktree still reads its parent's checkout; it writes only its worktree.
    extraReadDirs: o.spec.worktree === undefined
      ? o.extraReadDirs
      : [...o.extraReadDirs, o.spec.worktree.parentCheckout],
    sessionWriteDirs: [o.transcriptDir],
    ...(o.spec.audit === undefined ? {} : { readOnly: true }),
    // Its rules narrow its write grant (an agent limited to `Edit(docs/**)` writes docs/ only).
    rules: pathRulesOf(childRulesOf(o.spec.rules, o.spec.config)),
    home: o.home,
  });
}

/**
 * What the Worker gets to run the child: its provider without credentials (they stay on this thread)
 * and the secrets' prints to redact its transcript with, not the secrets.
 */
export function runRequest(o: WorkerChildOptions, runId: number): ChildRunRequest {
  return {
    kind: "run",
    runId,
    spec: o.spec,
    provider: withoutCredentials(o.provider),
    storageRoot: o.storageRoot,
    maxTokens: o.maxTokens,
    ...(o.compaction === undefined ? {} : { compaction: o.compaction }),
    platform: o.platform,
    secretPrints: secretPrints(o.secrets),
    delegation: o.delegation,
    ...(o.approvals === true ? { approvals: true } : {}),
    ...(o.hookPoints === undefined ? {} : { hookPoints: o.hookPoints }),
    ...(profileEnabled() ? { profile: true } : {}),
    ...(o.mcpTools === undefined ? {} : { mcpTools: o.mcpTools }),
    ...(o.home === undefined ? {} : { home: o.home }),
    ...(o.toolEnv === undefined ? {} : { toolEnv: o.toolEnv }),
  };
}

function failed(spec: ChildSpec, message: string, cancelled: boolean): ChildOutcome {
  return {
    success: false,
    message: "",
    error: message,
    errorType: cancelled ? "cancelled" : "internal",
    cancelled,
    messages: spec.initialMessages ?? [],
    stats: { tokens: 0, toolCalls: 0, durationMs: 0 },
    toolResults: [],
  };
}

interface RunRoute {
  onEvent: (event: RuntimeEvent) => void;
  onCall: WorkerChildOptions["onCall"];
  /** Where the run's model requests go, credentials included (undefined: its provider sends none). */
  endpoint: HttpEndpoint | undefined;
}

type ChildSandbox = Sandbox<ChildWorkerRequest, ChildOutcome | null>;

interface PooledWorker {
  sandbox: Promise<ChildSandbox>;
  /** The sandbox once started (proxied responses are notices to it). */
  box: ChildSandbox | undefined;
  /** The Worker's model requests in flight. */
  fetches: ChildFetches;
  runs: Map<number, RunRoute>;
  /** Cancels the pending idle shutdown. */
  idle: (() => void) | undefined;
}

/** Workers keyed by permission set. One pool per process. */
export class ChildWorkerPool {
  #workers = new Map<string, PooledWorker>();
  #nextRun = 1;
  #clock: Pick<Clock, "timer">;
  #module: URL;
  #fetch: typeof fetch | undefined;

  /**
   * `clock` times the idle shutdown of Workers (its timers never keep the process alive); `module` is
   * the Worker's entry (default child/child_worker.ts; tests start one that cannot load); `fetch`
   * sends the Workers' model requests (default the global fetch).
   */
  constructor(options: { clock: Pick<Clock, "timer">; module?: URL; fetch?: typeof fetch }) {
    this.#clock = options.clock;
    this.#module = options.module ?? WORKER;
    this.#fetch = options.fetch;
  }

  /** Running Workers (for diagnostics and tests). */
  get size(): number {
    return this.#workers.size;
  }

  #worker(permissions: DenoPermissionSet): PooledWorker {
    const key = JSON.stringify(permissions);
    const existing = this.#workers.get(key);
    if (existing !== undefined) {
      existing.idle?.();
      existing.idle = undefined;
      return existing;
    }
    const runs = new Map<number, RunRoute>();
    const entry: PooledWorker = {
      sandbox: Promise.resolve(undefined as never),
      box: undefined,
      fetches: new ChildFetches(
        (notice, transfer) => entry.box?.notify(notice, transfer) ?? false,
        this.#fetch === undefined ? {} : { fetch: this.#fetch },
      ),
      runs,
      idle: undefined,
    };
    profileMark("Worker start");
    entry.sandbox = startSandbox<ChildWorkerRequest, ChildOutcome | null, unknown>(this.#module, {
      permissions,
      name: "blade child",
      // A child's messages are untrusted input: each is decoded, and nothing it sends may throw here.
      onEvent: (raw) => this.#receive(entry, raw),
    });
    entry.sandbox.then((box) => {
      entry.box = box;
      profileMark("Worker ready");
    }, () => {});
    entry.sandbox.then((box) =>
      box.exited.then(() => {
        entry.fetches.endRun();
        if (this.#workers.get(key) === entry) this.#workers.delete(key);
      })
    ).catch(() => this.#workers.delete(key));
    this.#workers.set(key, entry);
    return entry;
  }

  #receive(entry: PooledWorker, raw: unknown): void {
    const message = decodeWorkerMessage(raw);
    if ("invalid" in message) {
      // A call or request the child waits for gets an answer; anything else malformed is dropped.
      const { id, kind } = typeof raw === "object" && raw !== null ? raw as Record<string, unknown> : {};
      if (typeof id !== "number") return;
      if (kind === "fetch") entry.fetches.refuse(id, `Refused the child's request: ${message.invalid}`);
      else this.#fail(entry, id, message.invalid);
      return;
    }
    const route = entry.runs.get(message.runId);
    switch (message.kind) {
      case "fetch_cancel":
        return entry.fetches.cancel(message.runId, message.id);
      case "fetch":
        if (route === undefined) {
          return entry.fetches.refuse(message.id, "Refused the child's request: its run has ended");
        }
        void entry.fetches.start(message.runId, message.id, message.request, route.endpoint);
        return;
      case "event":
        try {
          route?.onEvent(message.event);
        } catch { /* a sink that throws on one event does not stop the run */ }
        return;
      case "call":
        if (route === undefined) return;
        Promise.resolve().then(() => route.onCall(message.call)).then(
          (value) => this.#reply(entry, message.id, value),
          (e) => this.#fail(entry, message.id, describeError(e)),
        );
        return;
      default:
        return unreachable(message);
    }
  }

  #fail(entry: PooledWorker, id: number, message: string): void {
    void this.#send(entry, { kind: "reply", id, ok: false, message }).catch(() => {});
  }

  #send(entry: PooledWorker, request: ChildWorkerRequest): Promise<void> {
    return entry.sandbox.then((box) => box.request(request)).then(() => {});
  }

  /** Answers a call; if the answer cannot reach the Worker, the call fails there instead of hanging. */
  #reply(entry: PooledWorker, id: number, value: unknown): void {
    this.#send(entry, { kind: "reply", id, ok: true, value }).catch((e) =>
      this.#fail(entry, id, `the answer could not be sent: ${describeError(e)}`)
    );
  }

  #release(permissions: DenoPermissionSet, entry: PooledWorker): void {
    if (entry.runs.size > 0 || entry.idle !== undefined) return;
    const key = JSON.stringify(permissions);
    entry.idle = this.#clock.timer(IDLE_MS, () => {
      if (entry.runs.size > 0 || this.#workers.get(key) !== entry) return;
      this.#workers.delete(key);
      entry.sandbox.then((box) => box.cancel("idle")).catch(() => {});
    });
  }

  /** Starts (or keeps) the Worker for this child's permission set without running anything yet. */
  warm(o: WorkerChildOptions): void {
    let permissions: DenoPermissionSet;
    try {
      permissions = permissionsForChild(o);
    } catch {
      return; // run() reports the problem when the child actually starts
    }
    const entry = this.#worker(permissions);
    entry.sandbox.catch(() => {});
    this.#release(permissions, entry);
  }

  async run(o: WorkerChildOptions, signal: AbortSignal): Promise<ChildOutcome> {
    if (signal.aborted) return failed(o.spec, "The run was cancelled before it started.", true);
    let permissions: DenoPermissionSet;
    try {
      permissions = permissionsForChild(o);
    } catch (e) {
      return failed(o.spec, `Cannot derive the child's permissions: ${describeError(e)}`, false);
    }
    const entry = this.#worker(permissions);
    const runId = this.#nextRun++;
    const route: RunRoute = { onEvent: o.onEvent, onCall: o.onCall, endpoint: undefined };
    entry.runs.set(runId, route);
    let box: ChildSandbox;
    try {
      [box, route.endpoint] = await Promise.all([entry.sandbox, providerEndpoint(o.provider)]);
    } catch (e) {
      entry.runs.delete(runId);
      this.#release(permissions, entry);
      return failed(o.spec, `The child's sandbox did not start: ${describeError(e)}`, false);
    }
    // Cancelled while the Worker was starting (before the listener below existed): never start the run.
    if (signal.aborted) {
      entry.runs.delete(runId);
      this.#release(permissions, entry);
      return failed(o.spec, "The run was cancelled before it started.", true);
    }
    let stopGrace: (() => void) | undefined;
    const onAbort = () => {
      void box.request({ kind: "cancel", runId, reason: "cancelled" }).catch(() => {});
      // A run that ignores its cancellation past the grace period takes its Worker down with it.
      stopGrace = this.#clock.timer(CANCEL_GRACE_MS, () => void box.cancel("cancel grace expired"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      const request = runRequest(o, runId);
      profileMark("run sent");
      const outcome = await box.request(request);
      return outcome ?? failed(o.spec, "The child's sandbox answered without a result.", false);
    } catch (e) {
      if (signal.aborted) return failed(o.spec, "The run was cancelled.", true);
      return failed(o.spec, `The child's sandbox failed: ${describeError(e)}`, false);
    } finally {
      stopGrace?.();
      signal.removeEventListener("abort", onAbort);
      entry.fetches.endRun(runId);
      entry.runs.delete(runId);
      this.#release(permissions, entry);
    }
  }

  /** Ends every Worker now. */
  async close(): Promise<void> {
    const all = [...this.#workers.values()];
    this.#workers.clear();
    for (const w of all) w.idle?.();
    await Promise.all(all.map((w) => w.sandbox.then((b) => b.cancel("closed")).catch(() => {})));
  }
}

/** A message kind the union does not have: the switches over the protocol stay exhaustive. */
function unreachable(message: never): void {
  void message;
}
