// Owns the decisions of crash recovery (docs/guides/subagents.md, "Crash recovery"), as pure functions
// of records, time and scripted liveness — no I/O, no clock, no sleeping:
//   selectOrphans(records, now, liveness) → which `running` sidecars are orphans and why, and which are
//                                            left alone and why;
//   planOrphan(record, transcript, now)   → how to close the orphan's open turn, its merged messages,
//                                            its terminal status, result and restartRecovery outcome;
//   groupsToKill(record, leaders)         → which of its recorded Bash process groups still run (their
//                                            leader has the recorded identity) and are to be killed.
// The thin apply that reads files, takes leases and writes the plan is recovery.ts.

import type { Message } from "../protocol/messages.ts";
import type { NewTranscriptEvent } from "../protocol/events.ts";
import type { OwnerLiveness } from "../store/liveness.ts";
import type { RecordedGroup, RestartRecovery, SidecarRecord, SidecarResult } from "../store/schema.ts";
import type { ProcessIdentity } from "../sys/process.ts";
import type { TranscriptRead } from "../session/transcript.ts";
import { rebuildHistory } from "../session/history.ts";
import { mergeByOverlap } from "../session/history_merge.ts";

/** A running record without a PID (or with a PID that cannot be verified) is an orphan after this. */
export const PIDLESS_ORPHAN_AFTER_MS = 30 * 60 * 1000;

export type OrphanReason =
  /** The owner's PID does not answer. */
  | "owner_dead"
  /** The PID answers with another start-time fingerprint: the PID was reused. */
  | "pid_reused"
  /** No PID (or a PID recorded without a fingerprint) and no activity for over 30 minutes. */
  | "inactive";

export type KeepReason = "owner_alive" | "recently_active" | "terminal";

/** Liveness as the apply step measured it: the Process port's answer, per record. */
export type ScriptedLiveness = (record: SidecarRecord) => OwnerLiveness | "reused";

export interface OrphanSelection {
  orphans: { id: string; reason: OrphanReason }[];
  kept: { id: string; reason: KeepReason }[];
}

/** Which records are orphans (dead or reused PID now; PID-less or unverifiable after 30 minutes idle). */
export function selectOrphans(
  records: readonly SidecarRecord[],
  now: number,
  liveness: ScriptedLiveness,
): OrphanSelection {
  const out: OrphanSelection = { orphans: [], kept: [] };
  for (const r of records) {
    if (r.status !== "running") {
      out.kept.push({ id: r.id, reason: "terminal" });
      continue;
    }
    const l = liveness(r);
    if (l === "alive") out.kept.push({ id: r.id, reason: "owner_alive" });
    else if (l === "reused") out.orphans.push({ id: r.id, reason: "pid_reused" });
    else if (l === "dead") out.orphans.push({ id: r.id, reason: "owner_dead" });
    else if (now - r.lastActiveAt > PIDLESS_ORPHAN_AFTER_MS) {
      out.orphans.push({ id: r.id, reason: "inactive" });
    } else out.kept.push({ id: r.id, reason: "recently_active" });
  }
  return out;
}

/** The identity of the process now leading group `pgid` (null: none, or it leads no group). */
export type GroupLeaders = (pgid: number) => ProcessIdentity | null;

/**
 * The orphan's recorded process groups that still run as the ones it started: the group's leader is
 * alive, leads its group and has the recorded identity. A recycled PID (another start time) or a
 * leader that is gone is never signalled — its pgid may belong to someone else by now.
 */
export function groupsToKill(record: SidecarRecord, leaders: GroupLeaders): RecordedGroup[] {
  return (record.processGroups ?? []).filter((g) => {
    const now = leaders(g.pgid);
    return now !== null && now.platform === g.identity.platform && now.fingerprint === g.identity.fingerprint;
  });
}

export interface OrphanPlan {
  id: string;
  /** Appended to the orphan's own transcript first (closes its open turn), if any. */
  closeTurn: NewTranscriptEvent | undefined;
  outcome: RestartRecovery["outcome"];
  /** The sidecar after recovery (status, result, messages, restartRecovery; PID and identity cleared). */
  next: SidecarRecord;
}

/**
 * How to recover one orphan. `transcript` is the child's own transcript as read (null = no file).
 * Completed only when its last terminal event is `turn_completed` (a turn left open whose final
 * message carries a finalization receipt counts) and the transcript itself has final assistant text;
 * otherwise interrupted (failed, resumable). A history that cannot be validated fails recovery, and
 * then resume is refused.
 */
