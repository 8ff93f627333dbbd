// Owns every file-system call Blade makes (the Fs port) and its real Deno adapter.
// Does not know about sessions, sidecars or transcripts: callers build paths and formats. A failed
// operation's error keeps its class and OS code and has its path noted (fsErrorPath in errors.ts).

import { notePath } from "./errors.ts";
import { type LockedFile, type LockOptions, withLockedDir, withLockedFile } from "./fs_lock.ts";

export type { LockedFile, LockOptions };

export interface FileInfo {
  isFile: boolean;
  isDirectory: boolean;
  isSymlink: boolean;
  size: number;
  mtimeMs: number | null;
  mode: number | null;
}

export interface DirEntry {
  name: string;
  isFile: boolean;
  isDirectory: boolean;
  isSymlink: boolean;
}

export interface WriteAtomicOptions {
  /** File mode, default 0o600. */
  mode?: number;
  /** Directory mode re-asserted before the write, default 0o700. */
  dirMode?: number;
  /**
   * stageAtomic: the caller has just made the folder and asserted its mode (a group commit does so
   * once per group, not per record). Not asserted again; made again only if it is gone.
   */
  dirReady?: boolean;
  /**
   * stageAtomic: `false` leaves the temp file un-fsynced; the caller fsyncs it (`syncFile`) before
   * renaming it. A group commit writes all its temp files first and fsyncs them together after, so
   * the file creations do not wait on the journal commits the fsyncs force. writeAtomic: `false`
   * swaps the new version in whole (a reader sees the old or the new one) without fsyncing the file or
   * its folder: for a file that is not durable state (a session lease).
   */
  sync?: boolean;
  /**
   * stageAtomic: the folder the temp file is made in, on the same file system as `path` (default
   * `path`'s own); made with `dirMode` when missing. The caller's rename moves it beside `path`.
   */
  tempDir?: string;
}

/** What readRegularFile found: a regular file's first bytes, or what else the path is. */
export type RegularRead =
  | {
    kind: "file";
    /** At most `maxBytes` bytes from the start. */
    bytes: Uint8Array;
    /** The file holds more than `maxBytes` bytes. */
    truncated: boolean;
  }
  | {
    kind: "not_regular";
    /** What the path is, for messages: "a FIFO (named pipe)", "a character device", … */
    what: string;
  };

