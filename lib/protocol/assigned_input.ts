// Owns the keys of a tool call's input that Blade assigns itself, never the model: an Agent call's child
// id (`subagent_session_id`), given before the call runs and persisted with it so that recovery and
// resume find the same child exactly once (docs/reference/task-tool.md). The model's
// schema has no such key, a call whose model input sets one is refused, and everything that shows a
// call's input as the model wrote it (the provider's history, hooks, approvers, Claude-Code-format
// output) leaves the keys out. Pure, no I/O.

import { canonicalToolName, isDelegationTool } from "./tool_names.ts";

/** The Agent call's child id, assigned by Blade before the call runs. */
export const CHILD_ID_KEY = "subagent_session_id";

const NONE: readonly string[] = [];
const DELEGATION: readonly string[] = [CHILD_ID_KEY];

/** The input keys Blade assigns for a call of `tool` (none for most tools). */
export function assignedKeys(tool: string): readonly string[] {
  return isDelegationTool(tool) ? DELEGATION : NONE;
}

/** A call's input as the model wrote it: without the keys Blade assigns. */
export function modelInput(tool: string, input: Record<string, unknown>): Record<string, unknown> {
  const keys = assignedKeys(tool);
  if (!keys.some((k) => Object.hasOwn(input, k))) return input;
  const out = { ...input };
  for (const k of keys) delete out[k];
  return out;
}

/** Why a call's model input may not run (it sets a key Blade assigns), or undefined when it may. */
export function assignedRefusal(tool: string, input: Record<string, unknown>): string | undefined {
  const set = assignedKeys(tool).filter((k) => Object.hasOwn(input, k));
  if (set.length === 0) return undefined;
  return `${set.join(", ")} is assigned by Blade and may not be set by a call; ` +
    `call ${
      canonicalToolName(tool)
    } again without it (to continue an earlier agent, set resume_from to its agent id).`;
}

/** `input` (e.g. a hook's rewrite of a call) with the assigned keys taken from the call as persisted. */
export function withAssigned(
  tool: string,
  input: Record<string, unknown>,
  persisted: Record<string, unknown>,
): Record<string, unknown> {
  const keys = assignedKeys(tool);
  if (keys.length === 0) return input;
  const out = { ...modelInput(tool, input) };
  for (const k of keys) if (Object.hasOwn(persisted, k)) out[k] = persisted[k];
  return out;
}
