// Owns how the release scripts end and speak: a BladeError becomes `error: …` and `hint: …` on stderr with its
// exit code, a bad command-line option a usage error (exit 2); anything else is a bug and keeps its
// stack. Does not parse options itself (each script uses node:util parseArgs).

import { BladeError, usageError } from "../lib/errors.ts";

/** Runs a script's main function and exits with its code. */
export async function runScript(main: (args: string[]) => Promise<number>, help: string): Promise<never> {
  try {
    Deno.exit(await main(Deno.args));
  } catch (error) {
    const failure = error instanceof BladeError ? error : asUsageError(error, help);
    if (failure === undefined) throw error;
    // deno-lint-ignore no-console
    console.error(`error: ${failure.message}${failure.hint === undefined ? "" : `\nhint: ${failure.hint}`}`);
    Deno.exit(failure.exitCode);
  }
}

/** node:util parseArgs throws TypeErrors with an ERR_PARSE_ARGS_* code for bad options. */
function asUsageError(error: unknown, help: string): BladeError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (!(error instanceof TypeError) || typeof code !== "string" || !code.startsWith("ERR_PARSE_ARGS")) {
    return undefined;
  }
  return usageError(error.message, help);
}

/** Deno's coloured output without its colour codes, for error messages. */
export function stripAnsi(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, "");
}