export interface Fs {
  readText(path: string): Promise<string>;
  /**
   * The first `maxBytes` bytes of a regular file (symlinks followed), never blocking on anything else:
   * a FIFO, a device, a socket or a folder is reported as such without being read, and an open that
   * does not return at once (the path became a FIFO after it was checked) gives up after 2 s.
   */
  readRegularFile(path: string, options: { maxBytes: number }): Promise<RegularRead>;
  /** The file's text, or null when it does not exist (any other failure is thrown). */
  readTextIfExists(path: string): Promise<string | null>;
  readBytes(path: string): Promise<Uint8Array>;
  /**
   * A whole file's bytes for a scan of many files, or null when it holds more than `maxBytes`: opened
   * without ever waiting (read_up_to.ts), read into `into` when it fits (the result is then a view of
   * it, valid until `into` is reused). A missing file throws (isNotFound).
   */
  readUpTo(path: string, options: { maxBytes: number; into?: Uint8Array }): Promise<Uint8Array | null>;
  /** Plain write (not atomic); creates the file with `mode` when given. */
  writeText(path: string, text: string, options?: { mode?: number }): Promise<void>;
  /** Writes bytes (a git bundle) whatever was there; not fsynced. */
  writeBytes(path: string, bytes: Uint8Array, options?: { mode?: number }): Promise<void>;
  /** temp file in the same folder → write all bytes → fsync → rename → fsync the folder. */
  writeAtomic(path: string, text: string, options?: WriteAtomicOptions): Promise<void>;
  /**
   * writeAtomic's first half, for a group commit: `text` in a new temp file beside `path` (the folder
   * re-created and its mode re-asserted as writeAtomic does), written whole, fsynced, its mode set.
   * `path` is untouched. Returns the temp file's path: the caller renames it onto `path` (`rename`)
   * and fsyncs the folder once for the whole group (`syncDir`), or removes it.
   */
  stageAtomic(path: string, text: string, options?: WriteAtomicOptions): Promise<string>;
  /** fsync a folder: the renames into it survive a power loss once this resolves. */
  syncDir(path: string): Promise<void>;
  /** fsync a file (opened for reading, never created): its bytes survive a power loss once this resolves. */
  syncFile(path: string): Promise<void>;
  /** mkdir -p, then chmod the leaf to `mode` (default 0o700). */
  ensureDir(path: string, mode?: number): Promise<void>;
  stat(path: string): Promise<FileInfo | null>;
  lstat(path: string): Promise<FileInfo | null>;
  realPath(path: string): Promise<string>;
  readDir(path: string): Promise<DirEntry[]>;
  remove(path: string, options?: { recursive?: boolean }): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  chmod(path: string, mode: number): Promise<void>;
  makeTempDir(prefix?: string): Promise<string>;
  /**
   * Open (creating with `mode`) and exclusively lock `path` across processes (flock), run `fn`,
   * then unlock and close. Used for append-only logs that several writers share. With `transient`
   * the file is only a lock (no data): it is removed before the lock is released, and a locker that
   * finds it was removed or replaced meanwhile locks the new one, so lock files never pile up. Every
   * user of one lock path must pass the same `transient`.
   */
  withLockedFile<T>(
    path: string,
    fn: (file: LockedFile) => Promise<T>,
    options?: LockOptions,
  ): Promise<T>;
  /**
   * Locks the folder `dir` itself across processes, exclusively or `shared` (flock on the folder:
   * no file is made or left behind), runs `fn`, then unlocks. Where a folder cannot be locked
   * (Windows) a kept lock file in it, `.~folder.lock`, locked exclusively, stands in.
   */
  withLockedDir<T>(dir: string, fn: () => Promise<T>, options?: { shared?: boolean }): Promise<T>;
}

function toInfo(i: Deno.FileInfo): FileInfo {
  return {
    isFile: i.isFile,
    isDirectory: i.isDirectory,
    isSymlink: i.isSymlink,
    size: i.size,
    mtimeMs: i.mtime?.getTime() ?? null,
    mode: i.mode,
  };
}

const isWindows = Deno.build.os === "windows";

async function fsyncFile(path: string): Promise<void> {
  const f = Deno.openSync(path, { read: true });
  try {
    await f.sync();
  } finally {
    f.close();
  }
}

async function fsyncDir(dir: string): Promise<void> {
  if (isWindows) return;
  // Only the fsync is an async op (the open returns in microseconds), as in fsyncFile.
  const f = Deno.openSync(dir, { read: true });
  try {
    await f.sync();
  } finally {
    f.close();
  }
}

function dirname(path: string): string {
  const i = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  return i <= 0 ? (i === 0 ? "/" : ".") : path.slice(0, i);
}

let tempCounter = 0;

/** Write `text` durably to `path`: never leaves a torn file, only the old or the new version. */
export async function writeAtomic(
  path: string,
  text: string,
  options: WriteAtomicOptions = {},
): Promise<void> {
  const tmp = await stageAtomic(path, text, options);
  try {
    await Deno.rename(tmp, path);
  } catch (e) {
    await Deno.remove(tmp).catch(() => {});
    throw e;
  }
  if (options.sync !== false) await fsyncDir(dirname(path));
}

/**
 * The temp file of a write to `path`, written whole, fsynced and given its mode; `path` untouched.
 * Only the fsync is an async op: the folder, open, write, close and chmod calls return in
 * microseconds, and a thread-pool round trip per call costs more than the call on a loaded machine
 * (a group commit stages a thousand of these; the fsyncs overlap).
 */
