// Owns the real Fs port's file and folder locks (flock): withLockedFile, with its transient lock
// files that never pile up, and withLockedDir, which locks a folder itself. Only the flock, which may
// wait, is an async op. The Fs port (lib/sys/fs.ts) exposes them.

import { notePath } from "./errors.ts";

const isWindows = Deno.build.os === "windows";

export interface LockOptions {
  mode?: number;
  transient?: boolean;
  /**
   * `false`: the file is known to exist and is opened without O_CREAT (which takes the folder's
   * lock in the kernel, behind any creation waiting on the journal); ENOENT when it does not.
   */
  create?: boolean;
}

/** A file held under an exclusive lock. */
export interface LockedFile {
  size(): Promise<number>;
  /** Bytes from `offset` to the end. */
  readFrom(offset: number): Promise<Uint8Array>;
  /**
   * Append all of `text` at the end and fsync before resolving (`sync: false`: no fsync). A failure
   * may leave part of it.
   */
  append(text: string, options?: { sync?: boolean }): Promise<void>;
  /** Cut the file back to `size` bytes and fsync (rolls back a failed append). */
  truncate(size: number): Promise<void>;
}

/** `op`, with the path noted on its error. */
async function at<T>(path: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (e) {
    throw notePath(e, path);
  }
}

export async function withLockedDir<T>(
  dir: string,
  fn: () => Promise<T>,
  options: { shared?: boolean } = {},
): Promise<T> {
  // Windows: a kept lock file stands in, always exclusive (correct for shared users too, only
  // less concurrent).
  if (isWindows) return await withLockedFile(`${dir}/.~folder.lock`, () => fn());
  const folder = await at(dir, async () => {
    const f = Deno.openSync(dir, { read: true });
    try {
      // Only the flock, which may wait, is an async op (see openLocked).
      await f.lock(options.shared !== true);
    } catch (e) {
      f.close();
      throw e;
    }
    return f;
  });
  try {
    return await fn();
  } finally {
    try {
      folder.unlockSync();
    } catch { /* closing releases the lock anyway */ }
    folder.close();
  }
}

function lstatOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch {
    return null;
  }
}

/** Opens and locks `path`; for a transient lock, retries until the locked file is still the one at `path`. */
async function openLocked(path: string, options: LockOptions): Promise<Deno.FsFile> {
  // Only the flock, which may wait, is an async op: open and stat return in microseconds (see
  // stageAtomic), and recovery takes hundreds of these locks at once.
  for (;;) {
    const file = Deno.openSync(path, {
      read: true,
      write: true,
      create: options.create !== false,
      mode: options.mode ?? 0o600,
    });
    try {
      await file.lock(true);
      if (options.transient !== true) return file;
      // The holder before us removed the file before unlocking: this inode is no longer the lock.
      const held = file.statSync();
      if (held.ino === null) return file; // no inode numbers (Windows): the file is kept, see below
      const current = lstatOrNull(path);
      if (current !== null && current.ino === held.ino) return file;
    } catch (e) {
      file.close();
      throw e;
    }
    file.close();
  }
}

export async function withLockedFile<T>(
  path: string,
  fn: (file: LockedFile) => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const file = await at(path, () => openLocked(path, options));
  try {
    // Under the lock only the fsync is an async op: fstat, seek, and reads and writes of the page
    // cache return in microseconds (see stageAtomic).
    const locked: LockedFile = {
      size: () => Promise.try(() => file.statSync().size),
      readFrom: (offset) =>
        Promise.try(() => {
          const end = file.statSync().size;
          const out = new Uint8Array(Math.max(0, end - offset));
          file.seekSync(offset, Deno.SeekMode.Start);
          let read = 0;
          while (read < out.length) {
            const n = file.readSync(out.subarray(read));
            if (n === null) break;
            read += n;
          }
          return out.subarray(0, read);
        }),
      append: (text, options) =>
        at(path, async () => {
          const data = new TextEncoder().encode(text);
          file.seekSync(0, Deno.SeekMode.End);
          let written = 0;
          while (written < data.length) written += file.writeSync(data.subarray(written));
          if (options?.sync !== false) await file.sync();
        }),
      truncate: (size) =>
        at(path, async () => {
          await file.truncate(size);
          await file.sync();
        }),
    };
    return await fn(locked);
  } finally {
    // Removed while still locked: whoever waits on this inode sees it is gone and locks a new file.
    if (options.transient === true) {
      let held: Deno.FileInfo | null = null;
      try {
        held = file.statSync();
      } catch { /* not known: then not removed */ }
      const current = lstatOrNull(path);
      // Only the holder of the inode at `path` unlinks it, so nobody can have replaced it meanwhile.
      if (held?.ino != null && current?.ino === held.ino) {
        try {
          Deno.removeSync(path);
        } catch { /* left for the next locker, which locks it again */ }
      }
    }
    try {
      file.unlockSync();
    } catch { /* closing releases the lock anyway */ }
    file.close();
  }
}
