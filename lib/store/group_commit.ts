// Owns the group commit of several sidecar records (SidecarStore.updateMany in the file store): the
// atomic write of lib/sys/fs.ts split so that a thousand records cost a thousand temp-file fsyncs that
// overlap, one rename each, and one fsync of the folder — not a thousand serial folder fsyncs. Every
// record still ends either as it was or as changed, never torn. Does not know the record format: the
// store reads, changes and stages each record (`stage`) and owns its locks (`hold`, `exclusive`).

import type { Fs } from "../sys/fs.ts";
import { forEachBounded, whileAllHeld } from "../sys/concurrency.ts";
import type { SidecarRecord } from "./schema.ts";
import type { GroupChange, GroupOutcome } from "./store.ts";

/** Records committed together, under one hold of the store's gate. */
export const GROUP_COMMIT_SIZE = 128;
/** Records staged (and renamed) at once within a group. */
const STAGE_CONCURRENCY = 16;
/** Staged files fsynced at once: most of a group, so their fsyncs share a few journal commits. */
const SYNC_CONCURRENCY = 64;

/**
 * Where a group's temp files are made: a small folder beside the records (a file is made several
 * times faster there than in a folder of thousands), on the same file system, so a rename is atomic.
 */
export function stagingDir(dir: string): string {
  return `${dir}/.~staging`;
}

/**
 * Removes what a killed group commit left staged. Only a group commit stages there, and it runs under
 * `exclusive` (in every process), so there any file found is a leftover nothing will rename: never
 * read, only taking space. One that cannot be removed stays (harmless; the next group tries again).
 */
async function dropLeftovers(io: GroupCommitIo): Promise<void> {
  const dir = stagingDir(io.dir);
  if (await io.fs.stat(dir) === null) return;
  for (const entry of await io.fs.readDir(dir)) {
    if (entry.isFile) await io.fs.remove(`${dir}/${entry.name}`).catch(() => {});
  }
}

/** A record's next version, written whole in `temp` (not fsynced yet), waiting to be renamed onto `path`. */
export interface StagedRecord {
  record: SidecarRecord;
  temp: string;
  path: string;
}

export interface GroupCommitIo {
  fs: Fs;
  /** The folder every record's file is in (fsynced once per group). */
  dir: string;
  /**
   * Runs `fn` as the only group commit of this folder with no change of any of its records under
   * way in any process (the store's gate, held exclusively; every read-modify-write holds it shared).
   */
  exclusive(fn: () => Promise<void>): Promise<void>;
  /** Runs `fn` holding the record's lock in this process (taken before `exclusive`). */
  hold(id: string, fn: () => Promise<void>): Promise<void>;
  /**
   * Inside `exclusive`: reads the record, applies its change, writes the result to a temp file
   * without fsyncing it (or answers at once). commitGroup fsyncs every staged file before any rename.
   */
  stage(change: GroupChange): Promise<{ outcome: GroupOutcome } | StagedRecord>;
  /** Drops what the store remembers of a record about to be replaced. */
  forget(id: string): void;
}

/**
 * Commits `changes` GROUP_COMMIT_SIZE at a time. For each group every record's in-process lock is
 * taken (`hold`, all at once), then the gate (`exclusive`: no group commit and no read-modify-write
 * of a record runs meanwhile, in any process; no lock file per record). Every record is staged
 * (STAGE_CONCURRENCY at once), then every staged file is fsynced (all together, after the last is
 * written: the creations of temp files never queue behind a journal commit an fsync forced), then
 * each is renamed onto its record, the folder is fsynced once, and only then are the gate and the
 * holds released and the outcomes given. No file is renamed before it is fsynced. A SIGKILL at any
 * point leaves each record whole, old or new (an unrenamed temp file is a dot file, never listed as
 * a record). One record's failure is its own.
 */
export async function commitInGroups(
  changes: readonly GroupChange[],
  io: GroupCommitIo,
): Promise<GroupOutcome[]> {
  const outcomes: GroupOutcome[] = new Array(changes.length);
  for (let from = 0; from < changes.length; from += GROUP_COMMIT_SIZE) {
    const group = Array.from(
      { length: Math.min(GROUP_COMMIT_SIZE, changes.length - from) },
      (_, k) => from + k,
    );
    await commitGroup(changes, group, outcomes, io);
  }
  return outcomes;
}

async function commitGroup(
  changes: readonly GroupChange[],
  group: number[],
  outcomes: GroupOutcome[],
  io: GroupCommitIo,
): Promise<void> {
  // This process's holds first, then the gate: a change in this process takes them in that order too.
  const held = await whileAllHeld(
    group,
    (i, fn) => io.hold(changes[i]!.id, fn),
    (entered) =>
      io.exclusive(async () => {
        await dropLeftovers(io);
        const staged: (StagedRecord & { i: number })[] = [];
        await forEachBounded(entered.length, STAGE_CONCURRENCY, async (k) => {
          const i = entered[k]!;
          try {
            const got = await io.stage(changes[i]!);
            if ("outcome" in got) outcomes[i] = got.outcome;
            else staged.push({ i, ...got });
          } catch (error) {
            outcomes[i] = { error };
          }
        });
        await renameStaged(await syncStaged(staged, outcomes, io), outcomes, io);
      }),
  );
  // A lock that could not be taken is that record's failure (set only when nothing else was).
  held.forEach((h, k) => {
    const i = group[k]!;
    if (h.status === "rejected" && outcomes[i] === undefined) outcomes[i] = { error: h.reason };
  });
}

/** fsyncs every staged file; one that fails is removed and is its record's failure. The synced ones. */
async function syncStaged(
  staged: (StagedRecord & { i: number })[],
  outcomes: GroupOutcome[],
  io: GroupCommitIo,
): Promise<(StagedRecord & { i: number })[]> {
  const synced: boolean[] = new Array(staged.length).fill(false);
  await forEachBounded(staged.length, SYNC_CONCURRENCY, async (k) => {
    const s = staged[k]!;
    try {
      await io.fs.syncFile(s.temp);
      synced[k] = true;
    } catch (error) {
      outcomes[s.i] = { error };
      await io.fs.remove(s.temp).catch(() => {});
    }
  });
  return staged.filter((_, k) => synced[k]);
}

/** Renames every staged (and fsynced) file onto its record, then fsyncs the folder once for all of them. */
async function renameStaged(
  staged: (StagedRecord & { i: number })[],
  outcomes: GroupOutcome[],
  io: GroupCommitIo,
): Promise<void> {
  const renamed: (StagedRecord & { i: number })[] = [];
  await forEachBounded(staged.length, STAGE_CONCURRENCY, async (k) => {
    const s = staged[k]!;
    io.forget(s.record.id);
    try {
      await io.fs.rename(s.temp, s.path);
      renamed.push(s);
    } catch (error) {
      outcomes[s.i] = { error };
      await io.fs.remove(s.temp).catch(() => {});
    }
  });
  if (renamed.length === 0) return;
  try {
    await io.fs.syncDir(io.dir);
    for (const s of renamed) outcomes[s.i] = { record: structuredClone(s.record), written: true };
  } catch (error) {
    // Renamed but not known to be durable: reported as failed, as writeAtomic's own folder fsync is.
    for (const s of renamed) outcomes[s.i] = { error };
  }
}