export async function stageAtomic(
  path: string,
  text: string,
  options: WriteAtomicOptions = {},
): Promise<string> {
  const dir = dirname(path);
  const mode = options.mode ?? 0o600;
  if (options.dirReady !== true) ensureDirSync(dir, options.dirMode ?? 0o700);
  const base = path.slice(dir.length + 1);
  const tdir = options.tempDir ?? dir;
  const tmp = `${tdir}/.${base}.${Deno.pid}.${++tempCounter}.${Date.now().toString(36)}.tmp`;
  const data = new TextEncoder().encode(text);
  const create = () => Deno.openSync(tmp, { write: true, createNew: true, mode });
  let file: Deno.FsFile;
  try {
    file = create();
  } catch (e) {
    if ((options.dirReady !== true && tdir === dir) || !(e instanceof Deno.errors.NotFound)) throw e;
    ensureDirSync(dir, options.dirMode ?? 0o700);
    if (tdir !== dir) ensureDirSync(tdir, options.dirMode ?? 0o700);
    file = create();
  }
  try {
    let written = 0;
    while (written < data.length) written += file.writeSync(data.subarray(written));
    // The umask may have taken bits off the mode asked for: set it then (not otherwise, see ensureDir).
    if (!isWindows && (file.statSync().mode! & 0o7777) !== mode) Deno.chmodSync(tmp, mode);
    if (options.sync !== false) await file.sync();
    file.close();
  } catch (e) {
    try {
      file.close();
    } catch { /* already closed */ }
    await Deno.remove(tmp).catch(() => {});
    throw e;
  }
  return tmp;
}

/**
 * mkdir -p; the leaf folder's mode is (re-)asserted every time. Synchronous calls, as in stageAtomic:
 * they return in microseconds, and a session's start makes two of these on the way to its first
 * model request (the storage root, the transcript's folder).
 */
export function ensureDir(path: string, mode = 0o700): Promise<void> {
  return Promise.try(() => {
    Deno.mkdirSync(path, { recursive: true, mode });
    // Always: opening the storage root for writing relies on it failing on a read-only file system.
    if (!isWindows) Deno.chmodSync(path, mode);
  });
}

/**
 * ensureDir before an atomic write: the mode is changed only when it differs (a chmod, even to the
 * same mode, is a journaled inode update; a group commit asserts its folder a thousand times), and a
 * read-only folder fails at the temp file's creation instead.
 */
function ensureDirSync(path: string, mode: number): void {
  Deno.mkdirSync(path, { recursive: true, mode });
  if (!isWindows && (Deno.statSync(path).mode! & 0o7777) !== mode) Deno.chmodSync(path, mode);
}

/** `op`, with the path noted on its error. */
async function at<T>(path: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (e) {
    throw notePath(e, path);
  }
}

let readUpToModule: Promise<typeof import("./read_up_to.ts")> | undefined;

export function realFs(): Fs {
  return {
    readText: (p) => at(p, () => Deno.readTextFile(p)),
    // Its callers read the small settings and trust files at start-up: synchronous (like stat below,
    // the thread-pool hand-off of an async op costs more than the read, and on a loaded machine each
    // one also waits for a pool thread to be scheduled, on the way to the first model request).
    readTextIfExists: (p) =>
      Promise.try(() => {
        try {
          return Deno.readTextFileSync(p);
        } catch (e) {
          if (e instanceof Deno.errors.NotFound) return null;
          throw notePath(e, p);
        }
      }),
    readBytes: (p) => at(p, () => Deno.readFile(p)),
    // read_up_to.ts loads node:fs (tens of ms in a fresh thread): only when a scan first reads.
    readUpTo: async (p, o) => (await (readUpToModule ??= import("./read_up_to.ts"))).readUpTo(p, o),
    readRegularFile: (p, o) => at(p, () => readRegularFile(p, o.maxBytes)),
    writeText: (p, t, o) =>
      at(p, () => Deno.writeTextFile(p, t, o?.mode === undefined ? {} : { mode: o.mode })),
    writeBytes: (p, b, o) => at(p, () => Deno.writeFile(p, b, o?.mode === undefined ? {} : { mode: o.mode })),
    writeAtomic: (p, t, o) => at(p, () => writeAtomic(p, t, o)),
    stageAtomic: (p, t, o) => at(p, () => stageAtomic(p, t, o)),
    syncDir: (p) => at(p, () => fsyncDir(p)),
    syncFile: (p) => at(p, () => fsyncFile(p)),
    ensureDir: (p, m) => at(p, () => ensureDir(p, m)),
    // stat, lstat and a plain remove return in microseconds: synchronous, like rename below (an
    // async op's thread-pool hand-off costs more than the call; recovery makes thousands of these).
    stat: (p) => Promise.try(() => statOrNull(p, Deno.statSync)),
    lstat: (p) => Promise.try(() => statOrNull(p, Deno.lstatSync)),
    // Returns in microseconds (a few readlinks): synchronous, for the same reason.
    realPath: (p) => at(p, () => Promise.try(() => Deno.realPathSync(p))),
    // Synchronous too: Deno's async listing does most of its work on this thread anyway, plus the
    // hand-off (Grep's walk of 1,200 folders: 25 ms of CPU listed synchronously, 45 ms async).
    readDir: (p) =>
      at(p, () =>
        Promise.try(() => {
          const out: DirEntry[] = [];
          for (const e of Deno.readDirSync(p)) {
            out.push({ name: e.name, isFile: e.isFile, isDirectory: e.isDirectory, isSymlink: e.isSymlink });
          }
          return out;
        })),
    remove: (p, o) =>
      at(
        p,
        () =>
          o?.recursive === true ? Deno.remove(p, { recursive: true }) : Promise.try(() => Deno.removeSync(p)),
      ),
    // A rename returns in microseconds: synchronous (1,000 renames: 30 ms, against 390 ms as async
    // ops on the loaded machine, where each op waits for the thread pool).
    rename: (a, b) => at(b, () => Promise.try(() => Deno.renameSync(a, b))),
    chmod: (p, m) => isWindows ? Promise.resolve() : at(p, () => Deno.chmod(p, m)),
    makeTempDir: (prefix) => Deno.makeTempDir(prefix === undefined ? {} : { prefix }),
    withLockedFile,
    withLockedDir,
  };
}

