// Owns the durable end of a child run: committing its terminal sidecar (the first terminal state
// wins, so a stopped run stays cancelled), putting a background child's completion notice into its
// parent's inbox, and marking a run queued while it waits for a slot. A write that fails is never
// swallowed: it becomes a `runtime_warning` event, marked `workLost` (the run then fails) when the
// child's end is not saved or its result can no longer reach its parent. Also the outcomes of runs that never started.

import type { Clock } from "../sys/clock.ts";
import type { RuntimeEventSink, RuntimeWarning, RuntimeWarningCode } from "../protocol/events.ts";
import type { SidecarOwner, SidecarStore } from "../store/store.ts";
import type { SidecarRecord, SidecarResult, TerminalStatus, WorktreeLease } from "../store/schema.ts";
import type { ChildOutcome } from "../executor/child.ts";
import type { PendingWork } from "../protocol/delivery.ts";
import { BladeError, describeError } from "../errors.ts";
import type { BackgroundRuns } from "./background.ts";
import { buildCompletionNotice } from "./notice.ts";
import { storageWriteFailed } from "../store/storage_root.ts";

export interface LifecycleDeps {
  store: SidecarStore;
  clock: Clock;
  background: BackgroundRuns;
  /** The root session's sink: warnings are not wrapped as a child's events. */
  emit: RuntimeEventSink;
}

export function runtimeWarning(
  code: RuntimeWarningCode,
  o: { sessionId: string; message: string; agentId?: string; workLost: boolean; cause?: unknown },
): RuntimeWarning {
  const { sessionId, message } = o;
  const stack = o.cause instanceof Error && !(o.cause instanceof BladeError) ? o.cause.stack : undefined;
  return {
    type: "runtime_warning",
    sessionId,
    code,
    message,
    ...(o.agentId === undefined ? {} : { agentId: o.agentId }),
    workLost: o.workLost,
    ...(stack === undefined ? {} : { detail: stack }),
  };
}

export function terminalStatus(outcome: ChildOutcome, aborted: boolean): TerminalStatus {
  return outcome.cancelled || aborted ? "cancelled" : outcome.success ? "completed" : "failed";
}

/**
 * Commits the terminal sidecar and returns it. When the commit fails, the run's end is reported and
 * the record as it should have been is returned, so the parent still gets the child's result.
 */
export async function commitTerminal(
  deps: LifecycleDeps,
  end: {
    parentSessionId: string;
    running: SidecarRecord;
    outcome: ChildOutcome;
    aborted: boolean;
    result?: Partial<SidecarResult> | undefined;
    worktree?: WorktreeLease | undefined;
  },
): Promise<SidecarRecord> {
  const { parentSessionId, running, outcome, aborted } = end;

  const status = terminalStatus(outcome, aborted);
  if (outcome.errorType === "storage_write_failed") {
    // The child stopped because the machine refused a write (its transcript on a full disk): its work is
    // lost and the model cannot free the disk, so the run must not report success.
    deps.emit(
      runtimeWarning("child_write_failed", {
        sessionId: parentSessionId,
        message: `The run of ${running.id} stopped: ${outcome.error}`,
        agentId: running.id,
        workLost: true,
      }),
    );
  }
  const result: SidecarResult = {
    success: status === "completed",
    message: outcome.message,
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
    ...end.result,
  };
  const worktree = end.worktree === undefined ? {} : { worktree: end.worktree };
  // A run that never started keeps the messages it was given (a resumed source's history).
  const messagesOf = (r: SidecarRecord) => (outcome.messages.length === 0 ? r.messages : outcome.messages);
  const completedAt = deps.clock.now();
  try {
    // One atomic write (one fsync pair): the terminal state, unless another terminal state came
    // first (that one wins, as markCompleted decides), with the messages, stats and worktree.
    return await deps.store.update(running.id, (r) => {
      const { processId: _p, processIdentity: _i, processGroups: _g, ...rest } = r.status === "running"
        ? { ...r, status, result, completedAt }
        : r;
      return { ...rest, messages: messagesOf(rest), stats: outcome.stats, ...worktree };
    });
  } catch (e) {
    // The run fails (workLost): its record still says running, so a background notice is held back and
    // `blade tasks` shows it running until a restart recovers it as interrupted.
    const why = failureOf(e);
    deps.emit(
      runtimeWarning("sidecar_commit_failed", {
        sessionId: parentSessionId,
        message: `The record of ${running.id} could not be updated to ${status}: ${why.text}. ` +
          `Its result is not saved; \`blade tasks\` shows it as running until the next run recovers it.${why.hint}`,
        agentId: running.id,
        workLost: true,
        cause: why.cause,
      }),
    );
    const { processId: _p, processIdentity: _i, processGroups: _g, ...rest } = running;
    return {
      ...rest,
      status,
      result,
      completedAt,
      messages: messagesOf(running),
      stats: outcome.stats,
      ...worktree,
    };
  }
}

