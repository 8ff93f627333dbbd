// Owns the one error type users and `--json` consumers see. Does not print: only cli/ renders errors.

/**
 * Every code a BladeError may carry: the closed set `--json` consumers match on. What each means and
 * what to do about it: docs/reference/errors.md (a test keeps the two in step).
 */
export const BLADE_ERROR_CODES = [
  "agent_exists",
  "agent_not_found",
  "agent_reserved",
  "background_start_failed",
  "bad_tool_rule",
  "command_refused",
  "config_invalid",
  "file_not_found",
  "inbox_invalid",
  "transcript_invalid",
  "invalid_agents",
  "invalid_inbox_entry",
  "invalid_session_id",
  "invalid_sidecar",
  "api_key_helper_failed",
  "missing_api_key",
  "no_home",
  "no_session",
  "not_a_folder",
  "path_not_found",
  "permission_flag_value",
  "sandbox_cancelled",
  "sandbox_crashed",
  "sandbox_exited",
  "sandbox_not_ready",
  "sandbox_permissions",
  "sandbox_request_failed",
  "sandbox_start_failed",
  "script_invalid",
  "script_missing",
  "sdk_option_unsupported",
  "session_exists",
  "session_in_use",
  "session_not_found",
  "storage_unusable",
  "storage_write_failed",
  "store_conflict",
  "transcript_too_large",
  "record_too_large",
  "store_unavailable",
  "store_url_invalid",
  "task_not_found",
  "trust_file_invalid",
  "usage",
  "workspace_missing",
  "workspace_untrusted",
  "worktree_bare_repository",
  "worktree_exists",
  "worktree_git_failed",
  "worktree_lease_mismatch",
  "worktree_no_commit",
  "worktree_not_git",
  "worktree_workspace_outside",
  // Building a release (scripts/release.ts, scripts/bundle.ts, scripts/compile_payload.ts).
  "bundle_failed",
  "compile_failed",
  "compile_payload_invalid",
  "compile_payload_missing",
  "denort_unavailable",
  "release_base_mismatch",
  "release_base_missing",
  "release_input_missing",
  // A lazily imported npm package that is missing from a build or lacks an export (lib/npm_module.ts).
  "npm_module_unusable",
] as const;

export type BladeErrorCode = (typeof BLADE_ERROR_CODES)[number];

const KNOWN_CODES: ReadonlySet<string> = new Set(BLADE_ERROR_CODES);

/** Whether `code` is one of Blade's error codes (for codes read from outside, e.g. a Worker's message). */
export function isBladeErrorCode(code: unknown): code is BladeErrorCode {
  return typeof code === "string" && KNOWN_CODES.has(code);
}

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
  readonly code: BladeErrorCode;
  readonly hint: string | undefined;
  readonly exitCode: number;

  constructor(code: BladeErrorCode, message: string, options: BladeErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "BladeError";
    this.code = code;
    this.hint = options.hint;
    this.exitCode = options.exitCode ?? 1;
  }

  toJSON(): { code: BladeErrorCode; message: string; hint?: string } {
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
