// Owns what a session's project context adds to it (docs/guides/memory.md): text blocks opening the
// first user message of every request (memory, the skills listing) and the change it makes to the
// session's tools (nested memory after Read/Edit/Write, the Skill tool). Built by the CLI's wiring
// (cli/context_wiring.ts) from lib/memory and lib/skills; the session only applies it.

import type { AnyTool } from "../tools/tool.ts";

export interface SessionContext {
  /** Text blocks opening the first user message of every request; never persisted. */
  blocks: readonly string[];
  /** Tools the context adds (Skill); the run's rules and `--tools` apply to them as to the others. */
  tools?: readonly AnyTool[];
  /** A session tool as the context changes it (Read followed by nested memory); absent = unchanged. */
  wrap?: (tool: AnyTool) => AnyTool;
}
