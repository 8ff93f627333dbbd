// Owns why a run of Blade ended as it did (docs/reference/errors.md, "Why a run failed"): the closed set
// of run failure codes and the decisions that pick one — for a print-mode turn (`blade -p`, the
// interactive session's printers), `blade run <agent>` and `blade tasks resume`. Pure: the caller passes
// what happened (the loop's result, children dropped or interrupted, work lost, the budget, the
// StructuredOutput's state, a child's record). lib/cli/ only renders a RunOutcome as text, json or
// stream-json; it decides nothing.

import type { RunResult } from "./run_result.ts";
import type { RuntimeWarning } from "../protocol/events.ts";
import type { StructuredOutputState } from "../tools/structured_output.ts";
import { verdictFailure, type VerdictValue } from "../verification/verdict.ts";

/** Why a run failed or stopped: `error.code` of a result object, a child's error type. */
export const RUN_FAILURE_CODES = [
  // The agent loop ended the run (RunError).
  "max_turns_exceeded",
  "provider_error",
  "cancelled",
  "structured_output_retries_exhausted",
  // A print-mode turn that the loop completed, failed by what happened around it.
  "max_budget_exceeded",
  "background_wait_expired",
  "structured_output_invalid",
  "permission_denied",
  // Work that could not be saved or reach its parent (runtime warnings marked workLost).
  "child_write_failed",
  "sidecar_create_failed",
  "sidecar_commit_failed",
  "notice_dropped",
  "background_run_crashed",
  // `blade run` and `blade tasks resume`.
  "subagent_failed",
  "resume_refused",
  "no_verdict",
  "verdict_fail",
  "verdict_partial",
] as const;

export type RunFailureCode = typeof RUN_FAILURE_CODES[number];

export function isRunFailureCode(value: unknown): value is RunFailureCode {
  return (RUN_FAILURE_CODES as readonly unknown[]).includes(value);
}

export interface RunFailure {
  code: RunFailureCode;
  message: string;
  /** What to do about it (a model API failure's hint, lib/provider/error_hint.ts), when there is advice. */
  hint?: string;
}

/** How a run ended: completed, or failed / cancelled with why. */
export type RunOutcome =
  | { status: "completed"; error?: undefined }
  | { status: "failed" | "cancelled"; error: RunFailure };

/** What happened around one print-mode turn. */
export interface TurnEvents {
  /** The loop's result of the turn. */
  result: Pick<RunResult, "status" | "error">;
  /** Background children cancelled because `--background-wait` expired. */
  abandoned: readonly string[];
  /** Background children cancelled because the run was interrupted while print mode waited for them. */
  interrupted: readonly string[];
  /** The first runtime warning that lost a child's work, if any. */
  lostWork?: RuntimeWarning;
  /** `--max-budget-usd` passed: the run was stopped at that cost. */
  overBudget?: { costUsd: number; limitUsd: number | undefined };
  /** `--json-schema`: the StructuredOutput's state at the end. */
  structured?: StructuredOutputState;
  /** A text prompt's run in which every call that would have changed something was refused. */
  refusedWork?: RefusedWork;
}

/** The refused calls of a run that did none of its requested work: the tools and how many calls. */
export interface RefusedWork {
  tools: readonly string[];
  calls: number;
}

/**
 * A print-mode turn's outcome. A stopped budget, dropped children, lost work, a run whose every change was
 * refused or a missing structured object turn a completed loop into a failure (docs/reference/background.md); Ctrl-C while print mode
 * waited for children is a cancellation, never an expired wait.
 */
