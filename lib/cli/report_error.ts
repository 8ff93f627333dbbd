// Owns how failures reach a person or a script: a BladeError is one clear line plus a hint (no
// stack); anything else is a bug and shows its stack. Returns the exit code.

import { BladeError } from "../errors.ts";
import type { Io } from "./io.ts";

export function reportError(io: Io, error: unknown, options: { json?: boolean } = {}): number {
  if (error instanceof BladeError) {
    if (options.json === true) {
      io.out(JSON.stringify({ type: "error", is_error: true, error: error.toJSON() }) + "\n");
    } else {
      io.err(`blade: ${error.message}\n`);
      if (error.hint !== undefined) io.err(`  hint: ${error.hint}\n`);
    }
    return error.exitCode;
  }
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.err(`blade: internal error (this is a bug in Blade, please report it):\n${stack}\n`);
  return 1;
}
