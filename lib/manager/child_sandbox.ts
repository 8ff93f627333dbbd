// Owns running one child session inside a Deno Worker under its own permission set (SPEC §2): it
// derives the set from trust, the child's permission mode, its tools and its workspace, starts the
// Worker, forwards the child's events, answers its delegation calls on the main thread, and turns
// any crash into a failed ChildOutcome. Cancelling gives the child a grace period to kill its
// processes before the Worker is ended.

import type { RuntimeEvent } from "../protocol/events.ts";
import type { ChildOutcome, ChildSpec } from "../executor/child.ts";
import type { ChildWorkerEvent, ChildWorkerRequest, ProxyMethod } from "../executor/child_worker.ts";
import { childPermissions, type DenoPermissionSet } from "../permissions/deno_permissions.ts";
import { startSandbox } from "../permissions/sandbox.ts";
import type { ProviderConfig } from "../provider/factory.ts";
import { providerHosts } from "../provider/factory.ts";
import { describeError } from "../errors.ts";

const WORKER = new URL("../executor/child_worker.ts", import.meta.url);
const CANCEL_GRACE_MS = 5_000;

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
  platform: string;
  secrets: string[];
  delegation: boolean;
  onEvent: (event: RuntimeEvent) => void;
  /** Answers the child's Task / TaskOutput / TaskStop calls. */
  onCall: (method: ProxyMethod, args: Record<string, unknown>) => Promise<unknown>;
}

export function permissionsForChild(o: WorkerChildOptions): DenoPermissionSet {
  return childPermissions({
    trusted: o.spec.trusted,
    mode: o.spec.config.permissionMode,
    tools: o.toolNames,
    workspaceRoot: o.spec.workspaceRoot,
    storageRoot: o.storageRoot,
    providerHosts: providerHosts(o.provider),
    envNames: [],
    extraReadDirs: o.extraReadDirs,
    sessionWriteDirs: [o.transcriptDir],
  });
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

export async function runChildInWorker(o: WorkerChildOptions, signal: AbortSignal): Promise<ChildOutcome> {
  if (signal.aborted) return failed(o.spec, "The run was cancelled before it started.", true);
  const channel: { reply?: (r: ChildWorkerRequest) => void } = {};
  const permissions = permissionsForChild(o);
  let sandbox;
  try {
    sandbox = await startSandbox<ChildWorkerRequest, ChildOutcome | null, ChildWorkerEvent>(WORKER, {
      mechanism: "worker",
      permissions,
      name: `blade child ${o.spec.id}`,
      onEvent: (ev) => {
        if (ev.kind === "event") return o.onEvent(ev.event);
        o.onCall(ev.method, ev.args).then(
          (value) => channel.reply?.({ kind: "reply", id: ev.id, ok: true, value }),
          (e) => channel.reply?.({ kind: "reply", id: ev.id, ok: false, message: describeError(e) }),
        );
      },
    });
  } catch (e) {
    return failed(o.spec, `The child's sandbox did not start: ${describeError(e)}`, false);
  }
  const box = sandbox;
  channel.reply = (r) => void box.request(r).catch(() => {});
  const onAbort = () => void box.cancel("cancelled", { graceMs: CANCEL_GRACE_MS });
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    const outcome = await box.request({
      kind: "run",
      spec: o.spec,
      provider: o.provider,
      storageRoot: o.storageRoot,
      maxTokens: o.maxTokens,
      platform: o.platform,
      secrets: o.secrets,
      delegation: o.delegation,
    });
    return outcome ?? failed(o.spec, "The child's sandbox answered without a result.", false);
  } catch (e) {
    if (signal.aborted) return failed(o.spec, "The run was cancelled.", true);
    return failed(o.spec, `The child's sandbox failed: ${describeError(e)}`, false);
  } finally {
    signal.removeEventListener("abort", onAbort);
    await box.cancel("finished").catch(() => {});
  }
}
