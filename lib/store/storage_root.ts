// Owns opening the storage root (docs/reference/sessions.md): create it for commands that write, only
// look at it for commands that read (so a read-only root still lists tasks and agents), and turn any
// failure — a regular file, a path under /proc, a read-only or full disk — into one clear user error.
// Also what a write that fails later, mid-run, tells the user (storageWriteFailed).

import { BladeError } from "../errors.ts";
import type { Fs } from "../sys/fs.ts";
import { fsErrorCode, fsErrorPath } from "../sys/errors.ts";
import { type StorageLayout, storageLayout } from "../config/storage.ts";
import { migrateProjectFolders } from "./project_migration.ts";

export type StorageAccess = "write" | "read";

/**
 * The canonical path of the storage root. `write` creates it (mode 0700) when missing; `read` leaves
 * an existing folder exactly as it is (no chmod, no writes) and creates it only when it is missing.
 */
export async function openStorageRoot(fs: Fs, root: string, access: StorageAccess): Promise<string> {
  try {
    const info = await fs.stat(root);
    if (info !== null && !info.isDirectory) throw storageUnusable(root, "ENOTDIR_FILE");
    if (info === null || access === "write") await fs.ensureDir(root);
    return await fs.realPath(root);
  } catch (e) {
    if (e instanceof BladeError) throw e;
    throw storageUnusable(root, fsErrorCode(e), e);
  }
}

/**
 * The storage root opened for `access` (openStorageRoot) and its layout, once project folders of older
 * Blade were moved to their one-to-one names (project_migration.ts; a stat once done). `note` gets each
 * file moved or left (the --debug log).
 */
export async function openLayout(
  fs: Fs,
  root: string,
  o: { access: StorageAccess; note?: ((line: string) => void) | undefined },
): Promise<StorageLayout> {
  const layout = storageLayout(await openStorageRoot(fs, root, o.access));
  const report = await migrateProjectFolders(fs, layout).catch((e) => {
    if (o.access === "read") return undefined; // a root opened only to read (perhaps read-only) stays as it is
    throw e;
  });
  for (const line of [...report?.moved ?? [], ...report?.left ?? []]) o.note?.(`storage: ${line}`);
  return layout;
}

/** The user error for a storage root (or a write under it) that failed with OS code `code`. */
export function storageUnusable(root: string, code: string | undefined, cause?: unknown): BladeError {
  const why = REASONS[code ?? ""] ?? `it cannot be used${code === undefined ? "" : ` (${code})`}`;
  return new BladeError("storage_unusable", `The storage root ${root} is unusable: ${why}.`, {
    hint: "Set BLADE_STORAGE_ROOT to a writable folder (or unset it to use ~/.blade).",
    ...(cause === undefined ? {} : { cause }),
  });
}

const REASONS: Record<string, string> = {
  ENOTDIR_FILE: "it is a file, not a folder",
  ENOTDIR: "a part of its path is a file, not a folder",
  EEXIST: "it is a file, not a folder",
  EROFS: "it is on a read-only file system",
  EACCES: "permission denied",
  EPERM: "permission denied",
  ENOSPC: "the disk is full",
  NOT_CAPABLE: "it is outside the folders Blade may write (e.g. under /proc)",
  ENOENT: "it cannot be created",
  EDQUOT: "the disk quota is exhausted",
  EFBIG: "the file is too large for that file system",
  EIO: "the disk reported an I/O error",
};

/** OS codes that mean the machine refused a write: the user's environment, never a bug in Blade. */
const REFUSED_WRITE = new Set(["ENOSPC", "EDQUOT", "EFBIG", "EROFS", "EACCES", "EPERM", "ENOTDIR", "EIO"]);

const WRITE_HINTS: Record<string, string> = {
  ENOSPC: "Free space on that disk (or set BLADE_STORAGE_ROOT to a folder on another one) and run again.",
  EDQUOT: "Free space within your disk quota (or set BLADE_STORAGE_ROOT elsewhere) and run again.",
  EROFS:
    "Remount that file system read-write (or set BLADE_STORAGE_ROOT to a writable folder) and run again.",
};
const DEFAULT_WRITE_HINT =
  "Make that folder writable for this user (or set BLADE_STORAGE_ROOT to a writable folder) and run again.";

/**
 * The user error for a file operation that the machine refused mid-run (a full disk, a read-only
 * remount, a permission change): one line naming the path and why, a hint, exit 1. Undefined for any
 * other failure (that one is a bug and keeps its stack). Runs left marked running are repaired on
 * the next start (docs/reference/recovery.md).
 */
export function storageWriteFailed(error: unknown): BladeError | undefined {
  if (error instanceof BladeError) return undefined;
  const code = fsErrorCode(error);
  if (code === undefined || !REFUSED_WRITE.has(code)) return undefined;
  const path = fsErrorPath(error);
  const why = REASONS[code] ?? "the system refused it";
  return new BladeError(
    "storage_write_failed",
    `Could not write ${path ?? "a file of this run"}: ${why} (${code}).`,
    { hint: WRITE_HINTS[code] ?? DEFAULT_WRITE_HINT, cause: error },
  );
}
