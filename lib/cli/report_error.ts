// Owns how failures reach a person or a script: a BladeError is one clear line plus a hint (no
// stack); anything else is a bug and shows its stack. With `--output-format json|stream-json` a
// failure before the run is still Claude Code's result object (`type:"result"`, `is_error:true`);
// with `--json` (management commands) it is `{"type":"error",…}`. In text mode the message also goes
// to stdout (print mode, `echoToStdout`) when stdout is not a terminal, as `claude -p` does. Returns the exit code.

import { BladeError } from "../errors.ts";
import type { Io } from "./io.ts";
import { claudeFailureResult } from "./claude_result.ts";

export type ErrorFormat = "text" | "json" | "result";

export function reportError(
  io: Io,
  error: unknown,
  options: { format?: ErrorFormat; echoToStdout?: boolean } = {},
): number {
  if (error instanceof BladeError) {
    if (options.format === "result") {
      io.out(JSON.stringify(claudeFailureResult(error, crypto.randomUUID())) + "\n");
    } else if (options.format === "json") {
      io.out(JSON.stringify({ type: "error", is_error: true, error: error.toJSON() }) + "\n");
    } else {
      io.err(`blade: ${error.message}\n`);
      if (error.hint !== undefined) io.err(`  hint: ${error.hint}\n`);
      // Usage errors (exit 2) stay on stderr only, as Claude Code's own option errors do.
      if (options.echoToStdout === true && !io.tty && error.exitCode !== 2) {
        io.out(`Error: ${error.message}\n`);
      }
    }
    return error.exitCode;
  }
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.err(`blade: internal error (this is a bug in Blade, please report it):\n${stack}\n`);
  return 1;
}
