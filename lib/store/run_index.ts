// Owns the file store's run index (docs/reference/sidecars.md, "The run index"): the summary of every
// finished record (run_summary.ts) in one file, `.~runs-index` (JSON) beside the records, so `blade tasks
// list` and `tasks clean` read one file and the folder's names instead of every record.
//
// It is never trusted past what the records' own commits say. Every commit that writes a record in a
// terminal state first makes an empty marker `.<id>.changed` in the records' folder (the running ones
// have theirs, running_index.ts), so the fsync of the folder that makes the record's rename durable makes
// the marker durable too. A listing trusts an entry only for a record with no marker; it reads in full
// the records with a marker, and those with no entry (written by an older version, or the index is
// missing or unreadable: then every record). Folding those into the file happens with the folder locked
// exclusively, so no record commit (each holds the folder shared) runs between reading a marked record
// and removing its marker; the file is written atomically before any marker goes. A crash at any point
// leaves markers that the next listing folds again. Does not decide which runs a caller sees or removes.

import type { Fs } from "../sys/fs.ts";
import { isNotFound } from "../sys/errors.ts";
import { isValidSessionId } from "../protocol/ids.ts";
import type { LoadResult, SidecarDiagnostic } from "./codec.ts";
import { byActivity, decodeRunIndex, encodeRunIndex, type RunSummary, summarize } from "./run_summary.ts";
import type { RunListing } from "./store.ts";

/** The index file (a name no record, marker, lock or temp file can have: `~` is never in an id). */
export const RUN_INDEX_FILE = ".~runs-index";
const CHANGED = ".changed";
const RUNNING = ".running";
/** Marked records read at once. */
const LOAD_CONCURRENCY = 16;

export interface RunIndexIo {
  fs: Fs;
  /** The records' folder. */
  dir: string;
  /** File mode of the index and the markers. */
  mode: number;
  /** Reads one record (the store's load: fails closed into a diagnostic). */
  load(id: string): Promise<LoadResult | null>;
  /** Runs `fn` with the folder locked exclusively: no record commit of any process meanwhile. */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
}

/** What the folder's names say: the record ids, the markers, and names that are not records. */
interface FolderNames {
  ids: string[];
  changed: Set<string>;
  running: Set<string>;
  badNames: SidecarDiagnostic[];
  /** Records with a folder of spilled values (`<id>.spill`, spill.ts). */
  spilled: Set<string>;
}

/** The folder's names sorted out (dot files other than markers, and other extensions, are never records). */
export function folderNames(dir: string, names: readonly string[]): FolderNames {
  const out: FolderNames = {
    ids: [],
    changed: new Set(),
    running: new Set(),
    badNames: [],
    spilled: new Set(),
  };
  for (const name of names) {
    if (name.endsWith(".spill")) {
      const id = name.slice(0, -".spill".length);
      if (isValidSessionId(id)) out.spilled.add(id);
      continue;
    }
    if (name.startsWith(".")) {
      const marker = name.endsWith(CHANGED) ? out.changed : name.endsWith(RUNNING) ? out.running : undefined;
      const id = name.slice(1, name.lastIndexOf("."));
      if (marker !== undefined && isValidSessionId(id)) marker.add(id);
      continue;
    }
    if (!name.endsWith(".json")) continue;
    const id = name.slice(0, -".json".length);
    if (isValidSessionId(id)) out.ids.push(id);
    else {
      out.badNames.push({
        id,
        code: "invalid_file_name",
        message: `Sidecar file ${JSON.stringify(name)} does not have a valid session id as its name`,
        file: `${dir}/${name}`,
      });
    }
  }
  out.ids.sort();
  return out;
}

/** A folded index: the summaries by id, and what the records read meanwhile said. */
interface Folded {
  index: Map<string, RunSummary>;
  /** Records read in full: running ones (never kept in the index) and any the fold read. */
  fresh: Map<string, RunSummary>;
  diagnostics: SidecarDiagnostic[];
}

export class RunIndex {
  #io: RunIndexIo;

  constructor(io: RunIndexIo) {
    this.#io = io;
  }

