// Owns writing an agent definition back out as a Markdown file with YAML frontmatter (used by
// `blade agents create`). Quotes values by hand so this module does not need the YAML library.
// Does not write files.

export interface AgentFileFields {
  name: string;
  description: string;
  /** undefined = inherit every tool; [] = no tools. */
  tools?: readonly string[] | undefined;
  model?: string | undefined;
  /** The system prompt (the Markdown body). */
  prompt: string;
}

const PLAIN = /^[A-Za-z0-9][A-Za-z0-9 ,.;()/_+-]*$/;
const LOOKS_TYPED = /^(true|false|yes|no|on|off|null|~|[-+]?[0-9][0-9_.e+-]*)$/i;

/** A YAML scalar: plain when unambiguous, else double-quoted (JSON strings are valid YAML). */
export function yamlScalar(value: string): string {
  return PLAIN.test(value) && !LOOKS_TYPED.test(value) && value.trim() === value
    ? value
    : JSON.stringify(value);
}

export function renderAgentFile(fields: AgentFileFields): string {
  const lines = ["---", `name: ${yamlScalar(fields.name)}`, `description: ${yamlScalar(fields.description)}`];
  if (fields.tools !== undefined) {
    lines.push(fields.tools.length === 0 ? "tools: []" : `tools: ${yamlScalar(fields.tools.join(", "))}`);
  }
  if (fields.model !== undefined) lines.push(`model: ${yamlScalar(fields.model)}`);
  lines.push("---", "", fields.prompt.trim(), "");
  return lines.join("\n");
}

/** The body `blade agents create` writes when no prompt is given. */
export function defaultAgentPrompt(name: string, description: string): string {
  const purpose = /[.!?]$/.test(description) ? description : `${description}.`;
  return [
    `You are the "${name}" agent. ${purpose}`,
    "",
    "Another agent (your parent) gives you one task and sees only your final message. Work on that task alone: explore before you act, follow the conventions of the code around you, and check your work with the project's own tools when you change something.",
    "",
    "End with a short, self-contained report: what you found or changed (with file paths), how you verified it, and anything left undone.",
  ].join("\n");
}
