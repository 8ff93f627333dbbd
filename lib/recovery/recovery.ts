// Owns applying crash recovery (docs/guides/subagents.md, "Crash recovery"): the thin I/O around the
// pure planner in recovery_plan.ts. It lists sidecars, measures each running owner's liveness over the
// Process port, and for every orphan holds the child's session lease guard (a live holder → skip), re-checks
// the record, kills the orphan's leftover Bash process groups (those whose leader still has the
// recorded identity), settles an isolated orphan's worktree (removed when it completed clean, else
// kept), appends the plan's turn-closing event to the child's own transcript, commits the terminal
// sidecar, and queues a background child's completion notice in its parent's inbox. Corrupt records
// and failed writes are reported, never thrown. Runs at runtime start (runtime/runtime.ts), before
// `blade tasks …` and as `blade tasks recover`.

import type { Ports } from "../sys/mod.ts";
import type { StorageLayout } from "../config/storage.ts";
import { type SidecarOwner, type SidecarStore, wholeRecord } from "../store/store.ts";
import type { SidecarRecord, WorktreeLease } from "../store/schema.ts";
import { type WorktreeView, worktreeView } from "../worktree/view.ts";
import { settleWorktree, worktreeDeps } from "../run/isolation.ts";
import { readTranscriptAndEnd, TranscriptWriter } from "../session/transcript.ts";
import { underSessionGuard } from "../session/lease.ts";
import { Inbox, type SessionInbox } from "../session/inbox.ts";
import { describeError } from "../errors.ts";
import { buildCompletionNotice } from "../run/notice.ts";
import { GROUP_COMMIT_SIZE } from "../store/group_commit.ts";
import { forEachBounded, whileAllHeld } from "../sys/concurrency.ts";
import {
  groupsToKill,
  type OrphanReason,
  planOrphan,
  type ScriptedLiveness,
  selectOrphans,
} from "./recovery_plan.ts";

export interface RecoveryDeps {
  ports: Ports;
  store: SidecarStore;
  layout: StorageLayout;
  redact?: (text: string) => string;
  /** Where sessions' inboxes are kept (the shared store's); default: files of `layout`. */
  inboxes?: (owner: SidecarOwner) => SessionInbox;
  /**
   * The folder a `blade tasks` command reconciles from (with a shared store it sees its project's runs
   * from other checkouts: store/project_key.ts). A run of another checkout whose transcript this storage
   * root does not hold is left alone (that checkout's storage keeps it) rather than failed for a
   * missing history. Absent (`tasks recover`): a missing transcript fails the run, as before.
   */
  checkout?: string | undefined;
}

/** One recovered orphan: how it ended, and the leftover Bash process groups of it that were killed. */
export interface RecoveredRun {
  id: string;
  reason: OrphanReason;
  outcome: "completed" | "interrupted" | "failed";
  killedGroups?: number[];
  /** An isolated orphan's worktree after recovery: removed when it completed clean, else kept (why). */
  worktree?: WorktreeView;
}

export interface RecoveryReport {
  recovered: RecoveredRun[];
  /** Orphans left alone: their lease is held by a live process, or they changed meanwhile. */
  skipped: { id: string; reason: string }[];
  /** Unusable sidecar files and writes that failed; never fatal. */
  problems: { id: string; message: string }[];
}

/**
 * Orphans recovered as one batch: their session guards are held together until their sidecars are
 * committed as one group (store.updateMany). Kept to the store's group size, one group per batch.
 */
const RECOVERY_BATCH = GROUP_COMMIT_SIZE;
/** Orphans of a batch prepared at once (record, transcript, plan, leftover groups, turn close). */
const RECOVERY_CONCURRENCY = 16;

/** Which records a pass looks at: one owner tree, one folder, or every folder. */
export type RecoveryScope = (record: SidecarRecord) => boolean;

