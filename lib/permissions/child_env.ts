// Owns the environment of a read-only auditor's commands (docs/reference/verification.md): a minimal
// set built from Blade's own environment that lets compilers and test runners find themselves (PATH,
// HOME, locale, temp folder) and nothing else, so no API key, token or configured secret reaches a
// command the auditor runs. CI=true keeps runners non-interactive (no watch mode, no snapshot writes).
// Pure apart from reading the Env port it is given.

import type { Env } from "../sys/env.ts";

/** Variables copied from Blade's environment when set. */
export const MINIMAL_ENV_NAMES: readonly string[] = ["PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "TZ"];

/** Variables every auditor command gets. */
export const MINIMAL_ENV_FIXED: Readonly<Record<string, string>> = {
  CI: "true",
  NO_COLOR: "1",
  TERM: "dumb",
};

export function minimalCommandEnv(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of MINIMAL_ENV_NAMES) {
    const value = name === "HOME" ? env.home() : env.get(name);
    if (value !== undefined && value !== "") out[name] = value;
  }
  return { ...out, ...MINIMAL_ENV_FIXED };
}

/** Prefixes of variables no child command inherits: provider settings and Blade's own variables. */
export const WITHHELD_ENV_PREFIXES: readonly string[] = ["ANTHROPIC_", "OPENAI_", "BLADE_"];

/** Variables holding a provider's credentials or endpoint that Blade reads but no command gets. */
export const PROVIDER_ENV_NAMES: readonly string[] = [
  "BLADE_API_KEY",
  "CLAUDE_CODE_OAUTH_TOKEN",
  "AWS_BEARER_TOKEN_BEDROCK",
];

/**
 * The top-level session's command environment: Blade's own minus provider keys and URLs
 * (`ANTHROPIC_*`, `OPENAI_*` and the names above); the user's settings `env`, added afterwards, may
 * pass one back explicitly.
 */
export function withoutProviderKeys(all: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(all)) {
    if (name.startsWith("ANTHROPIC_") || name.startsWith("OPENAI_") || PROVIDER_ENV_NAMES.includes(name)) {
      continue;
    }
    out[name] = value;
  }
  return out;
}

/**
 * The environment of a child's commands: Blade's own minus provider keys and URLs, Blade's own
 * variables, and any variable whose value holds a configured secret (an MCP token, a key under
 * another name). Everything else (PATH, toolchain variables) is kept so builds and tests still work.
 */
export function childCommandEnv(
  all: Record<string, string>,
  secrets: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  const real = secrets.filter((s) => s.length >= 8);
  for (const [name, value] of Object.entries(all)) {
    if (WITHHELD_ENV_PREFIXES.some((p) => name.startsWith(p)) || PROVIDER_ENV_NAMES.includes(name)) continue;
    if (real.some((s) => value.includes(s))) continue;
    out[name] = value;
  }
  return out;
}
