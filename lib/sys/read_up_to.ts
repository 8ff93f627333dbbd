// Owns reading a whole small file without ever waiting on it, for scans of many files (Grep's built-in
// search, lib/tools/search/builtin_engine.ts): the file is opened non-blocking (a FIFO or a device
// swapped in after the folder was listed gives at once what it has, or fails, and never hangs the
// thread), read into the caller's buffer when it fits, and never past `maxBytes + 1` bytes. Synchronous
// on purpose: one file costs an open, a read or two and a close, with no async op's thread-pool
// hand-off and no separate stat (profiled on a 15,000-file tree, those two were most of the search).

import * as nodeFs from "node:fs";
import { notePath } from "./errors.ts";

const FLAGS = nodeFs.constants.O_RDONLY | (nodeFs.constants.O_NONBLOCK ?? 0);
/** The first buffer made when the caller gives none (or one too small to start with). */
const FIRST_BUFFER_BYTES = 64 * 1024;

/** A node:fs failure as the Deno error the rest of Blade knows (class, OS code, message shape). */
function denoError(error: unknown, path: string): unknown {
  const e = error as { code?: unknown; errno?: unknown; message?: unknown; syscall?: unknown };
  if (typeof e?.code !== "string") return notePath(error, path);
  const said = /^[A-Z0-9]+: ([^,]+)/.exec(String(e.message))?.[1] ?? e.code;
  const message = `${said[0]!.toUpperCase()}${said.slice(1)} (os error ${Math.abs(Number(e.errno))}): ${
    String(e.syscall ?? "read")
  } '${path}'`;
  const out = e.code === "ENOENT" ? new Deno.errors.NotFound(message) : new Error(message);
  return notePath(Object.assign(out, { code: e.code }), path);
}

/**
 * The bytes of the file at `path`, or null when it holds more than `maxBytes`. They are read into
 * `into` when they fit (the result is then a view of it, valid until `into` is reused), else into a
 * new array. A missing file throws Deno.errors.NotFound; any other failure keeps its OS code.
 */
export function readUpTo(path: string, options: { maxBytes: number; into?: Uint8Array }): Uint8Array | null {
  const { maxBytes } = options;
  let fd: number;
  try {
    fd = nodeFs.openSync(path, FLAGS);
  } catch (e) {
    throw denoError(e, path);
  }
  try {
    let buffer = options.into ?? new Uint8Array(FIRST_BUFFER_BYTES);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > maxBytes) return null;
        const bigger = new Uint8Array(
          Math.min(maxBytes + 1, Math.max(FIRST_BUFFER_BYTES, buffer.length * 2)),
        );
        bigger.set(buffer);
        buffer = bigger;
      }
      const n = nodeFs.readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    return length > maxBytes ? null : buffer.subarray(0, length);
  } catch (e) {
    throw denoError(e, path);
  } finally {
    nodeFs.closeSync(fd);
  }
}