/**
 * A child whose first sidecar could not be written never starts. The model is told why (the returned
 * text); a write the machine refused (a full disk) is also a warning that fails the run, naming the
 * child — the model cannot free the disk, so the run must not report success.
 */
export function launchFailed(
  deps: LifecycleDeps,
  failure: { parentSessionId: string; id: string; cause: unknown },
): string {
  const { parentSessionId, id } = failure;
  const storage = storageWriteFailed(failure.cause);
  if (storage === undefined) return describeError(failure.cause);
  const text = `${storage.message} ${storage.hint}`;
  deps.emit(
    runtimeWarning("sidecar_create_failed", {
      sessionId: parentSessionId,
      message: `The run of ${id} could not start: ${text}`,
      agentId: id,
      workLost: true,
      cause: storage,
    }),
  );
  return text;
}

/** Puts the completion notice into the owner's durable inbox and wakes the owner. */
export async function deliverNotice(
  deps: LifecycleDeps,
  record: SidecarRecord,
  owner: SidecarOwner,
): Promise<void> {
  const source = record.resumedFrom === undefined ? undefined : await deps.store.load(record.resumedFrom)
    .then((l) => (l !== null && "record" in l ? l.record : null)).catch(() => null);
  const notice = buildCompletionNotice({ child: record, owner, ...(source === undefined ? {} : { source }) });
  if (notice.ok) {
    const dropped = (why: string, cause?: unknown, hint = "") =>
      deps.emit(
        runtimeWarning("notice_dropped", {
          sessionId: owner.parentSessionId,
          message:
            `The completion notice of ${record.id} could not be written to its parent's inbox: ${why}. ` +
            `Read its result with \`blade tasks output ${record.id}\`.${hint}`,
          agentId: record.id,
          workLost: true,
          cause,
        }),
      );
    try {
      const queued = await deps.background.inboxFor(owner).enqueue({
        inboxId: notice.inboxId,
        kind: "completion",
        text: notice.text,
        createdAt: deps.clock.now(),
        agentId: record.id,
      });
      if (!queued.accepted) dropped(queued.message);
    } catch (e) {
      const why = failureOf(e);
      dropped(why.text, why.cause, why.hint);
    }
  }
  deps.background.notify(owner);
}

/**
 * A failed write's words for a warning: a write the machine refused names its path and the reason
 * (storageWriteFailed; no stack, it is not a bug), anything else its message (the stack goes to detail).
 */
function failureOf(e: unknown): { text: string; hint: string; cause: unknown } {
  const storage = storageWriteFailed(e);
  return storage === undefined
    ? { text: describeError(e), hint: "", cause: e }
    : { text: storage.message.replace(/\.$/, ""), hint: ` ${storage.hint}`, cause: storage };
}

/**
 * `work` whose `acknowledged` never fails the turn: the inbox entries it removes are already delivered
 * and acknowledged in the transcript (the next start drops them, and a receipt is never delivered
 * twice), so a failed removal loses nothing and is a warning, not the run's failure.
 */
