// Owns the bundle of ports built once in main.ts and passed down. Nothing else touches Deno.*.
import { type Clock, realClock } from "./clock.ts";
import { type Env, realEnv } from "./env.ts";
import { type Fs, realFs } from "./fs.ts";
import { type Ids, realIds } from "./ids.ts";
import { type Process, realProcess } from "./process.ts";
import { parseStallSpec, stallingFs } from "./stall_fs.ts";

export type { Clock, Env, Fs, Ids, Process };

export interface Ports {
  fs: Fs;
  clock: Clock;
  process: Process;
  ids: Ids;
  env: Env;
}

export function realPorts(): Ports {
  return {
    fs: testHooks(realFs()),
    clock: realClock(),
    process: realProcess(),
    ids: realIds(),
    env: realEnv(),
  };
}

/** The kill matrix's stalled-write hook (stall_fs.ts) when its variables are set; else `fs` itself. */
function testHooks(fs: Fs): Fs {
  let spec;
  try {
    spec = parseStallSpec(Deno.env.get("BLADE_TEST_STALL_WRITE"), Deno.env.get("BLADE_TEST_STALL_MARKER"));
  } catch {
    return fs; // no environment access (a Worker): no hook
  }
  return spec === undefined ? fs : stallingFs(fs, spec);
}
