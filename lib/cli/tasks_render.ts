// Owns how `blade tasks …` shows child runs as text: the status labels, the one-line listing, a run's
// output, wait/cancel/clean lines, and ages such as `5m`. Pure functions from records to text; the
// decisions (which runs, what cancel did) come from lib/admin/task_admin.ts. `--json` output is the
// public projection (lib/store/projection.ts), not built here.

import type { PruneReport } from "../worktree/prune.ts";
import { preservedLine } from "../worktree/view.ts";
import type { RecoveryReport } from "../recovery/recovery.ts";
import { PIDLESS_ORPHAN_AFTER_MS } from "../recovery/recovery_plan.ts";
import type { CancelOutcome } from "../admin/task_admin.ts";
import type { SidecarRecord } from "../store/schema.ts";
import type { RunSummary } from "../store/run_summary.ts";

const LABELS: Record<SidecarRecord["status"], string> = {
  running: "RUNNING",
  completed: "OK",
  failed: "FAIL",
  cancelled: "STOPPED",
};

/** The label `blade tasks` shows for a status: RUNNING, OK, FAIL, STOPPED. */
export function statusLabel(status: SidecarRecord["status"]): string {
  return LABELS[status];
}

/** A duration as its largest whole unit: `42s`, `5m`, `3h`, `2d`. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** `3 runs: 1 running, 2 completed` (statuses in lifecycle order, zero counts left out). */
export function statusCounts(statuses: readonly SidecarRecord["status"][], noun = "run"): string {
  const order: SidecarRecord["status"][] = ["running", "completed", "failed", "cancelled"];
  const parts = order.map((s) => [s, statuses.filter((x) => x === s).length] as const)
    .filter(([, n]) => n > 0).map(([s, n]) => `${n} ${s}`);
  const total = `${statuses.length} ${noun}${statuses.length === 1 ? "" : "s"}`;
  return parts.length === 0 ? total : `${total}: ${parts.join(", ")}`;
}

/**
 * A header, then one line per run: status, id, type, when it started (`5m ago`: an age, never the run's
 * duration), description, `[bg]`, and the resume lineage.
 */
export function renderTaskList(
  records: readonly RunSummary[],
  now: number,
  options: { machine?: string } = {},
): string {
  if (records.length === 0) return "No subagent runs in this folder yet.\n";
  const idWidth = Math.max(2, ...records.map((r) => r.id.length));
  const typeWidth = Math.max(4, ...records.map((r) => r.subagentType.length));
  // A MACHINE column once any run was written by another machine (a shared store, --store).
  const elsewhere = records.some((r) => r.machine !== undefined && r.machine !== options.machine);
  const machineWidth = elsewhere ? Math.max(7, ...records.map((r) => r.machine?.length ?? 1)) : 0;
  const machine = (r: RunSummary) => elsewhere ? `${(r.machine ?? "-").padEnd(machineWidth)}  ` : "";
  const head = `${"STATUS".padEnd(8)} ${"ID".padEnd(idWidth)}  ${"TYPE".padEnd(typeWidth)}  ${
    elsewhere ? `${"MACHINE".padEnd(machineWidth)}  ` : ""
  }${"STARTED".padStart(8)}  DESCRIPTION\n`;
  return head + records.map((r) => {
    const lineage = r.resumedFrom === undefined ? "" : `  ← ${r.resumedFrom} (depth ${r.resumeDepth})`;
    const label = r.status === "running" && r.queuedAt !== undefined ? "QUEUED" : LABELS[r.status];
    const kept = r.worktree?.state === "kept"
      ? `         worktree kept: ${r.worktree.worktreeRoot} (branch ${r.worktree.branch})\n`
      : "";
    return `${label.padEnd(8)} ${r.id.padEnd(idWidth)}  ${r.subagentType.padEnd(typeWidth)}  ${machine(r)}${
      `${formatAge(now - r.createdAt)} ago`.padStart(8)
    }  ${r.description}${r.background ? "  [bg]" : ""}${lineage}\n${kept}`;
  }).join("");
}

/** The line under a listing cut to its newest runs: how many are shown and how to see the rest. */
export function renderMore(shown: number, total: number): string {
  return `(the ${shown} most recently active of ${total} runs; --limit <n> shows more, --limit 0 all)\n`;
}

/** A heading line, then the final answer, the error, or "(still running)". */
export function renderTaskOutput(record: SidecarRecord): string {
  const lineage = record.resumedFrom === undefined
    ? ""
    : `resumed_from: ${record.resumedFrom}, root_agent_id: ${record.rootAgentId}, resume_depth: ${record.resumeDepth}\n`;
  const recovery = record.restartRecovery === undefined
    ? ""
    : `restart recovery: ${record.restartRecovery.outcome}\n`;
  const head = `${LABELS[record.status]} ${record.id} (${record.subagentType}): ${record.description}\n` +
    lineage + recovery + "\n";
  const text = record.status === "running"
    ? "(still running)"
    : record.result.success
    ? record.result.message
    : `Error: ${record.result.error ?? "unknown"}\n${record.result.message}`;
  return head + text.trim() + "\n" + findingLines(record);
}

