// Owns which model a child runs on (docs/reference/task-tool.md "Agent"): the Agent call's `model`
// (`sonnet`, `opus`, `haiku`, `inherit` or an id) first, as in Claude Code, then
// CLAUDE_CODE_SUBAGENT_MODEL, then the agent definition's `model` (`inherit` = the parent's), all
// under the ceiling of a configured `availableModels` list. Pure; the launch plan freezes the answer
// into the child's config snapshot, so a resume keeps it.

import { resolveModel } from "../config/config.ts";

export interface ModelChoice {
  /** The Agent call's `model`, when given. */
  requested?: string;
  /** The agent definition's `model` (an alias, an id or `inherit`). */
  definition: string;
  /** The delegating session's model (a concrete id). */
  parentModel: string;
  aliases: Record<string, string>;
  /** CLAUDE_CODE_SUBAGENT_MODEL. */
  subagentModel?: string;
  /** Settings `availableModels`: the models (aliases or ids) a child may be given; absent = any. */
  availableModels?: readonly string[];
}

/** The child's model id, or why the call may not have the model it asked for. */
export function chooseChildModel(c: ModelChoice): { model: string } | { refusal: string } {
  const pick = (name: string) => name === "inherit" ? c.parentModel : resolveModel(name, c.aliases);
  const model = c.requested !== undefined
    ? pick(c.requested)
    : c.subagentModel !== undefined
    ? pick(c.subagentModel)
    : pick(c.definition);
  // The parent already runs on its own model: inheriting it never widens anything.
  if (c.availableModels === undefined || model === c.parentModel) return { model };
  const allowed = c.availableModels.map((m) => resolveModel(m, c.aliases));
  if (allowed.includes(model)) return { model };
  const source = c.requested !== undefined
    ? `the call's model "${c.requested}"`
    : c.subagentModel !== undefined
    ? `CLAUDE_CODE_SUBAGENT_MODEL "${c.subagentModel}"`
    : `the agent's model "${c.definition}"`;
  return {
    refusal: `Cannot run the agent on ${model} (${source}): it is not in the availableModels setting ` +
      `(${
        c.availableModels.join(", ") || "empty"
      }). Use one of those, or "inherit" for this session's model.`,
  };
}
