// Owns the file store's index of records that may be running (docs/reference/sidecars.md): an empty
// dot file `.<id>.running` beside the record, made before the record is first written `running` and
// removed once it is written in a terminal state. So finding the orphans of a session at its start
// lists the folder once and reads only the records that may be running, not every record ever kept.
// The marker lives in the records' own folder, so the folder fsync of the record's atomic write makes
// its creation durable too. `.~running-index` says the folder is indexed: every record written running
// since then has its marker; a folder without it (written by an older version) is indexed once by a
// full listing. A marker left behind by a crash is harmless: its record is read, found terminal, and
// the marker removed. Does not decide what is an orphan (recovery/recovery_plan.ts).

import type { Fs } from "../sys/fs.ts";
import { isValidSessionId } from "../protocol/ids.ts";
import { forEachBounded } from "../sys/concurrency.ts";
import type { LoadResult, SidecarDiagnostic } from "./codec.ts";
import { byRecentActivity } from "./record_ops.ts";
import type { SidecarRecord } from "./schema.ts";
import type { SidecarListing } from "./store.ts";

/** Marked records read at once. */
const LOAD_CONCURRENCY = 16;

const SUFFIX = ".running";
/** The folder is indexed (a name no record, lock or temp file can have: `~` is never in an id). */
export const INDEXED = ".~running-index";

export class RunningIndex {
  #fs: Fs;
  #dir: string;
  #mode: number;
  /** Markers this process made or saw: a record's heartbeats do not touch the file system again. */
  #known = new Set<string>();

  constructor(fs: Fs, dir: string, mode: number) {
    this.#fs = fs;
    this.#dir = dir;
    this.#mode = mode;
  }

  #path(id: string): string {
    return `${this.#dir}/.${id}${SUFFIX}`;
  }

  /** Before `id` is written running: its marker exists (made once per process). */
  async mark(id: string, dirMode: number): Promise<void> {
    if (this.#known.has(id)) return;
    await this.#fs.ensureDir(this.#dir, dirMode);
    await this.#fs.writeText(this.#path(id), "", { mode: this.#mode });
    this.#known.add(id);
  }

  /** After `id` was written terminal (or removed): its marker goes. A failure only leaves it stale. */
  async unmark(id: string): Promise<void> {
    this.#known.delete(id);
    await this.#fs.remove(this.#path(id)).catch(() => {
      // Absent (never running, or removed already), or it could not go: a stale marker is removed
      // by the next listing that finds its record terminal.
    });
  }

  /** The ids with a marker, from the folder's names; null when the folder is not indexed yet. */
  markedIn(names: readonly string[]): string[] | null {
    if (!names.includes(INDEXED)) return null;
    return names.flatMap((n) => {
      if (!n.startsWith(".") || !n.endsWith(SUFFIX)) return [];
      const id = n.slice(1, -SUFFIX.length);
      return isValidSessionId(id) ? [id] : [];
    });
  }

  /**
   * Indexes a folder written by an older version: markers for its running records (from a full
   * listing), then the flag. Best effort: a read-only root stays unindexed and is listed whole again.
   */
  async index(runningIds: readonly string[]): Promise<void> {
    try {
      for (const id of runningIds) await this.mark(id, 0o700);
      await this.#fs.writeText(`${this.#dir}/${INDEXED}`, "", { mode: this.#mode });
    } catch { /* listed whole next time */ }
  }

  /**
   * The records that may be running (SidecarStore.listRunning): the folder is listed once and only
   * the records with a marker are read; a marker whose record ended is removed. A folder not indexed
   * yet is listed whole (`listAll`), once, and indexed.
   */
  async list(store: {
    load(id: string): Promise<LoadResult | null>;
    listAll(): Promise<SidecarListing>;
  }): Promise<SidecarListing> {
    if (await this.#fs.stat(this.#dir) === null) return { records: [], diagnostics: [] };
    const names = (await this.#fs.readDir(this.#dir)).map((e) => e.name);
    const marked = this.markedIn(names);
    if (marked === null) {
      const all = await store.listAll();
      const records = all.records.filter((r) => r.status === "running");
      await this.index(records.map((r) => r.id));
      return { records, diagnostics: all.diagnostics };
    }
    const records: SidecarRecord[] = [];
    const diagnostics: SidecarDiagnostic[] = [];
    await forEachBounded(marked.length, LOAD_CONCURRENCY, async (k) => {
      const id = marked[k]!;
      const result = await store.load(id);
      if (result !== null && "diagnostic" in result) diagnostics.push(result.diagnostic);
      else if (result !== null && result.record.status === "running") records.push(result.record);
      else await this.unmark(id); // ended or gone: a stale marker
    });
    records.sort(byRecentActivity);
    diagnostics.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { records, diagnostics };
  }
}