  #markerPath(id: string): string {
    return `${this.#io.dir}/.${id}${CHANGED}`;
  }

  /**
   * Before `id` is written in a terminal state (the caller holds the folder shared or exclusively, so
   * no fold is under way): its marker exists. The record's own commit makes it durable.
   */
  async markChanged(id: string): Promise<void> {
    await this.#io.fs.writeText(this.#markerPath(id), "", { mode: this.#io.mode });
  }

  /** After `id`'s record was removed: its marker goes too (a marker without a record is dropped anyway). */
  async forget(id: string): Promise<void> {
    await this.#io.fs.remove(this.#markerPath(id)).catch(() => {});
  }

  /** Every record's summary, from the index and the records it cannot vouch for (folded in when it may). */
  async list(): Promise<RunListing> {
    const names = await this.#names();
    if (names === null) return { runs: [], diagnostics: [] };
    const index = await this.#readIndex();
    let folded: Folded;
    if (index !== null && !needsFold(names, index)) folded = await this.#refresh(names, index, new Set());
    else {
      try {
        folded = await this.#io.exclusive(() => this.#fold());
      } catch {
        // A storage root this process may not write (read-only, another user's): read what the index
        // cannot vouch for, and leave the file as it is.
        folded = await this.#refresh(names, index ?? new Map(), unvouched(names, index));
      }
    }
    return listing(names, folded);
  }

  /**
   * With the folder locked exclusively and the index folded: removes the records `select` picks among
   * the finished ones (each decided on its exact summary: no record can change meanwhile), then
   * writes the index. Returns the summaries of the records removed.
   */
  async removeWhere(select: (run: RunSummary) => boolean): Promise<RunSummary[]> {
    return await this.#io.exclusive(async () => {
      const { index } = await this.#fold();
      const names = await this.#names();
      const removed: RunSummary[] = [];
      for (const run of [...index.values()]) {
        if (names?.running.has(run.id) === true || run.status === "running" || !select(run)) continue;
        await this.#io.fs.remove(`${this.#io.dir}/${run.id}.json`).catch((e) => {
          if (!isNotFound(e)) throw e;
        });
        // Its spilled values go with it (spill.ts); only a folder the listing found is removed.
        if (names?.spilled.has(run.id) === true) {
          await this.#io.fs.remove(`${this.#io.dir}/${run.id}.spill`, { recursive: true }).catch(() => {});
        }
        index.delete(run.id);
        removed.push(run);
      }
      // The fold removed every marker, and none can be made while the folder is held: none to remove.
      if (removed.length > 0) await this.#write(index);
      return removed;
    });
  }

  async #names(): Promise<FolderNames | null> {
    try {
      const entries = await this.#io.fs.readDir(this.#io.dir);
      return folderNames(this.#io.dir, entries.map((e) => e.name));
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e;
    }
  }

  async #readIndex(): Promise<Map<string, RunSummary> | null> {
    const text = await this.#io.fs.readTextIfExists(`${this.#io.dir}/${RUN_INDEX_FILE}`).catch(() => null);
    return text === null ? null : decodeRunIndex(text);
  }

  async #write(index: Map<string, RunSummary>): Promise<void> {
    await this.#io.fs.writeAtomic(`${this.#io.dir}/${RUN_INDEX_FILE}`, encodeRunIndex(index.values()), {
      mode: this.#io.mode,
    });
  }

  /**
   * Under the exclusive lock: the names and the index read again (another process may have folded),
   * the records the index cannot vouch for read, the index written when anything changed, then the
   * markers of the records read removed (the file that holds their state is durable by then).
   */
  async #fold(): Promise<Folded> {
    const names = await this.#names();
    if (names === null) return { index: new Map(), fresh: new Map(), diagnostics: [] };
    const before = await this.#readIndex();
    const folded = await this.#refresh(names, before ?? new Map(), unvouched(names, before));
    const index = folded.index;
    const present = new Set(names.ids);
    let changed = before === null;
    for (const id of [...index.keys()]) {
      if (!present.has(id)) changed = index.delete(id) || changed; // removed since
    }
    for (const [id, run] of folded.fresh) {
      if (run.status === "running" || names.running.has(id)) continue;
      if (JSON.stringify(index.get(id)) !== JSON.stringify(run)) changed = true;
      index.set(id, run);
    }
    for (const id of names.changed) {
      if (!folded.fresh.has(id)) changed = index.delete(id) || changed; // unusable or gone now
    }
    if (changed) await this.#write(index);
    for (const id of names.changed) await this.forget(id);
    return folded;
  }

  /** Reads the running records and `toRead` in full; the rest comes from `index`. */
  async #refresh(
    names: FolderNames,
    index: Map<string, RunSummary>,
    toRead: ReadonlySet<string>,
  ): Promise<Folded> {
    // A marker whose record is gone loads as null and is passed over.
    const ids = [...new Set([...names.running, ...toRead])];
    const fresh = new Map<string, RunSummary>();
    const diagnostics: SidecarDiagnostic[] = [];
    let next = 0;
    const worker = async () => {
      while (next < ids.length) {
        const id = ids[next++]!;
        const loaded = await this.#io.load(id);
        if (loaded === null) continue;
        if ("record" in loaded) fresh.set(id, summarize(loaded.record));
        else diagnostics.push(loaded.diagnostic);
      }
    };
    await Promise.all(Array.from({ length: Math.min(LOAD_CONCURRENCY, ids.length) }, worker));
    return { index: new Map(index), fresh, diagnostics };
  }
}

/** The records an index cannot vouch for: marked changed, or without an entry (all when there is no index). */
function unvouched(names: FolderNames, index: Map<string, RunSummary> | null): Set<string> {
  const out = new Set(names.changed);
  for (const id of names.ids) {
    if (index === null || (!index.has(id) && !names.running.has(id))) out.add(id);
  }
  return out;
}

/** Whether the index must be folded before it is read: a marker, a record it lacks, or an entry whose record is gone. */
function needsFold(names: FolderNames, index: Map<string, RunSummary>): boolean {
  if (names.changed.size > 0) return true;
  let known = 0;
  for (const id of names.ids) {
    if (index.has(id)) known++;
    else if (!names.running.has(id)) return true;
  }
  return known !== index.size;
}

/** The listing: a fresh read wins over the index; records neither has are left to their diagnostic. */
function listing(names: FolderNames, folded: Folded): RunListing {
  const runs: RunSummary[] = [];
  for (const id of names.ids) {
    const run = folded.fresh.get(id) ?? (names.running.has(id) ? undefined : folded.index.get(id));
    if (run !== undefined) runs.push(run);
  }
  runs.sort(byActivity);
  const diagnostics = [...names.badNames, ...folded.diagnostics];
  diagnostics.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { runs, diagnostics };
}
