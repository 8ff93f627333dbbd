// main.ts with one difference: the Fs port is the real one wrapped by FaultFs (lib/testing/fault_fs.ts),
// armed from BLADE_FAULT (JSON: {op, path: a regular expression, code?, after?, tornBytes?}). Children
// must run in this thread (BLADE_CHILD_SANDBOX=none) for their writes to meet the fault. At the first
// injected failure the transcripts of BLADE_FAULT_WATCH are copied into BLADE_FAULT_SNAPSHOT (what was
// committed before the fault); at exit the failures are written to BLADE_FAULT_REPORT as JSON.
// Used by tests/faults/disk_full_test.ts; a real process, so its exit code, output and PID are real.

import { realPorts } from "../../lib/sys/mod.ts";
import { realIo } from "../../lib/cli/io.ts";
import { runCli } from "../../lib/cli/main.ts";
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

if (import.meta.main) {
  const ports = realPorts();
  const spec = JSON.parse(Deno.env.get("BLADE_FAULT") ?? "null") as FaultSpec | null;
  if (spec === null) throw new Error("BLADE_FAULT is not set");
  const pattern = new RegExp(spec.path);
  const faults = new FaultFs(ports.fs, [{
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
  const io = realIo({ tty: false, color: false });
  const code = await runCli(Deno.args, { ...ports, fs: faults.fs }, io);
  const report = Deno.env.get("BLADE_FAULT_REPORT");
  if (report !== undefined) Deno.writeTextFileSync(report, JSON.stringify(faults.hits));
  Deno.exit(code);
}
