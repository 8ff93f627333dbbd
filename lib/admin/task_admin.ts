// Owns what `blade tasks …` decides about child runs from outside any session: which runs a folder
// sees (its project's, by path or, with a shared store, by project key from any machine — store/project_key.ts —,
// or every owner with `all`; from the store's run summaries, never every record), looking one up, waiting for runs owned by another process,
// cancelling (the first terminal state wins; the owning process notices and stops the run), and cleaning
// expired finished runs per owner, and recording worktrees pruned by `tasks clean --worktrees` in the
// runs that kept them. TaskControl (task_control.ts) is the in-session counterpart for the
// TaskOutput/TaskStop tools. Does not parse arguments or print: lib/cli/tasks_cmd.ts does.

import { BladeError, describeError } from "../errors.ts";
import { validateSessionId } from "../protocol/ids.ts";
import type { Clock } from "../sys/clock.ts";
import type { Process } from "../sys/process.ts";
import type { SidecarRecord, SidecarStatus } from "../store/schema.ts";
import {
  type RunListing,
  type RunSummary,
  type SidecarDiagnostic,
  type SidecarStore,
  wholeRecord,
} from "../store/store.ts";
import { pollWhileRunning } from "../run/ends_within.ts";
import type { HeldBy } from "./run_holds.ts";
import { sameProject } from "../store/project_key.ts";

export interface TaskAdminOptions {
  store: SidecarStore;
  clock: Clock;
  process: Pick<Process, "isAlive">;
  /** Canonical path of the working folder: only its runs are visible unless `all`. */
  workspace: string;
  /**
   * The workspace's project key with a shared store (store/project_key.ts): runs recorded with the same
   * key are visible too, whatever machine and checkout path they came from.
   */
  projectKey?: string | undefined;
  /** See the runs of every folder of this user. */
  all?: boolean;
}

/** What `cancel` did to one run. */
export type CancelOutcome =
  | { id: string; kind: "not_running"; status: SidecarStatus }
  /** Marked cancelled; `pid` is the owning process when it is still alive (it stops the run). */
  | { id: string; kind: "cancelled"; pid?: number };

export const CANCELLED_BY_COMMAND = "Cancelled with blade tasks cancel.";

export class TaskAdmin {
  #o: TaskAdminOptions;

  constructor(options: TaskAdminOptions) {
    this.#o = options;
  }

