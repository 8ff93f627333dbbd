// Owns TaskOutput and TaskStop for one owner (docs/reference/task-tool.md): owner-checked lookups (an unknown or foreign
// id is `Unknown task ID: <id>`), blocking reads with a timeout, and cancellation that stays
// cancelled. Returns the child's final answer and metadata, never its raw transcript.

import type { Clock } from "../sys/clock.ts";
import { type SidecarOwner, type SidecarStore, wholeRecord } from "../store/store.ts";
import { worktreeView } from "../worktree/view.ts";
import type { SidecarRecord } from "../store/schema.ts";
import type { ToolContext, ToolResult } from "../tools/tool.ts";
import type { TaskControlPort, TaskOutputInput } from "../tools/task_control.ts";
import { isValidSessionId } from "../protocol/ids.ts";
import { isOwnedBy } from "../store/record_ops.ts";
import { pollWhileRunning } from "./ends_within.ts";
import { capText, RESULT_CAP, TRUNCATION_MARKER } from "./notice.ts";
import type { BackgroundRuns } from "./background.ts";
import type { ShellTasks } from "./shells.ts";

/** What TaskOutput and TaskStop read and act on. */
export interface TaskControlDeps {
  store: SidecarStore;
  background: BackgroundRuns;
  shells: ShellTasks;
  clock: Clock;
  /**
   * Runs a blocking wait on a child: a child's own TaskOutput lends its concurrency slot back meanwhile
   * (semaphore.ts LentSlot), so the child it waits for can get one. Absent: the wait runs as is.
   */
  waiting?: <T>(wait: () => Promise<T>) => Promise<T>;
}

function unknown(id: string): ToolResult {
  return { content: `Unknown task ID: ${id}`, isError: true };
}

export class TaskControl implements TaskControlPort {
  #env: TaskControlDeps;
  #owner: SidecarOwner;

  constructor(deps: TaskControlDeps, owner: SidecarOwner) {
    this.#env = deps;
    this.#owner = owner;
  }

  async #find(id: string): Promise<SidecarRecord | undefined> {
    if (!isValidSessionId(id)) return undefined;
    const loaded = await this.#env.store.load(id);
    if (loaded === null || !("record" in loaded)) return undefined;
    const r = loaded.record;
    return isOwnedBy(r, this.#owner) ? r : undefined;
  }

  async output(input: TaskOutputInput, ctx: ToolContext): Promise<ToolResult> {
    const shells = this.#env.shells;
    if (shells.owns(input.taskId, this.#owner) === true) return await shells.output(input, ctx.signal);
    let record = await this.#find(input.taskId);
    if (record === undefined) return unknown(input.taskId);
    let retrieval = "success";
    if (record.status === "running" && input.block) {
      const waiting = this.#env.waiting ?? ((wait) => wait());
      const inProcess = this.#env.background.isRunning(record.id);
      if (inProcess) {
        const ended = await waiting(() => this.#env.background.wait(record!.id, input.timeoutMs, ctx.signal));
        if (!ended) retrieval = "timeout";
      } else if (input.timeoutMs > 0) {
        const current = record;
        record = await waiting(() =>
          pollWhileRunning(current, async () => (await this.#find(input.taskId)) ?? current, {
            clock: this.#env.clock,
            timeoutMs: input.timeoutMs,
            signal: ctx.signal,
          })
        );
        if (record.status === "running") retrieval = "timeout";
      }
      record = (await this.#find(input.taskId)) ?? record;
    } else if (record.status === "running") {
      retrieval = "not_ready";
    }
    const offset = Number.isSafeInteger(input.offset) && input.offset! > 0 ? input.offset! : 0;
    // The result window reads the whole result: what the record spilled is read back (store/spill.ts).
    const whole = record.status === "running" ? record : await wholeRecord(this.#env.store, record);
    return { content: JSON.stringify(this.#payload(whole, retrieval, offset), null, 2), isError: false };
  }

  #payload(r: SidecarRecord, retrieval: string, offset: number): Record<string, unknown> {
    const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
    return {
      task_id: r.id,
      task_type: "subagent",
      retrieval_status: retrieval,
      status: r.status,
      ...(r.status === "running" && r.queuedAt !== undefined
        ? { queued: true, note: "waiting for a free subagent slot (BLADE_MAX_CONCURRENT_SUBAGENTS)" }
        : {}),
      subagent_type: r.subagentType,
      description: r.description,
      background: r.background,
      created_at: iso(r.createdAt),
      last_active_at: iso(r.lastActiveAt),
      ...(r.completedAt === undefined ? {} : { completed_at: iso(r.completedAt) }),
      ...(r.status === "running" ? {} : {
        ...resultWindow(r.result.message, offset),
        success: r.result.success,
        ...(r.result.error === undefined ? {} : { error: r.result.error }),
      }),
      stats: r.stats,
      lineage: {
        root_agent_id: r.rootAgentId,
        resumed_from: r.resumedFrom ?? null,
        resume_depth: r.resumeDepth,
      },
      ...(r.worktree === undefined ? {} : { worktree: worktreeView(r.worktree) }),
      ...(r.result.modifiedFiles === undefined ? {} : { modified_files: r.result.modifiedFiles }),
      ...(r.result.verificationCommands === undefined
        ? {}
        : { verification_commands: r.result.verificationCommands }),
      ...(r.restartRecovery === undefined ? {} : { restart_recovery: r.restartRecovery }),
      ...(r.result.verificationVerdict === undefined
        ? {}
        : { verification_verdict: r.result.verificationVerdict }),
    };
  }

  async stop(taskId: string, ctx: ToolContext): Promise<ToolResult> {
    const shells = this.#env.shells;
    if (shells.owns(taskId, this.#owner) === true) return await shells.stop(taskId);
    const record = await this.#find(taskId);
    if (record === undefined) return unknown(taskId);
    if (record.status !== "running") {
      return {
        content: `Task ${taskId} is not running (status: ${record.status}); nothing to stop.`,
        isError: false,
      };
    }
    // Commit `cancelled` first: the run's own ending can then never rewrite it to failed.
    await this.#env.store.markCompleted(taskId, {
      status: "cancelled",
      result: { success: false, message: record.result.message, error: "Stopped with TaskStop." },
      completedAt: this.#env.clock.now(),
    });
    const aborted = this.#env.background.abort(taskId, "stopped with TaskStop");
    if (aborted) await this.#env.background.wait(taskId, 10_000, ctx.signal);
    return {
      content: `Stopped ${record.subagentType} task ${taskId} ("${record.description}"): status cancelled.`,
      isError: false,
      metadata: { agentId: taskId, status: "cancelled" },
    };
  }
}

/**
 * The part of a result TaskOutput returns: from `offset`, capped at RESULT_CAP; a cut one says where the
 * rest starts, so any parent, a Worker child's included (it cannot read the sidecar), can read it all.
 */
export function resultWindow(message: string, offset: number): Record<string, unknown> {
  const start = Math.min(offset, message.length);
  const capped = capText(message.slice(start), RESULT_CAP);
  const window = { result: capped.text, ...(start > 0 ? { offset: start } : {}) };
  if (!capped.truncated) return window;
  const next = start + capped.text.length - TRUNCATION_MARKER.length;
  return {
    ...window,
    result_truncated: true,
    next_offset: next,
    full_result:
      `The result has ${message.length} characters; call TaskOutput with offset ${next} for the rest.`,
  };
}
