// Owns one child run from its start to its terminal record, once a launch has been planned and its
// sidecar created: the child's session lease (whoever runs a session holds it, so recovery and a second
// runner keep their hands off), a concurrency slot (marking the sidecar queued while it waits; lent back
// while the child waits on its own children, semaphore.ts LentSlot), the MCP
// tools prepared for it, the run through the ChildRunner; then the end: the worktree settled, the
// findings added and the terminal sidecar committed (sidecar_lifecycle.ts). Does not plan launches or
// build the child's host (subagents.ts, child_host.ts).

import { loadBashParser } from "../shell/bash_parser.ts";
import type { RuntimeEvent, RuntimeEventSink } from "../protocol/events.ts";
import type { SidecarRecord } from "../store/schema.ts";
import type { ChildOutcome, ChildSpec } from "../executor/child.ts";
import { describeError } from "../errors.ts";
import { type LeaseHolder, sessionInUse, SessionLease, tryAcquireLease } from "../session/lease.ts";
import type { ChildHost } from "../child/child_runner.ts";
import { subagentStarted } from "./child_host.ts";
import { findingsOf } from "./child_findings.ts";
import { settleWorktree, worktreeDeps } from "./isolation.ts";
import {
  cancelledWhileQueued,
  commitTerminal,
  failedBeforeStart,
  type LifecycleDeps,
  markQueued,
  runtimeWarning,
  terminalStatus,
} from "./sidecar_lifecycle.ts";
import type { SubagentEnv } from "./subagent_env.ts";
import { LentSlot } from "./semaphore.ts";

export interface ChildRunRequest {
  /** The delegating session: child events reach the root sink wrapped with it. */
  parentSessionId: string;
  /** The MCP tool names the delegating session has (a child gets no others). */
  parentMcpTools?: readonly string[];
  signal: AbortSignal;
  /** Called on every event of the child (a background run's heartbeat). */
  onActivity?: () => void;
  /**
   * The child's view of the runtime, given the sink its events go to and its slot, which it lends back
   * while it waits on its own children.
   */
  host(emit: RuntimeEventSink, slot: LentSlot): ChildHost;
}

/** The lifecycle deps of `env` (the root sink gets the warnings). */
export function lifecycleOf(env: SubagentEnv): LifecycleDeps {
  return { store: env.store, clock: env.ports.clock, background: env.background, emit: env.emit };
}

/** The child's session lease, or why it could not be taken (busy, or the error reading or writing it). */
export type ChildLease = SessionLease | { busy: LeaseHolder } | { error: string };

/**
 * Starts taking the child's session lease. A foreground launch takes it while its sidecar is created
 * (the two chains of file operations overlap; nothing runs the child before both are done), and gives
 * it back with `releaseChildLease` if the sidecar could not be created.
 */
export function takeChildLease(env: SubagentEnv, spec: ChildSpec): Promise<ChildLease> {
  return tryAcquireLease(
    { fs: env.ports.fs, process: env.ports.process, clock: env.ports.clock, layout: env.layout },
    { projectPath: spec.parentProjectPath, sessionId: spec.id },
  ).catch((e) => ({ error: describeError(e) }));
}

/**
 * Gives back a lease taken for a child that will not run. A lease is not a durable state: one that
 * cannot be removed names this process, which nobody else takes over while it lives.
 */
export async function releaseChildLease(lease: Promise<ChildLease>): Promise<void> {
  const got = await lease;
  if (got instanceof SessionLease) await got.release().catch(() => {});
}

/**
 * A child's run: its outcome, and its lease's release, under way once the run ended (the caller
 * commits the terminal sidecar meanwhile and awaits both; a failed release rejects `released`).
 */
export interface LeasedRun {
  outcome: ChildOutcome;
  released: Promise<void>;
}

/**
 * Runs the child under its session lease (`taking`: one already being taken; default: taken now) and a
 * slot; a run that cannot start says why in its outcome.
 */
export async function runChildLeased(
  env: SubagentEnv,
  spec: ChildSpec,
  req: ChildRunRequest,
  taking: Promise<ChildLease> = takeChildLease(env, spec),
): Promise<LeasedRun> {
  const lease = await taking;
  if (!(lease instanceof SessionLease)) {
    const why = "busy" in lease ? sessionInUse(spec.id, lease.busy).message : `its lease: ${lease.error}`;
    return { outcome: failedBeforeStart(`Cannot run ${spec.id}: ${why}`), released: Promise.resolve() };
  }
  let outcome: ChildOutcome;
  try {
    outcome = await runInSlot(env, spec, req);
  } catch (e) {
    await lease.release().catch(() => {}); // the run's own failure is the one reported
    throw e;
  }
  const released = lease.release();
  released.catch(() => {}); // awaited by the caller; not unhandled if the caller failed first
  return { outcome, released };
}

/**
 * Runs the child in a slot without taking its session lease: the caller holds it elsewhere (a remote
 * worker holds the run's lease in the shared store, lib/worker/worker.ts).
 */
export function runChildHoldingLease(
  env: SubagentEnv,
  spec: ChildSpec,
  req: ChildRunRequest,
): Promise<ChildOutcome> {
  return runInSlot(env, spec, req);
}

async function runInSlot(env: SubagentEnv, spec: ChildSpec, req: ChildRunRequest): Promise<ChildOutcome> {
  // A child that must wait for a slot says so in its sidecar (`queuedAt`), so listings show QUEUED.
  const unqueue = env.slots.free === 0
    ? await markQueued(lifecycleOf(env), { sessionId: req.parentSessionId, id: spec.id })
    : undefined;
  let slot: Disposable;
  try {
    slot = await env.slots.acquire(req.signal);
  } catch {
    return cancelledWhileQueued();
  }
  using lent = new LentSlot(env.slots, slot, req.signal);
  await unqueue?.();
  const emit = (event: RuntimeEvent) => {
    req.onActivity?.();
    env.emit({ type: "subagent_event", parentSessionId: req.parentSessionId, agentId: spec.id, event });
  };
  const mcpProblems = await env.mcp?.prepare(spec.id, spec.config, req.parentMcpTools) ?? [];
  for (const message of mcpProblems) {
    env.emit(
      runtimeWarning("mcp_server_unavailable", {
        sessionId: req.parentSessionId,
        message: message,
        agentId: spec.id,
        workLost: false,
      }),
    );
  }
  try {
    const started = await subagentStarted(env, spec, req.signal);
    return await env.runner.run(started, req.host(emit, lent), req.signal);
  } finally {
    env.mcp?.release(spec.id);
  }
}

/** Settles the child's worktree, adds its findings, and commits the terminal sidecar. */
export async function finishChild(
  env: SubagentEnv,
  parentSessionId: string,
  running: SidecarRecord,
  end: { outcome: ChildOutcome; aborted: boolean },
): Promise<SidecarRecord> {
  const { outcome, aborted } = end;
  const worktree = running.worktree === undefined ? undefined : await settleWorktree(
    worktreeDeps(env.ports, env.layout),
    running.worktree,
    terminalStatus(outcome, aborted) === "completed",
  );
  // The evidence reads its Bash commands with the parser (verification/commands.ts).
  if (outcome.toolResults.some((r) => r.name === "Bash")) await loadBashParser();
  return await commitTerminal(lifecycleOf(env), {
    parentSessionId,
    running,
    outcome,
    aborted,
    result: findingsOf(running.configSnapshot.name, outcome, running.workspaceRoot),
    worktree,
  });
}