/**
 * Which of the `running` records belong to `sessionId`'s tree (same folder): each one's chain of
 * parents is followed through the store (loaded by id, each once) up to the session, or to a parent
 * that is no sidecar (another top-level session). Reads only the records on those chains.
 */
export async function runningTree(
  store: SidecarStore,
  o: { running: readonly SidecarRecord[]; sessionId: string; projectPath: string },
): Promise<Set<string>> {
  const { running, sessionId, projectPath } = o;
  const parents = new Map<string, Promise<SidecarRecord | null>>();
  const parentOf = (id: string) => {
    let got = parents.get(id);
    if (got === undefined) {
      got = store.load(id).then((l) => (l !== null && "record" in l ? l.record : null), () => null);
      parents.set(id, got);
    }
    return got;
  };
  const out = new Set<string>();
  for (const r of running) {
    let at: SidecarRecord | null = r;
    // A chain longer than any real nesting (or a cycle of hand-edited records) is not followed.
    for (let hops = 0; at !== null && hops < 64; hops++) {
      if (at.parentProjectPath !== projectPath) break;
      if (at.parentSessionId === sessionId) {
        out.add(r.id);
        break;
      }
      at = await parentOf(at.parentSessionId);
    }
  }
  return out;
}

/** Measures liveness the way the planner expects it: a PID answering with another fingerprint is reused. */
export async function measureLiveness(
  ports: Ports,
  records: readonly SidecarRecord[],
): Promise<ScriptedLiveness> {
  const table = new Map<string, ReturnType<ScriptedLiveness>>();
  const own = ports.process.pid();
  // Many orphans share one dead owner: each PID (and fingerprint) is asked once.
  const answers = new Map<string, Promise<boolean>>();
  const alive = (pid: number, identity?: SidecarRecord["processIdentity"]) => {
    const key = `${pid}\0${identity?.platform ?? ""}\0${identity?.fingerprint ?? ""}`;
    let got = answers.get(key);
    if (got === undefined) answers.set(key, got = ports.process.isAlive(pid, identity));
    return got;
  };
  const machine = ports.env.hostname();
  for (const r of records) {
    if (r.status !== "running") continue;
    // A placed remote child is its workers' to recover: its job stays queued until one takes it, and
    // one whose worker died is reconciled by the next worker once its lease expired (lib/worker/).
    if (r.isolation === "remote" && r.remote !== undefined) {
      table.set(r.id, "alive");
      continue;
    }
    const pid = r.processId;
    // Another machine's PID means nothing here (a shared store): its heartbeat decides (PID-less rule).
    if (pid === undefined || (r.machine !== undefined && machine !== "" && r.machine !== machine)) {
      table.set(r.id, "unknown");
    } else if (!(await alive(pid))) table.set(r.id, "dead");
    else if (r.processIdentity === undefined) table.set(r.id, pid === own ? "alive" : "unknown");
    else table.set(r.id, (await alive(pid, r.processIdentity)) ? "alive" : "reused");
  }
  return (r) => table.get(r.id) ?? "unknown";
}

