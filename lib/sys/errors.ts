// Owns recognising the runtime's error classes, so code outside lib/sys/ never names Deno.errors.*: an
// operation outside this thread's Deno permissions, a reader that closed its pipe. (A missing file is
// the Fs port's business: readTextIfExists, stat and lstat answer null.)

/** The operation is outside the Deno permissions this thread runs with (e.g. a child's Worker). */
export function isNotCapable(error: unknown): error is Error {
  return error instanceof Deno.errors.NotCapable;
}

/** The reader of a pipe went away (`blade … | head`). */
export function isBrokenPipe(error: unknown): boolean {
  return error instanceof Deno.errors.BrokenPipe;
}
