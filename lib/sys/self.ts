// Owns how Blade starts another copy of itself (e.g. `blade run --background`): the compiled binary
// re-runs itself (its permission flags are baked in); under `deno run` the same entry module is run
// with the given scoped flags and Blade's V8 flags (v8_flags.ts), with the checkout's deno.json for a
// source entry, none for the bundle.

import { v8FlagsArg } from "./v8_flags.ts";

export function selfCommand(runFlags: readonly string[]): string[] {
  const exec = Deno.execPath();
  const name = exec.split(/[\\/]/).pop() ?? "";
  if (!/^deno(\.exe)?$/.test(name)) return [exec];
  const main = new URL(Deno.mainModule);
  const path = decodeURIComponent(main.pathname);
  const config = path.endsWith(".ts") ? ["--config", path.replace(/[^/]*$/, "deno.json")] : ["--no-config"];
  return [exec, "run", v8FlagsArg(), ...runFlags, ...config, path];
}
