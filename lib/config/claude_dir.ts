// Owns where Claude Code's user-level files are (docs/guides/memory.md): `~/.claude` (settings, agents,
// commands, skills, output styles, CLAUDE.md) and `~/.claude.json` (MCP servers), both moved into
// CLAUDE_CONFIG_DIR when it is set, as Claude Code does; and the managed policy folder of the platform.

import type { Env } from "../sys/env.ts";
import { join, resolve } from "../path.ts";

/** `$CLAUDE_CONFIG_DIR`, else `~/.claude`; undefined without a home folder. */
export function claudeUserDir(env: Env): string | undefined {
  const home = env.home();
  return configuredClaudeDir(env) ?? (home === undefined ? undefined : join(home, ".claude"));
}

/** `$CLAUDE_CONFIG_DIR` (resolved), or undefined when it is not set. */
export function configuredClaudeDir(env: Env): string | undefined {
  const configured = env.get("CLAUDE_CONFIG_DIR");
  return configured === undefined || configured === "" ? undefined : resolve(env.cwd(), configured);
}

/** `$CLAUDE_CONFIG_DIR/.claude.json`, else `~/.claude.json`. */
export function claudeJsonPath(env: Env): string | undefined {
  const configured = env.get("CLAUDE_CONFIG_DIR");
  if (configured !== undefined && configured !== "") {
    return join(resolve(env.cwd(), configured), ".claude.json");
  }
  const home = env.home();
  return home === undefined ? undefined : join(home, ".claude.json");
}

/**
 * The managed policy folder whose CLAUDE.md an organisation installs: Claude Code's per platform.
 * BLADE_MANAGED_DIR replaces it (tests, unusual installs).
 */
export function managedDir(env: Env): string | undefined {
  const configured = env.get("BLADE_MANAGED_DIR");
  if (configured !== undefined) return configured === "" ? undefined : configured;
  switch (env.platform()) {
    case "linux":
      return "/etc/claude-code";
    case "darwin":
      return "/Library/Application Support/ClaudeCode";
    case "windows":
      return "C:\\Program Files\\ClaudeCode";
    default:
      return undefined;
  }
}
