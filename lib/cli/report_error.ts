// Owns how failures reach a person or a script: a BladeError is one clear line plus a hint (no
// stack); a write the machine refused (full disk, read-only, permission) is one too (storageWriteFailed),
// also when it surfaces while a disposal failed as well (SuppressedError); anything else is a bug and
// shows its stack. With `--output-format json|stream-json` a
// failure is still Claude Code's result object (naming the session when one was opened,
// FailedDuringSession) (`type:"result"`, `is_error:true`);
// with `--json` (management commands) it is `{"type":"error",…}`. In text mode the message also goes
// to stdout (print mode, `echoToStdout`) when stdout is not a terminal, as `claude -p` does. Returns the exit code.

import { type Ids, realIds } from "../sys/ids.ts";
import { BladeError } from "../errors.ts";
import type { Io } from "./io.ts";
import { claudeFailureResult } from "./claude_result.ts";
import { storageWriteFailed } from "../store/storage_root.ts";
import { jsonTerminalSafe, terminalSafe } from "./sanitize.ts";

/**
 * A failure after the session was opened: carries the session id so the result object names it and a
 * script can `--resume` it (the failure itself is `cause`).
 */
export class FailedDuringSession extends Error {
  constructor(readonly sessionId: string, cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = "FailedDuringSession";
  }
}

/** The user error `error` stands for, if it is one; undefined for a bug. */
export function userError(error: unknown): BladeError | undefined {
  if (error instanceof BladeError) return error;
  if (error instanceof FailedDuringSession) return userError(error.cause);
  // `await using` disposal that failed while an error was already on its way: the first one is the cause.
  if (error instanceof SuppressedError) return userError(error.suppressed) ?? userError(error.error);
  return storageWriteFailed(error);
}

export type ErrorFormat = "text" | "json" | "result";

export function reportError(
  io: Io,
  thrown: unknown,
  options: { format?: ErrorFormat; echoToStdout?: boolean; ids?: Pick<Ids, "uuid"> } = {},
): number {
  const known = userError(thrown);
  if (known !== undefined) {
    const error = known;
    if (options.format === "result") {
      const sessionId = thrown instanceof FailedDuringSession ? thrown.sessionId : null;
      io.out(
        jsonTerminalSafe(
          JSON.stringify(claudeFailureResult(error, (options.ids ?? realIds()).uuid(), sessionId)),
        ) + "\n",
      );
    } else if (options.format === "json") {
      io.out(
        jsonTerminalSafe(JSON.stringify({ type: "error", is_error: true, error: error.toJSON() })) + "\n",
      );
    } else {
      // A message may quote a file or a model's output: never raw escape sequences on the terminal.
      const message = terminalSafe(error.message);
      io.err(`blade: ${message}\n`);
      if (error.hint !== undefined) io.err(`  hint: ${terminalSafe(error.hint)}\n`);
      // Usage errors (exit 2) stay on stderr only, as Claude Code's own option errors do.
      if (options.echoToStdout === true && !io.tty && error.exitCode !== 2) {
        io.out(`Error: ${message}\n`);
      }
    }
    return error.exitCode;
  }
  const bug = thrown instanceof FailedDuringSession ? thrown.cause : thrown;
  const stack = bug instanceof Error ? (bug.stack ?? bug.message) : String(bug);
  io.err(`blade: internal error (this is a bug in Blade, please report it):\n${terminalSafe(stack)}\n`);
  return 1;
}
