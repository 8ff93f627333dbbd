// Owns the registry's public face for the rest of Blade: loadRegistry() and the types and helpers a
// session needs. Importing this module does not load the YAML parser: loadRegistry imports it lazily.

import type { Diagnostic } from "./diagnostic.ts";
import type { LoadAgentsInput } from "./load.ts";
import { RegistrySnapshot } from "./snapshot.ts";

export type { Diagnostic, DiagnosticSeverity } from "./diagnostic.ts";
export type { AgentDefinition, AgentPermissionMode, AgentSource } from "./schema.ts";
export type { LoadAgentsInput } from "./load.ts";
export { describeTools, RegistrySnapshot } from "./snapshot.ts";
export { ALWAYS_DENIED_TOOLS, type ChildTools, resolveChildTools } from "./child_tools.ts";
export { isReservedAgentName, RESERVED_AGENT_NAMES } from "./names.ts";

export interface LoadRegistryResult {
  snapshot: RegistrySnapshot;
  diagnostics: Diagnostic[];
}

/**
 * Loads every agent source visible from the workspace into a new immutable snapshot. Bad files become
 * diagnostics; a bad `--agents` value throws a BladeError (usage, exit 2).
 */
export async function loadRegistry(input: LoadAgentsInput): Promise<LoadRegistryResult> {
  const { loadAgents } = await import("./load.ts");
  const loaded = await loadAgents(input);
  return { snapshot: new RegistrySnapshot(input.workspace, loaded.agents), diagnostics: loaded.diagnostics };
}
