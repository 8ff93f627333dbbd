// Owns the durable sidecar store over the Fs port (docs/reference/sidecars.md): one pretty-JSON file
// per child at <storageRoot>/agents/sessions/<id>.json, written atomically (temp file, fsync, rename,
// fsync the folder; file 0600, folders 0700), ids checked before any path is built, and reads that fail
// closed (an unusable file is a diagnostic, a legacy record is normalised). Keeps an LRU cache of at
// most 256 decoded records (running ones pinned), re-validated against each file's mtime and size so
// another process's write is seen, and serialises writes per id within this process. Writes from
// several processes are safe through the atomic rename, not a lock. Does not know about runs, recovery
// or delivery.

import type { Clock } from "../sys/clock.ts";
import type { FileInfo, Fs } from "../sys/fs.ts";
import { decodeSidecar, encodeSidecar, type LoadResult, type SidecarDiagnostic } from "./codec.ts";
import { validateSessionId } from "../protocol/ids.ts";
import { KeyedLock } from "./keyed_lock.ts";
import { LruCache } from "./lru_cache.ts";
import {
  alreadyExists,
  applyChange,
  applyGroupChange,
  byRecentActivity,
  checkGroupIds,
  completeRecord,
  isExpired,
  isOwnedBy,
  notFound,
  unusable,
} from "./record_ops.ts";
import type { SidecarRecord } from "./schema.ts";
import { forEachBounded } from "../sys/concurrency.ts";
import { commitInGroups, type StagedRecord, stagingDir } from "./group_commit.ts";
import { RunningIndex } from "./running_index.ts";
import { folderNames, RunIndex } from "./run_index.ts";
import type { RunSummary } from "./run_summary.ts";
import { planSpill, spillDir, spillOf, withSpilled } from "./spill.ts";
import type {
  GroupChange,
  GroupOutcome,
  RunListing,
  SidecarChange,
  SidecarCompletion,
  SidecarListing,
  SidecarOwner,
  SidecarStore,
} from "./store.ts";

export const SIDECAR_CACHE_LIMIT = 256;
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;
/** A group commit's temp files: in a folder of their own, not fsynced yet (commitInGroups does). */
const STAGED = { mode: FILE_MODE, dirMode: DIR_MODE, dirReady: true, sync: false } as const;
/** Files decoded at once by listAll. */
const LIST_CONCURRENCY = 16;
/**
 * A record larger than this is never read into memory (a hostile or runaway file, e.g. a 1 GB sparse
 * file): it is a `too_large` diagnostic. Real records stay far below it (messages are bounded by the
 * model's context).
 */
export const MAX_SIDECAR_BYTES = 64 * 1024 * 1024;

export interface FileSidecarStoreOptions {
  fs: Fs;
  clock: Clock;
  storageRoot: string;
  /** Records kept decoded in memory; running records are pinned beyond it. Default 256. */
  cacheLimit?: number;
  /**
   * Removes secrets from every record before it is written (messages, result, error, prompt…); the
   * cache and callers then see the redacted record, exactly as a later read would.
   */
  redact?: (text: string) => string;
}

/**
 * A cached record and the file it was decoded from. Each load stats the file: a different mtime or
 * size (another process wrote it) means re-read. A same-size rewrite within the same millisecond can
 * go unnoticed until the entry is evicted or rewritten.
 */
interface CacheEntry {
  record: SidecarRecord;
  legacy: boolean;
  mtimeMs: number | null;
  size: number;
}

export class FileSidecarStore implements SidecarStore {
  readonly sessionsDir: string;
  #fs: Fs;
  #clock: Clock;
  #storageRoot: string;
  #cache: LruCache<string, CacheEntry>;
  #locks = new KeyedLock();
  #parentsReady = false;
  #redact: ((text: string) => string) | undefined;
  #running: RunningIndex;
  #runs: RunIndex;

