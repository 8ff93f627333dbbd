// Owns the Bash tool's limits and Claude Code's variables for them (BASH_DEFAULT_TIMEOUT_MS,
// BASH_MAX_TIMEOUT_MS, BASH_MAX_OUTPUT_LENGTH): defaults, reading them from an environment, and the
// values a Worker child is handed (it has no environment grant to read them itself). Pure; no I/O.

export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
export const BASH_MAX_TIMEOUT_MS = 600_000;
export const BASH_MAX_OUTPUT_CHARS = 30_000;
/** Claude Code's variables for the defaults above. */
export const BASH_LIMIT_ENV = [
  "BASH_DEFAULT_TIMEOUT_MS",
  "BASH_MAX_TIMEOUT_MS",
  "BASH_MAX_OUTPUT_LENGTH",
] as const;

export interface BashLimits {
  defaultTimeoutMs: number;
  maxTimeoutMs: number;
  maxOutputChars: number;
}

type EnvReader = { get(name: string): string | undefined };

/** The limits an environment sets: BASH_DEFAULT_TIMEOUT_MS, BASH_MAX_TIMEOUT_MS, BASH_MAX_OUTPUT_LENGTH. */
export function bashLimits(env: EnvReader): BashLimits {
  const num = (name: string, fallback: number) => {
    const n = Number(env.get(name) ?? "");
    return Number.isInteger(n) && n > 0 ? n : fallback;
  };
  const maxTimeoutMs = num("BASH_MAX_TIMEOUT_MS", BASH_MAX_TIMEOUT_MS);
  return {
    maxTimeoutMs,
    defaultTimeoutMs: Math.min(num("BASH_DEFAULT_TIMEOUT_MS", BASH_DEFAULT_TIMEOUT_MS), maxTimeoutMs),
    maxOutputChars: num("BASH_MAX_OUTPUT_LENGTH", BASH_MAX_OUTPUT_CHARS),
  };
}

/** Whether BLADE_REQUIRE_SANDBOX's value (set by --require-sandbox or `sandbox.required`) asks for a refusal. */
export function sandboxRequired(value: string | undefined): boolean {
  return value !== undefined && value !== "" && value !== "0" && value !== "false";
}

/** Blade's variables for the commands' OS sandbox (docs/reference/permissions.md "The OS sandbox"). */
export const SANDBOX_ENV = ["BLADE_SANDBOX", "BLADE_REQUIRE_SANDBOX"] as const;

/** The Bash limit and sandbox variables set in `env`, as given: what a Worker child's tools read instead of its own. */
export function bashLimitEnv(env: EnvReader): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...BASH_LIMIT_ENV, ...SANDBOX_ENV]) {
    const value = env.get(name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}