/** The verdict, the evidence and a kept worktree of a finished run, one line each. */
function findingLines(record: SidecarRecord): string {
  const r = record.result;
  const lines: string[] = [];
  const v = r.verificationVerdict;
  if (v !== undefined) lines.push(`verdict: ${v.verdict.toUpperCase()}${v.summary ? ` — ${v.summary}` : ""}`);
  for (const f of v?.findings ?? []) lines.push(`  finding: ${f}`);
  if (r.modifiedFiles !== undefined) lines.push(`modified files: ${r.modifiedFiles.join(", ")}`);
  if (r.verificationCommands !== undefined) {
    lines.push(`verification commands after the last edit: ${r.verificationCommands.join("; ")}`);
  }
  const kept = record.worktree === undefined ? undefined : preservedLine(record.worktree);
  if (kept !== undefined) lines.push(kept);
  const remote = record.remote;
  if (remote?.worker !== undefined) lines.push(`ran on the worker ${remote.worker}`);
  if (remote?.branch !== undefined) {
    const commits = remote.commits === 1 ? "1 commit" : `${remote.commits ?? 0} commits`;
    lines.push(`result branch ${remote.branch} (${commits}): blade tasks output ${record.id} --fetch`);
  }
  return lines.length === 0 ? "" : `\n${lines.join("\n")}\n`;
}

export function renderWaitLine(record: SidecarRecord): string {
  return `${LABELS[record.status].padEnd(8)} ${record.id}\n`;
}

/** `blade tasks cancel --json`: `{id, cancelled, status, pid?}` per id (`status` is the run's status now). */
export function cancelJson(outcome: CancelOutcome): Record<string, unknown> {
  if (outcome.kind === "not_running") return { id: outcome.id, cancelled: false, status: outcome.status };
  return {
    id: outcome.id,
    cancelled: true,
    status: "cancelled",
    ...(outcome.pid === undefined ? {} : { pid: outcome.pid }),
  };
}

export function renderCancel(outcome: CancelOutcome): string {
  if (outcome.kind === "not_running") {
    return `${outcome.id} is not running (${LABELS[outcome.status]}); nothing to cancel.\n`;
  }
  return outcome.pid !== undefined
    ? `Cancelled ${outcome.id}; its process (pid ${outcome.pid}) stops it within a second.\n`
    : `Cancelled ${outcome.id}; no live process was running it.\n`;
}

/** `blade tasks clean --worktrees`: the worktrees removed, and those kept with the reason. */
export function renderPrune(report: PruneReport): string {
  const lines = [
    `Removed ${report.removed.length} stale worktree${report.removed.length === 1 ? "" : "s"}.`,
    ...report.removed.map((w) => `  removed ${w.path} (branch ${w.branch})`),
    ...report.kept.map((w) => `  kept ${w.path}: ${w.reason}`),
  ];
  return lines.join("\n") + "\n";
}

export function renderClean(removed: number, olderThan: string): string {
  return `Removed ${removed} finished run${removed === 1 ? "" : "s"} older than ${olderThan}.\n`;
}

/** `blade tasks recover`: what was reconciled, what was left alone, what could not be read. */
export function renderRecovery(report: RecoveryReport): string {
  const lines: string[] = [];
  if (report.recovered.length === 0) lines.push("No orphaned runs: nothing to recover.");
  else {
    lines.push(
      `Recovered ${report.recovered.length} orphaned run${report.recovered.length === 1 ? "" : "s"}:`,
    );
    for (const r of report.recovered) {
      const n = r.killedGroups?.length ?? 0;
      const killed = n === 0 ? "" : `; killed ${n} leftover process group${n === 1 ? "" : "s"}`;
      const w = r.worktree;
      const worktree = w === undefined
        ? ""
        : w.state === "removed"
        ? "; its clean worktree was removed"
        : `; worktree kept at ${w.path} on branch ${w.branch}${
          w.kept_because === undefined ? "" : ` because ${w.kept_because}`
        }`;
      lines.push(`  ${r.id}  ${r.outcome} (${REASONS[r.reason]}${killed}${worktree})`);
    }
  }
  for (const s of report.skipped) lines.push(`Skipped ${s.id}: ${s.reason}.`);
  for (const p of report.problems) lines.push(`Problem with ${p.id}: ${p.message}`);
  return lines.join("\n") + "\n";
}

const REASONS: Record<RecoveryReport["recovered"][number]["reason"], string> = {
  owner_dead: "its process died",
  pid_reused: "its process died; the PID now belongs to another process",
  inactive: `no process recorded and no activity for over ${PIDLESS_ORPHAN_AFTER_MS / 60_000} minutes`,
};