/** How long an open of a path that was a regular file may take before it counts as blocked. */
const OPEN_TIMEOUT_MS = 2000;

function kindOf(info: Deno.FileInfo): string {
  if (info.isDirectory) return "a directory";
  if (info.isFifo === true) return "a FIFO (named pipe)";
  if (info.isCharDevice === true) return "a character device";
  if (info.isBlockDevice === true) return "a block device";
  if (info.isSocket === true) return "a socket";
  return "not a regular file";
}

async function readRegularFile(path: string, maxBytes: number): Promise<RegularRead> {
  const before = Deno.statSync(path);
  if (!before.isFile) return { kind: "not_regular", what: kindOf(before) };
  // Deno cannot open with O_NONBLOCK: an open that blocks (a FIFO swapped in since the stat) is
  // abandoned; its file, if it ever opens, is closed then.
  const opening = Deno.open(path, { read: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const blocked = new Promise<"blocked">((
    resolve,
  ) => (timer = setTimeout(() => resolve("blocked"), OPEN_TIMEOUT_MS)));
  const opened = await Promise.race([opening, blocked]).finally(() => clearTimeout(timer));
  if (opened === "blocked") {
    opening.then((f) => f.close(), () => {});
    return { kind: "not_regular", what: "a file that cannot be opened without waiting (a FIFO?)" };
  }
  using file = opened;
  const info = await file.stat();
  if (!info.isFile) return { kind: "not_regular", what: kindOf(info) };
  // Read up to one byte past the cap: a size of 0 (files in /proc) or a file still growing is read to its end.
  const buffer = new Uint8Array(Math.min(maxBytes + 1, Math.max(info.size + 1, 64 * 1024)));
  const chunks: Uint8Array[] = [];
  let total = 0;
  while (total <= maxBytes) {
    const n = await file.read(buffer);
    if (n === null) break;
    chunks.push(buffer.slice(0, n));
    total += n;
  }
  const bytes = new Uint8Array(Math.min(total, maxBytes));
  let at = 0;
  for (const c of chunks) {
    const part = c.subarray(0, Math.min(c.length, bytes.length - at));
    bytes.set(part, at);
    at += part.length;
    if (at === bytes.length) break;
  }
  return { kind: "file", bytes, truncated: total > maxBytes };
}

function statOrNull(path: string, stat: (path: string) => Deno.FileInfo): FileInfo | null {
  try {
    return toInfo(stat(path));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw notePath(e, path);
  }
}
