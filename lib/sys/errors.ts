// Owns recognising the runtime's error classes, so code outside lib/sys/ never names Deno.errors.*: an
// operation outside this thread's Deno permissions, a reader that closed its pipe. (A missing file is
// the Fs port's business: readTextIfExists, stat and lstat answer null.)

/** The operation is outside the Deno permissions this thread runs with (e.g. a child's Worker). */
export function isNotCapable(error: unknown): error is Error {
  return error instanceof Deno.errors.NotCapable;
}

/** The path does not exist (ENOENT). Only this means "absent"; EACCES, ELOOP, … are failures to report. */
export function isNotFound(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound;
}

/** The reader of a pipe went away (`blade … | head`). */
export function isBrokenPipe(error: unknown): boolean {
  return error instanceof Deno.errors.BrokenPipe;
}

/**
 * The OS code of a failed file operation (`ENOSPC`, `EROFS`, `EACCES`, `ENOTDIR`, `EEXIST`, …),
 * `NOT_CAPABLE` when the path is outside this process's Deno permissions, else undefined.
 */
export function fsErrorCode(error: unknown): string | undefined {
  if (error instanceof Deno.errors.NotCapable) return "NOT_CAPABLE";
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : undefined;
}

const failedPaths = new WeakMap<object, string>();

/**
 * Remembers which path a failed file operation was about (Deno's message names it for some calls and
 * not for others, e.g. a write to an open file). The first path noted wins. Returns `error`.
 */
export function notePath<E>(error: E, path: string): E {
  if (typeof error === "object" && error !== null && !failedPaths.has(error)) failedPaths.set(error, path);
  return error;
}

/** The path noted for a failed file operation (see notePath), if any. */
export function fsErrorPath(error: unknown): string | undefined {
  return typeof error === "object" && error !== null ? failedPaths.get(error) : undefined;
}