  #visible(r: RunSummary): boolean {
    return this.#o.all === true || sameProject(r, { path: this.#o.workspace, key: this.#o.projectKey });
  }

  /** The visible runs' summaries, most recently active first. */
  async list(): Promise<RunSummary[]> {
    return (await this.listWithProblems()).runs;
  }

  /**
   * The visible runs' summaries and every stored record that could not be used (corrupt, foreign id,
   * too large, not a regular file). An unusable record's owner cannot be known, so each is reported.
   */
  async listWithProblems(
    o: { listing?: RunListing | undefined } = {},
  ): Promise<{ runs: RunSummary[]; problems: SidecarDiagnostic[] }> {
    // A listing the caller already made (recovery/listed_reconcile.ts), else the store's.
    const { runs, diagnostics } = o.listing ?? await this.#o.store.listSummaries();
    return { runs: runs.filter((r) => this.#visible(r)), problems: diagnostics };
  }

  /** The full records of `runs` (a page of a listing), in their order; one gone meanwhile is left out. */
  async records(runs: readonly RunSummary[]): Promise<SidecarRecord[]> {
    const loaded = await Promise.all(runs.map((r) => this.#o.store.load(r.id)));
    return loaded.flatMap((l) => (l !== null && "record" in l ? [l.record] : []));
  }

  /**
   * One visible run; BladeError `task_not_found` when it is absent or another folder's, and
   * `invalid_sidecar` (naming the file and why) when its stored record cannot be used.
   */
  async find(id: string): Promise<SidecarRecord> {
    validateSessionId(id);
    const loaded = await this.#o.store.load(id);
    if (loaded !== null && "diagnostic" in loaded) throw corruptRecord(id, loaded.diagnostic);
    if (loaded === null || !this.#visible(loaded.record)) {
      throw new BladeError("task_not_found", `Unknown task ID: ${id}`, {
        hint: "`blade tasks list` shows the runs of this folder (`--all` for every folder).",
      });
    }
    return loaded.record;
  }

  /** `record` whole: what it spilled (a large result, error or conversation) read back (store/spill.ts). */
  whole(record: SidecarRecord): Promise<SidecarRecord> {
    return wholeRecord(this.#o.store, record);
  }

  /**
   * The run once it has ended, or as it is when `timeoutMs` passes (0 = look once; undefined = wait as
   * long as the run takes). The run belongs to another process, so its record is polled.
   */
  async wait(id: string, timeoutMs?: number): Promise<SidecarRecord> {
    const first = await this.find(id);
    if (timeoutMs === 0) return first;
    return await pollWhileRunning(first, () => this.find(id), {
      clock: this.#o.clock,
      timeoutMs: timeoutMs ?? 0,
    });
  }

  /**
   * Marks a running run cancelled. The first terminal state wins, so the run's own ending can no longer
   * rewrite it; the owning process sees the status and stops the run and its processes.
   */
  async cancel(id: string): Promise<CancelOutcome> {
    const record = await this.find(id);
    if (record.status !== "running") return { id, kind: "not_running", status: record.status };
    await this.#o.store.markCompleted(id, {
      status: "cancelled",
      result: { success: false, message: record.result.message, error: CANCELLED_BY_COMMAND },
      completedAt: this.#o.clock.now(),
    });
    const pid = record.processId;
    const alive = pid !== undefined && await this.#o.process.isAlive(pid, record.processIdentity);
    return alive ? { id, kind: "cancelled", pid } : { id, kind: "cancelled" };
  }

  /**
   * Removes the visible finished runs older than `olderThanMs`, with the files each leaves behind
   * (`removeFiles`: transcript, inbox, locks); how many went and what could not be removed.
   */
  async clean(
    olderThanMs: number,
    o: {
      removeFiles?: (runs: readonly RunSummary[]) => Promise<string[]>;
      /** What keeps runs although they are old enough (run_holds.ts: a pending notice, a running parent). */
      held?: (runs: readonly RunSummary[]) => Promise<HeldBy>;
    } = {},
  ): Promise<{ removed: number; failed: string[] }> {
    const { removeFiles } = o;
    const held = o.held === undefined ? () => undefined : await o.held(await this.list());
    // The store decides each run on its state at the moment of removal (a run resumed or changed since
    // it was listed stays).
    const removed = await this.#o.store.cleanExpired(
      (r) => this.#visible(r) && held(r) === undefined,
      olderThanMs,
      {
        now: this.#o.clock.now(),
      },
    );
    const failed = removeFiles === undefined ? [] : await removeFiles(removed);
    return { removed: removed.length, failed };
  }

  /**
   * Records in every run that kept one of these worktrees (any folder's: pruning covers the whole
   * storage root) that it is gone, so listings stop naming it and a resume says it was removed. What
   * could not be recorded is returned as `failed` (id and why); the rest is written.
   */
  async worktreesRemoved(paths: readonly string[]): Promise<{ updated: string[]; failed: string[] }> {
    const gone = new Set(paths);
    const updated: string[] = [];
    const failed: string[] = [];
    if (gone.size === 0) return { updated, failed };
    const { runs } = await this.#o.store.listSummaries();
    for (const r of runs) {
      const w = r.worktree;
      if (w === undefined || w.state !== "kept" || !gone.has(w.worktreeRoot)) continue;
      try {
        await this.#o.store.update(r.id, (current) => {
          const lease = current.worktree;
          if (lease === undefined || lease.worktreeRoot !== w.worktreeRoot) return current;
          return { ...current, worktree: { ...lease, state: "removed" } };
        });
        updated.push(r.id);
      } catch (e) {
        failed.push(`${r.id}: ${describeError(e)}`);
      }
    }
    return { updated, failed };
  }
}

/** `tasks output|wait|cancel <id>` of a record that cannot be used: what is wrong and where. */
export function corruptRecord(id: string, d: SidecarDiagnostic): BladeError {
  const where = d.file === undefined ? "" : ` (${d.file})`;
  return new BladeError("invalid_sidecar", `Task ${id} has a corrupt record${where}: ${d.message}`, {
    hint: d.file === undefined
      ? "Remove the record; the run's result cannot be recovered from it."
      : `Inspect ${d.file}; move it aside or remove it to clear this error (\`blade tasks clean\` leaves it alone).`,
  });
}
