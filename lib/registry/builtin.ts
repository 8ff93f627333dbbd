// Owns the built-in agents: the Markdown files of agents/, embedded in builtin_agents.gen.ts together
// with their definitions as the registry's parser reads them (parsed when the module is generated, so
// a run neither parses them nor loads the parser's zod schema). Callers get copies. Does not read the
// agents/ folder at run time.

import { BUILTIN_AGENT_DEFINITIONS } from "./builtin_agents.gen.ts";
import type { Diagnostic } from "./diagnostic.ts";
import type { AgentDefinition } from "./schema.ts";

export interface BuiltinAgents {
  definitions: AgentDefinition[];
  diagnostics: Diagnostic[];
}

export function builtinAgents(): Promise<BuiltinAgents> {
  return Promise.resolve({ definitions: structuredClone([...BUILTIN_AGENT_DEFINITIONS]), diagnostics: [] });
}