export function tolerantTrim(
  work: PendingWork,
  o: { emit: RuntimeEventSink; sessionId: string },
): PendingWork {
  const { emit, sessionId } = o;
  return {
    ...work,
    acknowledged: (ids) =>
      work.acknowledged(ids).catch((e) => {
        const why = failureOf(e);
        emit(
          runtimeWarning("inbox_trim_failed", {
            sessionId: sessionId,
            message:
              `${ids.length} delivered completion notice(s) could not be removed from the inbox: ${why.text}. ` +
              `Nothing is lost: the transcript records them as delivered, so they are not delivered again.${why.hint}`,
            workLost: false,
            cause: why.cause,
          }),
        );
      }),
  };
}

/** A background run that failed outside the child: reported, recorded as failed, the owner woken. */
export async function reportCrash(
  deps: LifecycleDeps,
  crash: { record: SidecarRecord; owner: SidecarOwner; cause: unknown },
): Promise<void> {
  const { record, owner, cause } = crash;
  const message = `The background run ${record.id} stopped unexpectedly: ${describeError(cause)}`;
  deps.emit(
    runtimeWarning("background_run_crashed", {
      sessionId: owner.parentSessionId,
      message: message,
      agentId: record.id,
      workLost: true,
      cause,
    }),
  );
  await deps.store.markCompleted(record.id, {
    status: "failed",
    result: { success: false, message: "", error: message },
    completedAt: deps.clock.now(),
  }).catch(() => {}); // already reported above; a second failure adds nothing to act on
  deps.background.notify(owner);
}

/**
 * A display-only write of a running record (its activity time, its queued mark) failed: a warning,
 * once per run and kind, never the run's failure. The run goes on and its terminal state is still
 * committed (or, if that fails too, reported as lost); only what listings show meanwhile is stale.
 */
export function statusWriteFailed(
  deps: LifecycleDeps,
  o: { sessionId: string; id: string; what: "activity time" | "queued mark" },
): (cause: unknown) => void {
  const { sessionId, id, what } = o;
  let said = false;
  return (cause) => {
    if (said) return;
    said = true;
    const why = failureOf(cause);
    deps.emit(
      runtimeWarning("status_write_failed", {
        sessionId: sessionId,
        message:
          `The ${what} of ${id} could not be written to its sidecar: ${why.text}. Nothing is lost: the run ` +
          `goes on, but until it ends \`blade tasks list\` may show it ${
            what === "activity time" ? "as inactive" : "without its QUEUED state"
          }.${why.hint}`,
        agentId: id,
        workLost: false,
        cause: why.cause,
      }),
    );
  };
}

/** Marks a run that must wait for a slot (`queuedAt`, listings show QUEUED); returns the undo. */
export async function markQueued(
  deps: LifecycleDeps,
  run: { sessionId: string; id: string },
): Promise<() => Promise<void>> {
  const { id } = run;
  // Display state only: a failed write changes what listings show, never the run.
  const failed = statusWriteFailed(deps, { ...run, what: "queued mark" });
  await deps.store.update(id, { queuedAt: deps.clock.now() }).catch(failed);
  return async () => {
    await deps.store.update(id, (r) => {
      const { queuedAt: _q, ...rest } = r;
      return rest;
    }).catch(failed);
  };
}

function notStarted(error: string, o: { errorType: string; cancelled: boolean }): ChildOutcome {
  const { errorType, cancelled } = o;
  return {
    success: false,
    message: "",
    error,
    errorType,
    cancelled,
    messages: [],
    stats: { tokens: 0, toolCalls: 0, durationMs: 0 },
    toolResults: [],
  };
}

export function failedBeforeStart(error: string): ChildOutcome {
  return notStarted(error, { errorType: "session_in_use", cancelled: false });
}

export function cancelledWhileQueued(): ChildOutcome {
  return notStarted("Cancelled while waiting for a free subagent slot.", {
    errorType: "cancelled",
    cancelled: true,
  });
}
