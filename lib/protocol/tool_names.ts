// Owns the names of Blade's built-in tools as the model, rules and agent files see them, and the older
// Claude Code names they also answer to: `Task` is the delegation tool `Agent`, `KillShell` is
// `TaskStop` (docs/reference/tools.md). Vocabulary only, no I/O.

/** The delegation tool's name, as Claude Code sends it to the model. */
export const AGENT_TOOL = "Agent";

/** Blade's built-in tools, as rules name them. */
export const BLADE_TOOL_NAMES: readonly string[] = [
  "Read",
  "Write",
  "Edit",
  "Glob",
  "Grep",
  "Bash",
  "NotebookEdit",
  "WebFetch",
  "WebSearch",
  AGENT_TOOL,
  "TaskOutput",
  "TaskStop",
  "Monitor",
  "Skill",
];

/** Other names of Blade tools: a call, a rule or an agent file's `tools` entry may use either. */
export const TOOL_ALIASES: Readonly<Record<string, string>> = { Task: AGENT_TOOL, KillShell: "TaskStop" };

/** The tool a name stands for: its own name, or the tool an alias names. */
export function canonicalToolName(name: string): string {
  return Object.hasOwn(TOOL_ALIASES, name) ? TOOL_ALIASES[name]! : name;
}

/** Whether a call of this name delegates to a subagent (`Agent`, or its older name `Task`). */
export function isDelegationTool(name: string): boolean {
  return canonicalToolName(name) === AGENT_TOOL;
}