  constructor(options: FileSidecarStoreOptions) {
    this.#redact = options.redact;
    this.#fs = options.fs;
    this.#clock = options.clock;
    this.#storageRoot = options.storageRoot.replace(/[\\/]+$/, "") || "/";
    this.sessionsDir = `${this.#storageRoot}/agents/sessions`;
    this.#running = new RunningIndex(this.#fs, this.sessionsDir, FILE_MODE);
    this.#runs = new RunIndex({
      fs: this.#fs,
      dir: this.sessionsDir,
      mode: FILE_MODE,
      load: (id) => this.load(id),
      exclusive: (fn) => this.#fs.withLockedDir(this.sessionsDir, fn),
    });
    this.#cache = new LruCache(options.cacheLimit ?? SIDECAR_CACHE_LIMIT, {
      pinned: (entry) => entry.record.status === "running",
    });
  }

  /** The file of `id`; throws BladeError `invalid_session_id` before building any path. */
  pathOf(id: string): string {
    return `${this.sessionsDir}/${validateSessionId(id)}.json`;
  }

  /** Number of decoded records held in memory (for tests and diagnostics). */
  get cacheSize(): number {
    return this.#cache.size;
  }

  isCached(id: string): boolean {
    return this.#cache.has(id);
  }

  async create(record: SidecarRecord): Promise<void> {
    const path = this.pathOf(record.id);
    encodeSidecar(record);
    await this.#locks.run(record.id, async () => {
      if (await this.#fs.lstat(path) !== null) throw alreadyExists(record.id);
      await this.#committed(record, () => this.#write(record));
    });
  }

  async save(record: SidecarRecord): Promise<void> {
    this.pathOf(record.id);
    encodeSidecar(record);
    await this.#locks.run(record.id, () => this.#committed(record, () => this.#write(record)));
  }

  /** The record with its spilled values read back from `<id>.spill/` (spill.ts). */
  readSpilled(record: SidecarRecord): Promise<SidecarRecord> {
    const dir = spillDir(this.sessionsDir, validateSessionId(record.id));
    return withSpilled(record, (_id, file) => this.#fs.readText(`${dir}/${file}`));
  }

  /**
   * Writes the files `record` spills (each atomically, fsynced) and returns the record as stored: a
   * record never names a file that is not there yet. Secrets are redacted from the files too.
   */
  async #spill(record: SidecarRecord): Promise<SidecarRecord> {
    const plan = await planSpill(record);
    const dir = spillDir(this.sessionsDir, record.id);
    for (const file of plan.files) {
      const text = this.#redact === undefined ? file.text : this.#redact(file.text);
      await this.#fs.writeAtomic(`${dir}/${file.name}`, text, { mode: FILE_MODE, dirMode: DIR_MODE });
    }
    return plan.record;
  }

  /** Removes the spilled files `record` no longer names (a rewrite's leftovers); best effort. */
  async #pruneSpill(record: SidecarRecord): Promise<void> {
    const dir = spillDir(this.sessionsDir, record.id);
    const named = new Set(Object.values(spillOf(record) ?? {}).map((r) => r.file));
    let entries: { name: string }[];
    try {
      entries = await this.#fs.readDir(dir);
    } catch {
      return;
    }
    for (const e of entries) {
      if (!named.has(e.name)) await this.#fs.remove(`${dir}/${e.name}`).catch(() => {});
    }
    if (named.size === 0) await this.#fs.remove(dir).catch(() => {});
  }

  /**
   * Runs a write outside #mutate: a running record's as it is; a finished one's with the folder held
   * shared, as #mutate holds it, so its index marker and its commit are never split by a fold.
   */
  async #committed(record: SidecarRecord, write: () => Promise<unknown>): Promise<void> {
    if (record.status === "running") {
      await write();
      return;
    }
    await this.#ensureParents();
    await this.#fs.ensureDir(this.sessionsDir, DIR_MODE);
    await this.#fs.withLockedDir(this.sessionsDir, write, { shared: true });
  }

  async load(id: string): Promise<LoadResult | null> {
    const path = this.pathOf(id);
    const info = await this.#fs.lstat(path);
    if (info === null) {
      this.#cache.delete(id);
      return null;
    }
    if (!info.isFile) {
      this.#cache.delete(id);
      return this.#diagnostic(id, "not_a_file", "is not a regular file");
    }
    if (info.size > MAX_SIDECAR_BYTES) {
      this.#cache.delete(id);
      return this.#diagnostic(
        id,
        "too_large",
        `is too large (${info.size} bytes, at most ${MAX_SIDECAR_BYTES})`,
      );
    }
    const cached = this.#cache.get(id);
    if (cached !== undefined && cached.mtimeMs === info.mtimeMs && cached.size === info.size) {
      return { record: structuredClone(cached.record), legacy: cached.legacy };
    }
    let text: string;
    try {
      text = await this.#fs.readText(path);
    } catch (e) {
      if (await this.#fs.lstat(path) === null) return null;
      return this.#diagnostic(
        id,
        "unreadable",
        `cannot be read (${e instanceof Error ? e.message : String(e)})`,
      );
    }
    const result = decodeSidecar(text, id);
    if ("diagnostic" in result) {
      this.#cache.delete(id);
      return { diagnostic: { ...result.diagnostic, file: path } };
    }
    this.#cache.set(id, { record: structuredClone(result.record), legacy: result.legacy, ...stamp(info) });
    return result;
  }

  update(id: string, change: SidecarChange): Promise<SidecarRecord> {
    return this.#mutate(id, (record) => applyChange(record, change, { now: this.#clock.now() }));
  }

  /** The group commit of SidecarStore.updateMany (group_commit.ts), GROUP_COMMIT_SIZE records at a time. */
  async updateMany(changes: readonly GroupChange[]): Promise<GroupOutcome[]> {
    checkGroupIds(changes);
    const outcomes = await commitInGroups(changes, {
      fs: this.#fs,
      dir: this.sessionsDir,
      // The sessions folder locked exclusively: no group commit or #mutate (it locks it shared) runs meanwhile.
      exclusive: async (fn) => {
        await this.#ensureParents();
        await this.#fs.ensureDir(this.sessionsDir, DIR_MODE);
        await this.#fs.withLockedDir(this.sessionsDir, fn);
      },
      hold: (id, fn) => this.#locks.run(id, fn),
      stage: (change) => this.#stage(change),
      forget: (id) => this.#cache.delete(id),
    });
    for (const o of outcomes) {
      if ("record" in o && o.written && o.record.status !== "running") {
        await this.#running.unmark(o.record.id);
      }
    }
    return outcomes;
  }

  /** Reads one record under its lock, applies its change and stages the result (temp file written, not fsynced). */
  async #stage({ id, change }: GroupChange): Promise<{ outcome: GroupOutcome } | StagedRecord> {
    this.#cache.delete(id);
    const current = await this.load(id);
    if (current === null) throw notFound(id);
    if ("diagnostic" in current) throw unusable(current.diagnostic);
    const changed = applyGroupChange(current.record, change, { now: this.#clock.now() });
    if (changed === null) return { outcome: { record: current.record, written: false } };
    const next = await this.#spill(changed);
    const { record, text } = this.#redacted(next, encodeSidecar(next));
    await this.#ensureParents();
    if (record.status === "running") await this.#running.mark(id, DIR_MODE);
    else await this.#runs.markChanged(id);
    const path = this.pathOf(id);
    // In `.~staging` (a file made in a folder of thousands costs several times more), not fsynced:
    // commitInGroups fsyncs the group's files together, then renames them here. `exclusive` made the folder.
    const temp = await this.#fs.stageAtomic(path, text, {
      ...STAGED,
      tempDir: stagingDir(this.sessionsDir),
    });
    return { record, temp, path };
  }

  markCompleted(id: string, completion: SidecarCompletion): Promise<SidecarRecord> {
    return this.#mutate(id, (record) => completeRecord(record, completion, { now: this.#clock.now() }));
  }

  async list(owner: SidecarOwner): Promise<SidecarRecord[]> {
    const { records } = await this.listAll();
    return records.filter((r) => isOwnedBy(r, owner));
  }

  async listAll(): Promise<SidecarListing> {
    const records: SidecarRecord[] = [];
    const diagnostics: SidecarDiagnostic[] = [];
    if (await this.#fs.stat(this.sessionsDir) === null) return { records, diagnostics };
    const { ids, badNames } = folderNames(
      this.sessionsDir,
      (await this.#fs.readDir(this.sessionsDir)).map((e) => e.name),
    );
    diagnostics.push(...badNames);
    await forEachBounded(ids.length, LIST_CONCURRENCY, async (k) => {
      const result = await this.load(ids[k]!);
      if (result === null) return;
      if ("record" in result) records.push(result.record);
      else diagnostics.push(result.diagnostic);
    });
    records.sort(byRecentActivity);
    diagnostics.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { records, diagnostics };
  }

  /**
   * The records that may be running (see SidecarStore.listRunning): the folder is listed once and
   * only the records with a running marker are read (running_index.ts); a marker whose record ended
   * is removed. A folder not indexed yet is listed whole, once, and indexed.
   */
  listRunning(): Promise<SidecarListing> {
    return this.#running.list({ load: (id) => this.load(id), listAll: () => this.listAll() });
  }

  async remove(id: string): Promise<boolean> {
    const path = this.pathOf(id);
    return await this.#locks.run(id, async () => {
      if (await this.#fs.lstat(path) === null) return false;
      this.#cache.delete(id);
      await this.#fs.remove(path);
      await this.#fs.remove(spillDir(this.sessionsDir, id), { recursive: true }).catch(() => {});
      await this.#running.unmark(id);
      await this.#runs.forget(id);
      return true;
    });
  }

  /** The run index's listing (run_index.ts): the index file, the folder's names and the records it cannot vouch for. */
  listSummaries(): Promise<RunListing> {
    return this.#runs.list();
  }

  async cleanExpired(
    select: (run: RunSummary) => boolean,
    olderThanMs: number,
    options: { now?: number } = {},
  ): Promise<RunSummary[]> {
    const now = options.now ?? this.#clock.now();
    if (await this.#fs.stat(this.sessionsDir) === null) return [];
    const removed = await this.#runs.removeWhere((run) =>
      select(run) && isExpired(run, olderThanMs, { now })
    );
    for (const run of removed) this.#cache.delete(run.id);
    return removed;
  }

  /** The record as it will be stored: its text redacted, and the record decoded back when that changed it. */
  #redacted(given: SidecarRecord, encoded: string): { record: SidecarRecord; text: string } {
    const text = this.#redact === undefined ? encoded : this.#redact(encoded);
    return { record: text === encoded ? given : JSON.parse(text) as SidecarRecord, text };
  }

  async #ensureParents(): Promise<void> {
    if (this.#parentsReady) return;
    await this.#fs.ensureDir(this.#storageRoot, DIR_MODE);
    await this.#fs.ensureDir(`${this.#storageRoot}/agents`, DIR_MODE);
    this.#parentsReady = true;
  }

  async #write(whole: SidecarRecord): Promise<SidecarRecord> {
    const spilled = await this.#spill(whole);
    const { record, text } = this.#redacted(spilled, encodeSidecar(spilled));
    const path = `${this.sessionsDir}/${record.id}.json`;
    await this.#ensureParents();
    this.#cache.delete(record.id);
    // Its marker before the record says running (running_index.ts); gone once it says it ended. A
    // finished record's index marker before its commit (run_index.ts; the folder is held shared).
    if (record.status === "running") await this.#running.mark(record.id, DIR_MODE);
    else await this.#runs.markChanged(record.id);
    // writeAtomic re-creates the folder when it was deleted and re-asserts its mode every time.
    await this.#fs.writeAtomic(path, text, { mode: FILE_MODE, dirMode: DIR_MODE });
    if (record.status !== "running") await this.#running.unmark(record.id);
    if (spillOf(record) !== undefined || spillOf(whole) !== undefined) await this.#pruneSpill(record);
    const info = await this.#fs.lstat(path);
    if (info !== null && info.isFile) {
      this.#cache.set(record.id, { record: structuredClone(record), legacy: false, ...stamp(info) });
    }
    return record;
  }

  /**
   * Read-modify-write of one record. Several processes change the same record (the run's owner bumps
   * its heartbeat while `blade tasks cancel` marks it cancelled), so the change runs under an
   * exclusive file lock and starts from the file as it is now, never from the cache.
   */
  async #mutate(id: string, next: (record: SidecarRecord) => SidecarRecord | null): Promise<SidecarRecord> {
    const path = this.pathOf(id);
    return await this.#locks.run(id, async () => {
      if (await this.#fs.lstat(path) === null) throw notFound(id);
      const change = async () => {
        this.#cache.delete(id);
        const current = await this.load(id);
        if (current === null) throw notFound(id);
        if ("diagnostic" in current) throw unusable(current.diagnostic);
        const record = next(current.record);
        if (record === null) return current.record;
        return structuredClone(await this.#write(record));
      };
      // The record's lock against other changes of it; the folder locked shared so that no group
      // commit (updateMany: the folder locked exclusively, no record lock) is under way meanwhile.
      return await this.#fs.withLockedFile(
        this.#lockPath(id),
        () => this.#fs.withLockedDir(this.sessionsDir, change, { shared: true }),
        { mode: FILE_MODE, transient: true },
      );
    });
  }

  /** The cross-process lock file of a record (a dot file: never listed as a record; removed when released). */
  #lockPath(id: string): string {
    return `${this.sessionsDir}/.${id}.lock`;
  }

  #diagnostic(id: string, code: SidecarDiagnostic["code"], why: string): LoadResult {
    return {
      diagnostic: { id, code, message: `Sidecar ${JSON.stringify(id)} ${why}`, file: this.pathOf(id) },
    };
  }
}

function stamp(info: FileInfo): { mtimeMs: number | null; size: number } {
  return { mtimeMs: info.mtimeMs, size: info.size };
}
