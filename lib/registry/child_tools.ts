// Owns which tools a child run gets from its agent definition (SPEC §4): the `tools` allow list, then a
// deny list that always holds the worktree and team tools plus `disallowedTools`; deny beats allow.
// Also knows Claude Code's tool-entry syntax (`Agent` = `Task`, `Bash(git:*)` rules). Does not build the
// tool table or run tools.

/** Tools a child never gets, whatever its definition says. */
export const ALWAYS_DENIED_TOOLS: readonly string[] = ["EnterWorktree", "ExitWorktree", "TeamCreate"];

/** Claude Code names for Blade tools. */
const TOOL_ALIASES: Readonly<Record<string, string>> = { Agent: "Task" };

/** Tools whose Claude Code rule `Tool(…)` Blade honours as the whole tool. */
const DELEGATION_TOOLS = new Set(["Task"]);

export interface ToolEntry {
  /** Blade tool name (aliases resolved). */
  tool: string;
  /** The text inside `Tool(…)`, when given. */
  rule: string | undefined;
}

export function parseToolEntry(entry: string): ToolEntry {
  const match = /^([^()]+?)\s*\((.*)\)$/s.exec(entry.trim());
  const base = (match?.[1] ?? entry).trim();
  return { tool: TOOL_ALIASES[base] ?? base, rule: match?.[2]?.trim() };
}

export interface ChildTools {
  /** Tools the child may call, in the order of `allToolNames`. */
  allowed: string[];
  /** The deny list applied after the allow list. */
  denied: string[];
}

export interface ToolLists {
  /** null = every tool; [] = none. */
  tools: readonly string[] | null;
  disallowedTools: readonly string[];
}

/**
 * Resolves a child's tools from its definition. An allow entry with a rule Blade cannot enforce
 * (`Bash(git:*)`) grants nothing, so a narrowing is never widened; `Task(Explore)` grants Task. A deny
 * entry with a rule denies the whole tool.
 */
export function resolveChildTools(definition: ToolLists, allToolNames: readonly string[]): ChildTools {
  const denied = new Set(ALWAYS_DENIED_TOOLS);
  for (const entry of definition.disallowedTools) denied.add(parseToolEntry(entry).tool);
  let allowed: string[];
  if (definition.tools === null) allowed = [...allToolNames];
  else {
    const granted = new Set<string>();
    for (const entry of definition.tools) {
      const { tool, rule } = parseToolEntry(entry);
      if (rule === undefined || DELEGATION_TOOLS.has(tool)) granted.add(tool);
    }
    allowed = allToolNames.filter((name) => granted.has(name));
  }
  return { allowed: allowed.filter((name) => !denied.has(name)), denied: [...denied] };
}

/** Notes for entries whose Claude Code rule Blade does not enforce as written. */
export function toolRuleNotes(definition: ToolLists): { field: string; entry: string; message: string }[] {
  const notes: { field: string; entry: string; message: string }[] = [];
  for (const entry of definition.tools ?? []) {
    const { tool, rule } = parseToolEntry(entry);
    if (rule === undefined) continue;
    notes.push({
      field: "tools",
      entry,
      message: DELEGATION_TOOLS.has(tool)
        ? `"${entry}": Blade grants ${tool} without limiting which agent types it may start`
        : `"${entry}": Blade does not support tool rules yet, so ${tool} is not granted to this agent`,
    });
  }
  for (const entry of definition.disallowedTools) {
    const { tool, rule } = parseToolEntry(entry);
    if (rule !== undefined) {
      notes.push({
        field: "disallowedTools",
        entry,
        message: `"${entry}": Blade does not support tool rules yet, so the whole ${tool} tool is denied`,
      });
    }
  }
  return notes;
}