// deno-lint-ignore blade-style/max-params -- the pure planner's own signature, plan(record, transcript, now): ARCHITECTURE.md, "Crash recovery"
export function planOrphan(
  record: SidecarRecord,
  transcript: TranscriptRead | null,
  now: number,
): OrphanPlan {
  const invalid = invalidHistory(record, transcript);
  if (invalid !== undefined || transcript === null) {
    return finalize(record, {
      closeTurn: undefined,
      outcome: "failed",
      messages: record.messages,
      result: {
        success: false,
        message: record.result.message,
        error: `Restart recovery failed: ${invalid ?? "the transcript is missing"}. ` +
          `This run's history cannot be trusted, so it cannot be resumed.`,
      },
      now,
    });
  }
  const history = rebuildHistory(transcript.events);
  let closeTurn: NewTranscriptEvent | undefined;
  let lastTerminal = history.lastTerminal;
  if (history.openTurn !== undefined) {
    const turn = history.openTurn;
    closeTurn = history.finalizedOpenTurn === turn
      ? {
        type: "turn_completed",
        data: {
          turn,
          turns: 0,
          toolCalls: 0,
          durationMs: 0,
          usage: { inputTokens: 0, outputTokens: 0 },
        },
      }
      : {
        type: "turn_aborted",
        data: { turn, cause: "process_restart", reason: "the process running this session stopped" },
      };
    lastTerminal = closeTurn.type === "turn_completed" ? "turn_completed" : "turn_aborted";
  }
  const finalText = ownFinalText(history.messages);
  const messages = mergeByOverlap(record.messages, history.messages);
  if (lastTerminal === "turn_completed" && finalText !== undefined) {
    return finalize(record, {
      closeTurn,
      outcome: "completed",
      messages,
      result: { success: true, message: finalText },
      now,
    });
  }
  return finalize(record, {
    closeTurn,
    outcome: "interrupted",
    messages,
    result: {
      success: false,
      message: lastText(history.messages) ?? "",
      error: `Interrupted: the process running this subagent stopped before it finished. ` +
        `Resume it with resume_from: "${record.id}".`,
    },
    now,
  });
}

function finalize(
  record: SidecarRecord,
  p: {
    closeTurn: NewTranscriptEvent | undefined;
    outcome: OrphanPlan["outcome"];
    messages: Message[];
    result: SidecarResult;
    now: number;
  },
): OrphanPlan {
  const { now } = p;
  const { processId: _p, processIdentity: _i, processGroups: _g, ...rest } = record;
  const { queuedAt: _q, ...kept } = rest as typeof rest & { queuedAt?: unknown };
  return {
    id: record.id,
    closeTurn: p.closeTurn,
    outcome: p.outcome,
    next: {
      ...(kept as typeof rest),
      status: p.outcome === "completed" ? "completed" : "failed",
      result: p.result,
      messages: p.messages,
      completedAt: now,
      lastActiveAt: now,
      restartRecovery: { outcome: p.outcome, recoveredAt: now },
    },
  };
}

/** Why the transcript cannot be trusted as this child's history, or undefined when it can. */
function invalidHistory(record: SidecarRecord, t: TranscriptRead | null): string | undefined {
  if (t === null) return "the transcript is missing";
  const bad = t.diagnostics.find((d) => d.kind === "invalid_line");
  if (bad !== undefined) return `the transcript is corrupt (${bad.message})`;
  const first = t.events[0];
  if (first === undefined) return "the transcript is empty";
  if (first.type !== "session_created") return "the transcript does not start with session_created";
  const foreign = t.events.find((e) => e.sessionId !== record.id);
  if (foreign !== undefined) return `the transcript holds events of another session (${foreign.sessionId})`;
  let seq = 0;
  for (const e of t.events) {
    if (e.seq <= seq) return `the transcript's sequence numbers go backwards at seq ${e.seq}`;
    seq = e.seq;
  }
  return undefined;
}

/** The text of the conversation's last message when it is a final assistant answer (no tool calls). */
function ownFinalText(messages: readonly Message[]): string | undefined {
  const last = messages.at(-1);
  if (last === undefined || last.role !== "assistant") return undefined;
  if (last.content.some((b) => b.type === "tool_call")) return undefined;
  const text = last.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
  return text.trim() === "" ? undefined : text;
}

function lastText(messages: readonly Message[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "assistant") continue;
    const text = m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
    if (text !== "") return text;
  }
  return undefined;
}
