// Owns which tools a child run gets from its agent definition (docs/guides/permissions.md): the `tools`
// allow list, then a deny list that always holds the worktree and team tools plus `disallowedTools`;
// deny beats allow. Entries use the one rule grammar (protocol/tool_rule.ts): `Bash(git:*)` in `tools`
// grants Bash limited to matching calls, `Bash(rm:*)` in `disallowedTools` is a deny rule for the
// calls it matches. Does not build the tool table or run tools.

import { BLADE_TOOL_NAMES, parseToolRule, type ToolRule } from "../protocol/tool_rule.ts";
import { isMcpToolName, toolNameMatches } from "../protocol/mcp_names.ts";

/** Tools a child never gets, whatever its definition says. */
export const ALWAYS_DENIED_TOOLS: readonly string[] = ["EnterWorktree", "ExitWorktree", "TeamCreate"];

export interface ChildTools {
  /** Tools the child may call, in the order of `allToolNames`. */
  allowed: string[];
  /** Tools removed whole after the allow list. */
  denied: string[];
  /** From `tools`: a tool named only with specifiers may be called only as they allow. */
  limits: ToolRule[];
  /** From `disallowedTools`: rules with a specifier, refused call by call. */
  denyRules: ToolRule[];
}

export interface ToolLists {
  /** null = every tool; [] = none. */
  tools: readonly string[] | null;
  disallowedTools: readonly string[];
}

function rulesOf(entries: readonly string[]): ToolRule[] {
  return entries.map(parseToolRule).filter((r): r is ToolRule => !("error" in r));
}

/**
 * Resolves a child's tools from its definition against the tools on offer (the delegating session's
 * own tools, so a child never gets a tool its parent lacks).
 */
export function resolveChildTools(definition: ToolLists, allToolNames: readonly string[]): ChildTools {
  const denied = new Set(ALWAYS_DENIED_TOOLS);
  const denyRules: ToolRule[] = [];
  for (const rule of rulesOf(definition.disallowedTools)) {
    if (rule.specifier === undefined) denied.add(rule.tool);
    else denyRules.push(rule);
  }
  let allowed: string[];
  const limits: ToolRule[] = [];
  if (definition.tools === null) allowed = [...allToolNames];
  else {
    const rules = rulesOf(definition.tools);
    const whole = new Set(rules.filter((r) => r.specifier === undefined).map((r) => r.tool));
    for (const rule of rules) if (rule.specifier !== undefined && !whole.has(rule.tool)) limits.push(rule);
    // MCP entries may name a whole server (`mcp__github`, `mcp__github__*`).
    allowed = allToolNames.filter((name) => rules.some((r) => toolNameMatches(r.tool, name)));
  }
  const deny = [...denied];
  return {
    allowed: allowed.filter((name) => !deny.some((d) => toolNameMatches(d, name))),
    denied: deny,
    limits,
    denyRules,
  };
}

/** Warnings for entries that are not rules or name no tool Blade has. */
export function toolRuleNotes(definition: ToolLists): { field: string; entry: string; message: string }[] {
  const notes: { field: string; entry: string; message: string }[] = [];
  const known = [...BLADE_TOOL_NAMES, ...ALWAYS_DENIED_TOOLS];
  for (const field of ["tools", "disallowedTools"] as const) {
    for (const entry of (field === "tools" ? definition.tools : definition.disallowedTools) ?? []) {
      const rule = parseToolRule(entry);
      if ("error" in rule) notes.push({ field, entry, message: `${rule.error}; the entry is ignored` });
      else if (!known.includes(rule.tool) && !isMcpToolName(rule.tool)) {
        notes.push({
          field,
          entry,
          message: `"${entry}": Blade has no tool named ${rule.tool}; the entry has no effect`,
        });
      }
    }
  }
  return notes;
}
