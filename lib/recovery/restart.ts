// Owns what happens when a top-level session is continued (`--resume`/`--continue`) after a crash,
// before its next model request: reconcile the orphans of its tree of children (recovery.ts), then
// adopt the finished results of its foreground Task calls left without results (adoption.ts) — the
// tool result, the terminal subtask_ref, then `turn_aborted(process_restart)`, written once. The
// caller rebuilds its history from the transcript afterwards. Background children that finished
// meanwhile reach the session through its inbox (recovery queues their notices; background.ts
// delivers them once).

import type { TranscriptLog } from "../session/transcript.ts";
import type { SidecarRecord } from "../store/schema.ts";
import { messageEvents } from "../session/events.ts";
import { adoptionEvents, orphanCalls, planAdoption } from "./adoption.ts";
import {
  queueCompletionNotice,
  reconcile,
  type RecoveryDeps,
  type RecoveryReport,
  runningTree,
} from "./recovery.ts";
import { rebuildHistory } from "../session/history.ts";
import { completionInboxId } from "../run/notice.ts";
import { describeError } from "../errors.ts";
import { isDelegationTool } from "../protocol/tool_names.ts";

export interface RestartResult {
  report: RecoveryReport;
  /** Child ids whose results were adopted into the parent's transcript. */
  adopted: string[];
  /** Task calls left without a result that could not be adopted, with the reason. */
  refused: { callId: string; reason: string }[];
}

export async function recoverSession(
  deps: RecoveryDeps,
  session: { sessionId: string; projectPath: string; transcript: TranscriptLog },
): Promise<RestartResult> {
  const { store, ports } = deps;
  // Only the records that may be running are read (the store's running index), not every record kept:
  // a continued session with nothing to recover pays a folder listing, not a read of each sidecar.
  const listing = await store.listRunning();
  const tree = await runningTree(store, {
    running: listing.records,
    sessionId: session.sessionId,
    projectPath: session.projectPath,
  });
  const report = await reconcile(deps, (r) => tree.has(r.id), { listing });
  // Problems of unrelated records belong to `blade tasks recover`, not to this session.
  report.problems = report.problems.filter((p) => tree.has(p.id));
  const read = await session.transcript.read();
  // A background child that ended while its parent was down (or after the parent was killed but
  // before the notice was queued) is queued now, unless the transcript already holds its receipt.
  // Every child of this session is named in its transcript (the Task call's subtask_ref is written
  // with the call, before the child's record exists).
  const history = rebuildHistory(read?.events ?? []);
  // (The record says whether it ran in the background: a running ref knows only what the call asked.)
  const children = new Set([...history.subtasks.values()].map((r) => r.agentId));
  for (const id of children) {
    if (history.deliveredInboxIds.has(completionInboxId(id))) continue;
    const loaded = await store.load(id).catch(() => null);
    const child = loaded !== null && "record" in loaded ? loaded.record : undefined;
    if (child === undefined || child.status === "running" || !child.background) continue;
    if (child.parentSessionId !== session.sessionId || child.parentProjectPath !== session.projectPath) {
      continue;
    }
    try {
      await queueCompletionNotice(deps, child);
    } catch (e) {
      report.problems.push({
        id,
        message: `queueing its completion notice failed: ${describeError(e)}`,
      });
    }
  }
  const open = read === null ? undefined : orphanCalls(read.events);
  if (read === null || open === undefined || open.calls.length === 0) {
    return { report, adopted: [], refused: [] };
  }
  const records = new Map<string, SidecarRecord | null>();
  for (const call of open.calls) {
    const id = call.input.subagent_session_id;
    if (!isDelegationTool(call.name) || typeof id !== "string") continue;
    const loaded = await store.load(id).catch(() => null);
    records.set(id, loaded !== null && "record" in loaded ? loaded.record : null);
  }
  const owner = { parentSessionId: session.sessionId, parentProjectPath: session.projectPath };
  const plan = planAdoption(read.events, records, owner);
  if (plan === undefined) return { report, adopted: [], refused: [] };
  const events = adoptionEvents(
    plan,
    (content, parts) => messageEvents(ports.ids, { role: "user", content }, { parts, adopted: true }),
  );
  if (events.length > 0) await session.transcript.append(events);
  return { report, adopted: plan.adopted.map((a) => a.agentId), refused: plan.refused };
}