export function turnOutcome(t: TurnEvents): RunOutcome {
  const r = t.result;
  const completed = r.status === "completed";
  const dropped = t.abandoned.length > 0 && completed;
  // Children cancelled by an interrupt while print mode waited: the run was interrupted.
  const stopped = !dropped && t.interrupted.length > 0 && completed;
  if (t.overBudget !== undefined) {
    const { costUsd, limitUsd } = t.overBudget;
    const message = `Stopped: the run cost $${costUsd.toFixed(4)}, over --max-budget-usd ${limitUsd}.`;
    return { status: stopped ? "cancelled" : "failed", error: { code: "max_budget_exceeded", message } };
  }
  if (dropped) {
    const message = `Stopped waiting for background subagents; cancelled: ${t.abandoned.join(", ")}.`;
    return { status: "failed", error: { code: "background_wait_expired", message } };
  }
  if (stopped) {
    const message = `Interrupted while waiting for background subagents; cancelled: ${
      t.interrupted.join(", ")
    }.`;
    return { status: "cancelled", error: { code: "cancelled", message } };
  }
  if (t.lostWork !== undefined && completed) return { status: "failed", error: lostWorkFailure(t.lostWork) };
  // The run did none of the work it was asked to do: never a success (docs/guides/permissions.md).
  if (t.refusedWork !== undefined && completed) {
    const { tools, calls } = t.refusedWork;
    const message = `Every change the run asked for was refused: ${
      tools.join(", ")
    } (permission_denials lists the ${
      calls === 1 ? "call" : `${calls} calls`
    }; the refusals say what grants them).`;
    return { status: "failed", error: { code: "permission_denied", message } };
  }
  const shape = t.structured;
  if (shape !== undefined && shape.status !== "accepted" && completed) {
    const why = shape.status === "rejected"
      ? shape.reason
      : "StructuredOutput was not called with a valid object";
    return {
      status: "failed",
      error: { code: "structured_output_invalid", message: `No structured output: ${why}.` },
    };
  }
  if (r.status === "completed") return { status: "completed" };
  // A loop that did not complete always says why (run_result.ts); "failed" stands in for a missing reason.
  const error: RunFailure = r.error === undefined
    ? {
      code: r.status === "cancelled" ? "cancelled" : "subagent_failed",
      message: "The run did not complete.",
    }
    : { code: r.error.type, message: r.error.message };
  return { status: r.status, error };
}

/** A lost-work warning as the run's failure (its code; any other warning counts as a crashed run). */
export function lostWorkFailure(warning: RuntimeWarning): RunFailure {
  const code = isRunFailureCode(warning.code) ? warning.code : "background_run_crashed";
  return { code, message: warning.message };
}

/** What `blade run` learnt of its child (admin/direct_run.ts). */
export interface DirectRunEnd {
  status: "completed" | "failed" | "cancelled";
  /** Why the child failed, with the lost-work failure when its work could not be saved. */
  failure?: { message: string; lost?: RunFailure };
  /** `verification`/`goal-verification`: the run passes only with verdict pass (docs/guides/ci.md). */
  audited: boolean;
  verdict?: { verdict: VerdictValue; summary?: string };
}

/** `blade run <agent>`'s outcome. */
export function directRunOutcome(d: DirectRunEnd): RunOutcome {
  if (d.failure !== undefined) {
    const error = d.failure.lost ?? { code: "subagent_failed", message: d.failure.message };
    return { status: d.status === "completed" ? "failed" : d.status, error };
  }
  const unmet = d.audited && d.status === "completed" ? verdictFailure(d.verdict) : undefined;
  if (unmet !== undefined) return { status: "failed", error: unmet };
  if (d.status === "completed") return { status: "completed" };
  return {
    status: d.status,
    error: { code: d.status === "cancelled" ? "cancelled" : "subagent_failed", message: "" },
  };
}

/** `blade tasks resume`'s outcome: the new run's record, or the refusal that kept it from starting. */
export function resumeOutcome(
  r: {
    record: { status: string; result: { error?: string } } | undefined;
    refusal: string;
    interrupted: boolean;
  },
): RunOutcome {
  if (r.record === undefined) {
    return {
      status: r.interrupted ? "cancelled" : "failed",
      error: { code: "resume_refused", message: r.refusal },
    };
  }
  if (r.record.status === "completed") return { status: "completed" };
  const error: RunFailure = { code: "subagent_failed", message: r.record.result.error ?? r.refusal };
  return { status: r.interrupted ? "cancelled" : "failed", error };
}
