// Owns the bundle of ports built once in main.ts and passed down. Nothing else touches Deno.*.
import { type Clock, realClock } from "./clock.ts";
import { type Env, realEnv } from "./env.ts";
import { type Fs, realFs } from "./fs.ts";
import { type Ids, realIds } from "./ids.ts";
import { type Process, realProcess } from "./process.ts";

export type { Clock, Env, Fs, Ids, Process };

export interface Ports {
  fs: Fs;
  clock: Clock;
  process: Process;
  ids: Ids;
  env: Env;
}

export function realPorts(): Ports {
  return { fs: realFs(), clock: realClock(), process: realProcess(), ids: realIds(), env: realEnv() };
}
