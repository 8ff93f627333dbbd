// Owns the fault-injecting Fs of the fault suite (tests/faults/): a real Fs wrapping the real one that
// fails chosen writes the way the OS does — a full disk (ENOSPC), a read-only file system (EROFS), a
// permission change (EACCES) — optionally after writing part of the bytes (a torn append). Everything
// else goes to the wrapped Fs, so what survives is real files on disk. Not a mock of Blade's modules:
// the code under test runs unchanged over it. Never imported by main.ts.

import type { Fs, LockedFile } from "../sys/fs.ts";
import { notePath } from "../sys/errors.ts";

/**
 * The kinds of write a fault can hit. `writeAtomic` also fails `stageAtomic` (the same write, staged
 * for a group commit); `syncFile` (a staged temp file's fsync; its path is the temp's), `rename` and
 * `syncDir` hit a group commit's later steps; `remove` an unlink (a read-only file system refuses it).
 */
export type FaultOp =
  | "writeAtomic"
  | "writeText"
  | "append"
  | "ensureDir"
  | "rename"
  | "syncDir"
  | "syncFile"
  | "remove";

export type FaultCode = "ENOSPC" | "EROFS" | "EACCES";

export interface Fault {
  op: FaultOp;
  /** Which paths fail (the transcript's path for `append`, the target's for `rename`). */
  path: (path: string) => boolean;
  /** Default ENOSPC. */
  code?: FaultCode;
  /** `append` and `writeText`: write this many bytes of the text first (the disk filled mid-write). */
  tornBytes?: number;
  /** Let this many matching calls through first (the disk fills later in the run); then every one fails. */
  after?: number;
}

export interface FaultHit {
  op: FaultOp;
  path: string;
  code: FaultCode;
}

const MESSAGES: Record<FaultCode, string> = {
  ENOSPC: "No space left on device (os error 28)",
  EROFS: "Read-only file system (os error 30)",
  EACCES: "Permission denied (os error 13)",
};

/** An error shaped like the real adapter's for that OS code (class, message, `code`, noted path). */
export function osError(code: FaultCode, path: string): Error {
  const message = `${MESSAGES[code]}: injected for ${path}`;
  const error = code === "EACCES" ? new Deno.errors.PermissionDenied(message) : new Error(message);
  Object.defineProperty(error, "code", { value: code, enumerable: true });
  return notePath(error, path);
}

/**
 * Wraps `base`; `arm` adds a fault, `disarm` removes them all (the disk was freed). Every injected
 * failure is recorded in `hits`, so a test can prove its fault was reached.
 */
export class FaultFs {
  readonly fs: Fs;
  readonly hits: FaultHit[] = [];
  /** Called at each injected failure, before it is thrown (e.g. to look at the files at that moment). */
  onHit: ((hit: FaultHit) => void) | undefined;
  #faults: { fault: Fault; passed: number }[] = [];

  constructor(base: Fs, faults: Fault[] = []) {
    for (const f of faults) this.arm(f);
    const fail = (op: FaultOp, path: string): Fault | undefined => {
      const armed = this.#faults.find((a) => a.fault.op === op && a.fault.path(path));
      if (armed === undefined) return undefined;
      if (armed.passed < (armed.fault.after ?? 0)) {
        armed.passed++;
        return undefined;
      }
      const hit = { op, path, code: armed.fault.code ?? "ENOSPC" };
      this.hits.push(hit);
      this.onHit?.(hit);
      return armed.fault;
    };
    const torn = (f: Fault, text: string) =>
      new TextDecoder().decode(new TextEncoder().encode(text).subarray(0, f.tornBytes ?? 0));
    this.fs = {
      ...base,
      async writeAtomic(path, text, options) {
        const f = fail("writeAtomic", path);
        if (f !== undefined) throw osError(f.code ?? "ENOSPC", path);
        return await base.writeAtomic(path, text, options);
      },
      async stageAtomic(path, text, options) {
        const f = fail("writeAtomic", path);
        if (f !== undefined) throw osError(f.code ?? "ENOSPC", path);
        return await base.stageAtomic(path, text, options);
      },
      async rename(from, to) {
        const f = fail("rename", to);
        if (f !== undefined) throw osError(f.code ?? "ENOSPC", to);
        return await base.rename(from, to);
      },
      async syncFile(path) {
        const f = fail("syncFile", path);
        if (f !== undefined) throw osError(f.code ?? "ENOSPC", path);
        return await base.syncFile(path);
      },
      async syncDir(path) {
        const f = fail("syncDir", path);
        if (f !== undefined) throw osError(f.code ?? "ENOSPC", path);
        return await base.syncDir(path);
      },
      async writeText(path, text, options) {
        const f = fail("writeText", path);
        if (f === undefined) return await base.writeText(path, text, options);
        if ((f.tornBytes ?? 0) > 0) await base.writeText(path, torn(f, text), options);
        throw osError(f.code ?? "ENOSPC", path);
      },
      async remove(path, options) {
        const f = fail("remove", path);
        if (f !== undefined) throw osError(f.code ?? "EROFS", path);
        return await base.remove(path, options);
      },
      async ensureDir(path, mode) {
        const f = fail("ensureDir", path);
        if (f !== undefined) throw osError(f.code ?? "ENOSPC", path);
        return await base.ensureDir(path, mode);
      },
      withLockedFile(path, fn, options) {
        return base.withLockedFile(path, (file) => {
          const wrapped: LockedFile = {
            size: () => file.size(),
            readFrom: (offset) => file.readFrom(offset),
            truncate: (size) => file.truncate(size),
            async append(text, o) {
              const f = fail("append", path);
              if (f === undefined) return await file.append(text, o);
              if ((f.tornBytes ?? 0) > 0) await file.append(torn(f, text));
              throw osError(f.code ?? "ENOSPC", path);
            },
          };
          return fn(wrapped);
        }, options);
      },
    };
  }

  arm(fault: Fault): void {
    this.#faults.push({ fault, passed: 0 });
  }

  disarm(): void {
    this.#faults = [];
  }
}
