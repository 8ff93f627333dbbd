// Owns the built-in agents: the Markdown files of agents/ embedded in builtin_agents.gen.ts, parsed with
// the same parser as user files (path `builtin:<file>`). Parsed once per process; callers get copies.
// Does not read the agents/ folder at run time.

import { BUILTIN_AGENT_FILES } from "./builtin_agents.gen.ts";
import type { Diagnostic } from "./diagnostic.ts";
import { parseAgentFile } from "./parse.ts";
import type { AgentDefinition } from "./schema.ts";

export interface BuiltinAgents {
  definitions: AgentDefinition[];
  diagnostics: Diagnostic[];
}

let parsed: Promise<BuiltinAgents> | undefined;

async function parseAll(): Promise<BuiltinAgents> {
  const definitions: AgentDefinition[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const { file, text } of BUILTIN_AGENT_FILES) {
    const result = await parseAgentFile(text, { path: `builtin:${file}`, source: "builtin" });
    if (result.definition !== undefined) definitions.push(result.definition);
    diagnostics.push(...result.diagnostics);
  }
  return { definitions, diagnostics };
}

export async function builtinAgents(): Promise<BuiltinAgents> {
  parsed ??= parseAll();
  return structuredClone(await parsed);
}
