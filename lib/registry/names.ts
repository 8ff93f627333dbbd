// Owns the rules for names in agent definitions: reserved agent names, the strict agent-name pattern
// (used by `--agents` and `blade agents create`), and list fields such as `tools: Read, Grep`.
// Does not decide which tools a child finally gets (child_tools.ts does).

import { splitRuleList } from "../protocol/tool_rule.ts";

/** Built-in agents no other source may replace. */
export const RESERVED_AGENT_NAMES: readonly string[] = ["verification", "goal-verification"];

/** Case-insensitive, so a look-alike such as "Verification" cannot pose as the built-in auditor. */
export function isReservedAgentName(name: string): boolean {
  return RESERVED_AGENT_NAMES.includes(name.toLowerCase());
}

export function reservedNameMessage(name: string): string {
  return `Subagent '${name}' is reserved by Blade`;
}

export const MAX_AGENT_NAME_LENGTH = 128;

/** Letter or digit first, then letters, digits, `_` and `-`. */
export const STRICT_AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/** Why `name` breaks the strict naming rule, or undefined when it is fine. */
export function strictNameProblem(name: string): string | undefined {
  if (name.length < 1 || name.length > MAX_AGENT_NAME_LENGTH) {
    return `must be 1–${MAX_AGENT_NAME_LENGTH} characters long`;
  }
  if (!STRICT_AGENT_NAME.test(name)) {
    return 'must start with a letter or digit and contain only letters, digits, "_" and "-"';
  }
  return undefined;
}

/**
 * Reads a list field given as a YAML list or a comma string: entries trimmed, empty ones dropped,
 * duplicates removed (first kept). Commas inside parentheses belong to the entry, so
 * `Task(Explore, Plan), Read` is two entries (the rule grammar's own splitter).
 */
export function splitNameList(value: string | readonly string[]): string[] {
  return splitRuleList(value);
}
