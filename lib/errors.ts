// Owns the one error type users and `--json` consumers see. Does not print: only cli/ renders errors.

export interface BladeErrorOptions {
  hint?: string;
  exitCode?: number;
  cause?: unknown;
}

/**
 * A failure Blade understands: a stable `code` for machines, a message saying what failed and why,
 * a hint saying what to do, and the process exit code (1 failure, 2 usage). Anything thrown that is
 * not a BladeError is a bug and is shown with its stack.
 */
export class BladeError extends Error {
  readonly code: string;
  readonly hint: string | undefined;
  readonly exitCode: number;

  constructor(code: string, message: string, options: BladeErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "BladeError";
    this.code = code;
    this.hint = options.hint;
    this.exitCode = options.exitCode ?? 1;
  }

  toJSON(): { code: string; message: string; hint?: string } {
    return this.hint === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, hint: this.hint };
  }
}

/** A usage mistake on the command line: exit code 2. */
export function usageError(message: string, hint?: string): BladeError {
  return new BladeError("usage", message, hint === undefined ? { exitCode: 2 } : { exitCode: 2, hint });
}

/** A short one-line description of any thrown value, for tool results and diagnostics. */
export function describeError(value: unknown): string {
  if (value instanceof Error) return value.message;
  return String(value);
}
