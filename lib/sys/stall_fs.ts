// A test hook for the kill matrix (tests/e2e_crash_test.ts, kill case d): stops Blade in the middle
// of one chosen durable write so a test can SIGKILL it exactly there. Off unless
// BLADE_TEST_STALL_WRITE=<kind>:<path part>:<n> is set, where kind is
//   sidecar     the n-th writeAtomic of a path containing <path part>: half of the new bytes are in
//               the temp file (named as writeAtomic names it), the file itself is untouched;
//   transcript  the n-th locked append to a path containing <path part>: half of the batch's bytes
//               are appended (a torn line), under the file lock.
// Then BLADE_TEST_STALL_MARKER (a path) is created and the write never returns.

import type { Fs, LockedFile } from "./fs.ts";

export interface StallSpec {
  kind: "sidecar" | "transcript";
  pathPart: string;
  nth: number;
  marker: string;
}

/** The spec in the environment's text, or undefined when absent or malformed. */
export function parseStallSpec(text: string | undefined, marker: string | undefined): StallSpec | undefined {
  const m = text === undefined ? null : /^(sidecar|transcript):(.+):(\d+)$/.exec(text);
  if (m === null || marker === undefined || marker === "") return undefined;
  return { kind: m[1] as StallSpec["kind"], pathPart: m[2]!, nth: Number(m[3]), marker };
}

/** `fs` with the one stalled write of `spec`; every other call goes to `fs` unchanged. */
export function stallingFs(fs: Fs, spec: StallSpec): Fs {
  let seen = 0;
  const hit = (kind: StallSpec["kind"], path: string) =>
    spec.kind === kind && path.includes(spec.pathPart) && ++seen === spec.nth;
  const stall = async (): Promise<never> => {
    await fs.writeText(spec.marker, "stalled\n");
    return await new Promise<never>(() => {});
  };
  const half = (text: string) => {
    const bytes = new TextEncoder().encode(text);
    return new TextDecoder().decode(bytes.subarray(0, Math.max(1, Math.floor(bytes.length / 2))));
  };
  return {
    ...fs,
    async writeAtomic(path, text, options) {
      if (!hit("sidecar", path)) return await fs.writeAtomic(path, text, options);
      const slash = path.lastIndexOf("/");
      await fs.writeText(`${path.slice(0, slash)}/.${path.slice(slash + 1)}.stalled.tmp`, half(text), {
        mode: 0o600,
      });
      return await stall();
    },
    withLockedFile(path, fn, options) {
      return fs.withLockedFile(path, (file) => {
        const locked: LockedFile = {
          ...file,
          async append(text, o) {
            if (!hit("transcript", path)) return await file.append(text, o);
            await file.append(half(text));
            return await stall();
          },
        };
        return fn(locked);
      }, options);
    },
  };
}
