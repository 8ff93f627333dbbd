// Owns the capability ceiling of a launch, pure: the tools a child may have at most (its parent's, or
// for a top-level session Blade's minus the run's whole-tool denies), the notes on what an agent
// asked for beyond them, a resumed run's mode and tools narrowed to the resuming session's, and the
// read-only auditor setup of verification agents. The plan that applies them is launch_plan.ts.

import type { PermissionMode } from "../protocol/permission_mode.ts";
import { rulesOf, type RuleTexts, sessionToolNames } from "../permissions/run_rules.ts";
import { capMode, capTools, childRulesOf, narrowerMode, resumedRulesOf } from "../permissions/ceiling.ts";
import type { ConfigSnapshot } from "../store/schema.ts";
import { resolveChildTools } from "../registry/child_tools.ts";
import { BLADE_TOOL_NAMES } from "../protocol/tool_rule.ts";
import type { AgentDefinition } from "../registry/schema.ts";
import { VERDICT_AGENTS, VERDICT_JSON_SCHEMA } from "../verification/verdict.ts";
import type { ChildSpec } from "../executor/child.ts";

/** What of the delegating session bounds its child. */
export interface CeilingParent {
  mode: PermissionMode;
  /** The delegating session's tool names; absent for a top-level session. */
  tools?: readonly string[];
  /** The delegating session's effective rules (absent: none; a top-level session's are the run's). */
  rules?: RuleTexts;
}

/** The tools a child of `parent` may have at most, and what `definition` asked for beyond them. */
export function ceilingOf(
  definition: AgentDefinition,
  parent: CeilingParent,
): { toolCeiling: string[]; capped?: string[] } {
  const ceiling = toolCeilingOf(parent);
  const requested = resolveChildTools(definition, BLADE_TOOL_NAMES).allowed;
  const notes = [
    capMode(definition.permissionMode, parent.mode).capped,
    capTools(requested, ceiling, definition.tools !== null).capped,
  ].filter((n): n is string => n !== undefined);
  return { toolCeiling: ceiling, ...(notes.length === 0 ? {} : { capped: notes }) };
}

/** The delegating session's tools; for a top-level session, Blade's minus the run's whole-tool denies. */
function toolCeilingOf(parent: CeilingParent): string[] {
  return parent.tools === undefined ? sessionToolNames(rulesOf(parent.rules)) : [...parent.tools];
}

/**
 * A resumed run keeps its frozen config, but never more than the resuming session has: its mode is
 * capped by the parent's and its tools by the parent's tools (its rules: resumedConfig).
 */
export function resumedCeiling(spec: ChildSpec, parent: CeilingParent): ChildSpec {
  const toolCeiling = toolCeilingOf(parent);
  const permissionMode = narrowerMode(spec.config.permissionMode, parent.mode);
  return { ...spec, toolCeiling, config: { ...spec.config, permissionMode } };
}

/**
 * A resumed run's frozen config with its rules narrowed by the resuming session's: the rules frozen
 * when it first ran (its ancestors' denies and limits) and the resuming session's, both. A record
 * written before rules were frozen has only its own definition's.
 */
export function resumedConfig(config: ConfigSnapshot, parent: CeilingParent): ConfigSnapshot {
  const frozen = config.rules ?? childRulesOf(undefined, config);
  return { ...config, rules: childRulesOf(resumedRulesOf(frozen, parent.rules), config) };
}

/** A verification agent is a read-only auditor that returns a verdict (docs/reference/verification.md). */
export function auditOf(
  name: string,
  commandEnv: Record<string, string> = {},
): Pick<ChildSpec, "audit" | "structuredOutput"> {
  if (!VERDICT_AGENTS.includes(name)) return {};
  return {
    audit: { commandEnv },
    structuredOutput: { schema: VERDICT_JSON_SCHEMA, maxRetries: 2, purpose: "your verdict" },
  };
}