/** One reconciliation pass over the records `scope` selects. */
export async function reconcile(
  deps: RecoveryDeps,
  scope: RecoveryScope,
  options: { listing?: Awaited<ReturnType<SidecarStore["listAll"]>> } = {},
): Promise<RecoveryReport> {
  const { ports, store } = deps;
  const listing = options.listing ?? await store.listRunning();
  const report: RecoveryReport = {
    recovered: [],
    skipped: [],
    problems: listing.diagnostics.map((d) => ({ id: d.id, message: d.message })),
  };
  const records = listing.records.filter(scope);
  const running = records.filter((r) => r.status === "running");
  if (running.length === 0) return report;
  const liveness = await measureLiveness(ports, running);
  const { orphans } = selectOrphans(running, ports.clock.now(), liveness);
  const byId = new Map(running.map((r) => [r.id, r]));
  // Guards are taken in id order (see recoverBatch); results are reported in selection order.
  const ordered = orphans.map((o) => byId.get(o.id)!).sort((
    a,
    b,
  ) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const outcomes = new Map<string, Outcome>();
  for (let from = 0; from < ordered.length; from += RECOVERY_BATCH) {
    const done = await recoverBatch(deps, ordered.slice(from, from + RECOVERY_BATCH));
    for (const [id, outcome] of done) outcomes.set(id, outcome);
  }
  // Reported in selection order.
  for (const orphan of orphans) {
    const outcome = outcomes.get(orphan.id);
    if (outcome === undefined) continue;
    if ("error" in outcome) report.problems.push({ id: orphan.id, message: outcome.error });
    else if ("skipped" in outcome) report.skipped.push({ id: orphan.id, reason: outcome.skipped });
    else {
      report.recovered.push({
        id: orphan.id,
        reason: orphan.reason,
        outcome: outcome.outcome,
        ...(outcome.killedGroups.length === 0 ? {} : { killedGroups: outcome.killedGroups }),
        ...(outcome.worktree === undefined ? {} : { worktree: worktreeView(outcome.worktree) }),
      });
      for (const message of outcome.problems) report.problems.push({ id: orphan.id, message });
    }
  }
  return report;
}

/** How one orphan's recovery ended: recovered, left alone (why), or failed (the problem to report). */
type Outcome = Recovered | { skipped: string } | { error: string };

interface Recovered {
  outcome: RecoveredRun["outcome"];
  worktree: WorktreeLease | undefined;
  killedGroups: number[];
  /** What went wrong on the way that did not stop the recovery (a group that could not be killed). */
  problems: string[];
}

/**
 * Kills the orphan's recorded process groups that still run as the ones it started (groupsToKill
 * decides on the leaders' identities measured here). Done before the record drops them, so a crash
 * in between leaves them recorded for the next pass.
 */
async function killLeftoverGroups(
  ports: Ports,
  record: SidecarRecord,
): Promise<Pick<Recovered, "killedGroups" | "problems">> {
  const recorded = record.processGroups ?? [];
  const leaders = new Map(
    await Promise.all(
      recorded.map(async (g) => [g.pgid, await ports.process.groupLeaderIdentity(g.pgid)] as const),
    ),
  );
  const out: Pick<Recovered, "killedGroups" | "problems"> = { killedGroups: [], problems: [] };
  for (const g of groupsToKill(record, (pgid) => leaders.get(pgid) ?? null)) {
    try {
      ports.process.killGroup(g.pgid);
      out.killedGroups.push(g.pgid);
    } catch (e) {
      out.problems.push(`its leftover process group ${g.pgid} could not be killed: ${describeError(e)}`);
    }
  }
  return out;
}

/**
 * Recovers a batch of orphans as one group commit, as the only recovery of this storage root at the
 * time (a lock file in the sessions folder, across processes). Every orphan's session guard is taken
 * at once — no lease file is written and removed per orphan; while a guard is held nobody can take
 * that lease, and a live holder's lease means hands off. Other holders of a guard hold nothing else,
 * and recoveries run one at a time, so nobody waits on anybody in a cycle. With every guard held the
 * orphans are prepared (re-read, leftover groups killed, worktree settled, the turn-closing event
 * appended to their own transcripts), their sidecars committed together (store.updateMany: every temp
 * file fsynced, all renamed, the folder fsynced once), then the background ones' notices queued, and
 * only then are the guards released. Per orphan the order is as before: transcript, sidecar, notice.
 */
async function recoverBatch(deps: RecoveryDeps, batch: SidecarRecord[]): Promise<Map<string, Outcome>> {
  const { ports, layout } = deps;
  const out = new Map<string, Outcome>();
  const leaseDeps = { fs: ports.fs, process: ports.process, clock: ports.clock, layout };
  try {
    // With a shared store this storage root may hold no record yet, and so no sessions folder.
    await ports.fs.ensureDir(layout.sessionsDir);
    await ports.fs.withLockedFile(`${layout.sessionsDir}/.~recovery.lock`, async () => {
      const guards = await whileAllHeld(
        batch,
        (listed, fn) =>
          underSessionGuard(leaseDeps, { projectPath: listed.parentProjectPath, sessionId: listed.id }, fn),
        (entered) => recoverHeld(deps, { held: entered, out }),
        { limit: RECOVERY_CONCURRENCY },
      );
      guards.forEach((guard, k) => {
        const id = batch[k]!.id;
        if (guard.status === "rejected") {
          if (!out.has(id)) out.set(id, { error: `recovery failed: ${describeError(guard.reason)}` });
        } else if ("busy" in guard.value) {
          out.set(id, { skipped: `its session is in use by process ${guard.value.busy.pid}` });
        }
      });
    }, { mode: 0o600, transient: true });
  } catch (e) {
    // The recovery lock itself could not be taken (a read-only or full storage root): every orphan
    // of the batch not already decided is reported, never thrown.
    for (const listed of batch) {
      if (!out.has(listed.id)) out.set(listed.id, { error: `recovery failed: ${describeError(e)}` });
    }
  }
  return out;
}

/** recoverBatch with nobody else able to take the `held` orphans' sessions. */
async function recoverHeld(deps: RecoveryDeps, batch: { held: SidecarRecord[]; out: Map<string, Outcome> }) {
  const { held, out } = batch;
  const prepared: Prepared[] = [];
  await forEachBounded(held.length, RECOVERY_CONCURRENCY, async (k) => {
    const listed = held[k]!;
    try {
      const got = await prepareOrphan(deps, listed);
      if ("skipped" in got) out.set(listed.id, got);
      else prepared.push(got);
    } catch (e) {
      out.set(listed.id, { error: `recovery failed: ${describeError(e)}` });
    }
  });
  // Left as it is when it changed meanwhile (`blade tasks cancel` from another process, under the
  // record's lock): the first terminal state wins.
  const committed = await deps.store.updateMany(prepared.map((p) => ({
    id: p.id,
    change: (now: SidecarRecord) =>
      now.status === "running" && now.processId === p.processId ? p.committed : null,
  })));
  await forEachBounded(prepared.length, RECOVERY_CONCURRENCY, async (k) => {
    const p = prepared[k]!;
    const got = committed[k]!;
    if ("error" in got) return void out.set(p.id, { error: `recovery failed: ${describeError(got.error)}` });
    if (!got.written) return void out.set(p.id, { skipped: "it changed since it was listed" });
    const problems = [...p.problems];
    try {
      await queueCompletionNotice(deps, got.record);
    } catch (e) {
      problems.push(`queueing its completion notice failed: ${describeError(e)}`);
    }
    out.set(p.id, { outcome: p.outcome, worktree: p.worktree, killedGroups: p.killedGroups, problems });
  });
}

/** One orphan made ready for the group commit: its turn closed, its terminal record planned. */
interface Prepared extends Recovered {
  id: string;
  processId: number | undefined;
  committed: SidecarRecord;
}

/**
 * Whether another checkout's run (`deps.checkout`: a `blade tasks` command's folder) keeps its history
 * in another storage root: neither its transcript nor its parent session's is in this one. Its parent's
 * transcript here means this root is its own, and its child was stopped before it wrote one: it is
 * recovered as the checkout's own would be.
 */
async function keptElsewhere(deps: RecoveryDeps, record: SidecarRecord): Promise<boolean> {
  if (deps.checkout === undefined || record.parentProjectPath === deps.checkout) return false;
  const parent = deps.layout.transcriptPath(record.parentProjectPath, record.parentSessionId);
  return await deps.ports.fs.lstat(parent).catch(() => null) === null;
}

/** Everything of one orphan's recovery before its sidecar is committed (its guard is held). */
async function prepareOrphan(
  deps: RecoveryDeps,
  listed: SidecarRecord,
): Promise<Prepared | { skipped: string }> {
  const { ports, store, layout } = deps;
  // Re-read under the guard: another process may have recovered or finished it meanwhile.
  const loaded = await store.load(listed.id);
  if (loaded === null || !("record" in loaded)) {
    return { skipped: "its sidecar disappeared or became unusable" };
  }
  if (loaded.record.status !== "running" || loaded.record.processId !== listed.processId) {
    return { skipped: "it changed since it was listed" };
  }
  // The plan merges the record's conversation with the transcript's: what the record spilled is read back.
  const record = await wholeRecord(store, loaded.record);
  const path = layout.transcriptPath(record.parentProjectPath, record.id);
  const got = await readTranscriptAndEnd(ports.fs, path);
  if (got === null && await keptElsewhere(deps, record)) {
    const on = record.machine ? ` on ${record.machine}` : "";
    return { skipped: `its transcript is kept by the checkout at ${record.parentProjectPath}${on}` };
  }
  const groups = await killLeftoverGroups(ports, record);
  const transcript = got?.read ?? null;
  const plan = planOrphan(record, transcript, ports.clock.now());
  // An isolated orphan's worktree ends as a finished run's would: removed when it completed and left
  // nothing, else kept (an interrupted run keeps its work for a resume) with why.
  const active = record.worktree?.state === "active" ? record.worktree : undefined;
  const worktree = active === undefined
    ? undefined
    : await settleWorktree(worktreeDeps(ports, layout), active, plan.outcome === "completed");
  if (plan.closeTurn !== undefined && transcript !== null) {
    const writer = new TranscriptWriter({
      fs: ports.fs,
      clock: ports.clock,
      ids: ports.ids,
      path,
      sessionId: record.id,
      projectPath: record.parentProjectPath,
      ...(deps.redact === undefined ? {} : { redact: deps.redact }),
      // What was just read: the append does not read the whole file again unless it changed.
      ...(got === null ? {} : { after: got.end }),
    });
    // Not fsynced: the committed sidecar is the durable word on how the run ended. The event only
    // closes the turn in the child's own history; a SIGKILL (the page cache survives) never loses it,
    // and if a power loss did, the turn would stay open there, which nothing relies on.
    await writer.append([plan.closeTurn], { sync: false });
  }
  return {
    id: record.id,
    processId: record.processId,
    committed: worktree === undefined ? plan.next : { ...plan.next, worktree },
    outcome: plan.outcome,
    worktree,
    ...groups,
  };
}

/**
 * Queues a terminal background child's completion notice in its parent's inbox (a duplicate is a
 * no-op there; the parent's transcript receipt keeps delivery to once). Nothing for other records.
 */
export async function queueCompletionNotice(deps: RecoveryDeps, record: SidecarRecord): Promise<boolean> {
  const { ports, store, layout } = deps;
  if (!record.background || record.status === "running") return false;
  const owner = { parentSessionId: record.parentSessionId, parentProjectPath: record.parentProjectPath };
  const source = record.resumedFrom === undefined ? undefined : await loadRecord(store, record.resumedFrom);
  const notice = buildCompletionNotice({ child: record, owner, ...(source === undefined ? {} : { source }) });
  if (!notice.ok) return false;
  const inbox = deps.inboxes?.(owner) ?? new Inbox({
    fs: ports.fs,
    clock: ports.clock,
    path: layout.inboxPath(owner.parentProjectPath, owner.parentSessionId),
  });
  await inbox.enqueue({
    inboxId: notice.inboxId,
    kind: "completion",
    text: notice.text,
    createdAt: record.completedAt ?? ports.clock.now(),
    agentId: record.id,
  });
  return true;
}

async function loadRecord(store: SidecarStore, id: string): Promise<SidecarRecord | null> {
  const loaded = await store.load(id).catch(() => null);
  return loaded !== null && "record" in loaded ? loaded.record : null;
}
