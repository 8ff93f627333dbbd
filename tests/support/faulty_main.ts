// main.ts with one difference: the Fs port is the real one wrapped for the fault suite (tests/faults/).
// - BLADE_FAULT (JSON: {op, path: a regular expression, code?, after?, tornBytes?}) arms FaultFs
//   (lib/testing/fault_fs.ts): those writes fail as the OS fails them. At the first injected failure
//   the transcripts of BLADE_FAULT_WATCH are copied into BLADE_FAULT_SNAPSHOT (what was committed).
// - BLADE_KILL_AT_WRITE=<n> SIGKILLs this process group at its n-th write (atomic write, staged write
//   of a group commit, plain write or append), before the write — or, with BLADE_KILL_TORN_BYTES=<k>, after the first k bytes of an
//   append reached the file (a torn line) or of an atomic write reached its temp file (the record
//   itself untouched): a kill point chosen by number, so a seed reproduces it. BLADE_KILL_PATH (a
//   regular expression) counts only the writes of matching paths (one file's n-th write).
// - BLADE_KILL_AT_RENAME=<n> SIGKILLs it before its n-th rename onto a BLADE_KILL_PATH path: inside a
//   group commit (lib/store/group_commit.ts), between the renames of its staged records.
// At exit {hits, writes} goes to BLADE_FAULT_REPORT as JSON. Children must run in this thread
// (BLADE_CHILD_SANDBOX=none) for their writes to be counted and to meet the fault.
// A real process, so its exit code, output and PID are real.

import { realPorts } from "../../lib/sys/mod.ts";
import { realIo } from "../../lib/cli/io.ts";
import { runCli } from "../../lib/cli/main.ts";
import type { Fs, LockedFile } from "../../lib/sys/fs.ts";
import { type FaultCode, FaultFs, type FaultOp } from "../../lib/testing/fault_fs.ts";

interface FaultSpec {
  op: FaultOp;
  path: string;
  code?: FaultCode;
  after?: number;
  tornBytes?: number;
}

function snapshot(from: string, to: string): void {
  Deno.mkdirSync(to, { recursive: true });
  try {
    for (const e of Deno.readDirSync(from)) {
      if (e.isFile && e.name.endsWith(".jsonl")) Deno.copyFileSync(`${from}/${e.name}`, `${to}/${e.name}`);
    }
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
}

function faultFs(base: Fs): FaultFs {
  const spec = JSON.parse(Deno.env.get("BLADE_FAULT") ?? "null") as FaultSpec | null;
  if (spec === null) return new FaultFs(base);
  const pattern = new RegExp(spec.path);
  const faults = new FaultFs(base, [{
    op: spec.op,
    path: (p) => pattern.test(p),
    ...(spec.code === undefined ? {} : { code: spec.code }),
    ...(spec.after === undefined ? {} : { after: spec.after }),
    ...(spec.tornBytes === undefined ? {} : { tornBytes: spec.tornBytes }),
  }]);
  const watch = Deno.env.get("BLADE_FAULT_WATCH");
  const snapshotDir = Deno.env.get("BLADE_FAULT_SNAPSHOT");
  let copied = false;
  faults.onHit = () => {
    if (copied || watch === undefined || snapshotDir === undefined) return;
    copied = true;
    snapshot(watch, snapshotDir);
  };
  return faults;
}

/** Counts writes; at the chosen one, kills the whole process group (as a SIGKILL from outside would). */
function killingFs(base: Fs, counter: { writes: number }): Fs {
  const at = Number(Deno.env.get("BLADE_KILL_AT_WRITE") ?? "0");
  const tornBytes = Number(Deno.env.get("BLADE_KILL_TORN_BYTES") ?? "0");
  const only = Deno.env.get("BLADE_KILL_PATH");
  const counts = only === undefined ? () => true : (path: string) => new RegExp(only).test(path);
  const kill = (): never => {
    try {
      Deno.kill(-Deno.pid, "SIGKILL");
    } catch { /* not a group leader (run without setsid): this process alone, below */ }
    Deno.kill(Deno.pid, "SIGKILL");
    throw new Error("unreachable: SIGKILL sent to this process");
  };
  const torn = (text: string) => new TextEncoder().encode(text).subarray(0, tornBytes);
  let counted = 0;
  const due = (path: string) => {
    counter.writes++;
    return counts(path) && ++counted === at;
  };
  const renameAt = Number(Deno.env.get("BLADE_KILL_AT_RENAME") ?? "0");
  let renames = 0;
  /** The temp file as writeAtomic (lib/sys/fs.ts) names it, cut after `tornBytes`, never renamed. */
  const tornTemp = (path: string, text: string) => {
    const slash = path.lastIndexOf("/");
    if (tornBytes > 0) {
      Deno.writeFileSync(
        `${path.slice(0, slash)}/.${path.slice(slash + 1)}.${Deno.pid}.0.torn.tmp`,
        torn(text),
      );
    }
  };
  return {
    ...base,
    writeAtomic: (path, text, options) => {
      if (due(path)) {
        // The kill happens even when the torn file cannot be made (its folder not there yet): a write
        // that failed instead would let the run go on past its kill point.
        try {
          tornTemp(path, text);
        } finally {
          kill();
        }
      }
      return base.writeAtomic(path, text, options);
    },
    stageAtomic: (path, text, options) => {
      if (due(path)) {
        try {
          tornTemp(path, text);
        } finally {
          kill();
        }
      }
      return base.stageAtomic(path, text, options);
    },
    rename: (from, to) => {
      if (renameAt > 0 && counts(to) && ++renames === renameAt) kill();
      return base.rename(from, to);
    },
    writeText: (path, text, options) => {
      if (due(path)) kill();
      return base.writeText(path, text, options);
    },
    withLockedFile: (path, fn, options) =>
      base.withLockedFile(path, (file) => {
        const counted: LockedFile = {
          size: () => file.size(),
          readFrom: (offset) => file.readFrom(offset),
          truncate: (size) => file.truncate(size),
          async append(text, o) {
            if (!due(path)) return await file.append(text, o);
            try {
              if (tornBytes > 0) await file.append(new TextDecoder().decode(torn(text)));
            } finally {
              kill();
            }
          },
        };
        return fn(counted);
      }, options),
  };
}

if (import.meta.main) {
  const ports = realPorts();
  const faults = faultFs(ports.fs);
  const counter = { writes: 0 };
  const io = realIo({ tty: false, color: false });
  const code = await runCli(Deno.args, { ...ports, fs: killingFs(faults.fs, counter) }, io);
  const report = Deno.env.get("BLADE_FAULT_REPORT");
  if (report !== undefined) {
    Deno.writeTextFileSync(report, JSON.stringify({ hits: faults.hits, writes: counter.writes }));
  }
  Deno.exit(code);
}
