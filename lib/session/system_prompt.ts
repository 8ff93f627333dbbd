// Owns the base system prompt of a session: who Blade is, the environment, how to use tools and
// subagents, and the output style when one is chosen. The agent's own prompt (for a child) and
// --append-system-prompt are appended.

export interface SystemPromptOptions {
  workspaceRoot: string;
  /** `--add-dir` folders the tools may also work in. */
  additionalDirs?: readonly string[];
  platform: string;
  date: string;
  trusted: boolean;
  mode: string;
  /** Text listing the available subagents (registry), when the Task tool is offered. */
  agents?: string;
  /** Replaces the base prompt entirely (--system-prompt). */
  override?: string;
  /** Appended after everything (--append-system-prompt, or a child's agent prompt). */
  append?: readonly string[];
  /** The output style (lib/styles): how to respond, in place of Blade's own introduction. */
  style?: { name: string; body: string; keepCodingInstructions: boolean };
}

export function buildSystemPrompt(o: SystemPromptOptions): string {
  const base = o.override ?? [
    ...introOf(o.style),
    "",
    "# Environment",
    `- Working directory: ${o.workspaceRoot}`,
    ...((o.additionalDirs ?? []).length === 0
      ? []
      : [`- Additional working directories: ${o.additionalDirs!.join(", ")}`]),
    `- Platform: ${o.platform}`,
    `- Date: ${o.date}`,
    `- Workspace trusted: ${o.trusted ? "yes" : "no (Bash and writes outside Blade's storage are refused)"}`,
    `- Permission mode: ${o.mode}`,
    "",
    "# Tools",
    "- Relative paths resolve against the working directory. Read a file before you edit it.",
    "- A tool error is information: read it, adjust, and continue; do not repeat a denied call unchanged.",
    ...(o.agents === undefined ? [] : [
      "",
      "# Subagents",
      "Use the Agent tool to delegate a self-contained piece of work to a subagent. Give it a short",
      "description (3-100 characters) and a complete prompt: it does not see this conversation. Several",
      "Agent calls in one response run at the same time. With run_in_background you get a completion",
      "notice later; do not poll for it.",
      "",
      o.agents,
    ]),
    // Claude Code puts the chosen style's own section after the environment (its name as the title).
    ...(o.style === undefined ? [] : ["", `# Output Style: ${o.style.name}`, o.style.body]),
  ].join("\n");
  return [base, ...(o.append ?? []).filter((s) => s.trim() !== "")].join("\n\n");
}

/** Blade's introduction, or the output style's (with the coding sentence when the style keeps it). */
function introOf(style: SystemPromptOptions["style"]): string[] {
  const coding = [
    "You are Blade, a command-line coding agent. You help with software engineering tasks in the user's",
    "workspace using the tools you are given. Be direct and precise; prefer doing over describing.",
  ];
  if (style === undefined) return coding;
  return [
    'You are Blade, a command-line agent that helps users according to your "Output Style", which',
    "describes how you should respond to user queries.",
    ...(style.keepCodingInstructions
      ? ["You help with software engineering tasks in the user's workspace using the tools you are given."]
      : []),
  ];
}
