// Owns the capability ceiling (docs/guides/permissions.md "The capability ceiling"): a child never has
// more than the session that delegates to it. Its permission mode is the narrower of its agent's mode
// and its parent's effective mode (plan < dontAsk < default < autoEdit < yolo; dontAsk and default are
// the same grant, and dontAsk, which never asks, is the narrower of the two), and its tools are a subset
// of the parent's tools. Pure and table-tested; the launch plan calls it, and the child's Deno
// permission set is derived from what it returns.

import type { PermissionMode } from "../protocol/permission_mode.ts";

/** Narrowest first. */
export const MODE_ORDER: readonly PermissionMode[] = ["plan", "dontAsk", "default", "autoEdit", "yolo"];

/** Claude Code's name for a mode, for messages that quote an agent file. */
const CLAUDE_NAMES: Partial<Record<PermissionMode, string>> = {
  yolo: "bypassPermissions",
  autoEdit: "acceptEdits",
};

export function modeLabel(mode: PermissionMode): string {
  const claude = CLAUDE_NAMES[mode];
  return claude === undefined ? mode : `${mode} (${claude})`;
}

export function narrowerMode(a: PermissionMode, b: PermissionMode): PermissionMode {
  return MODE_ORDER.indexOf(a) <= MODE_ORDER.indexOf(b) ? a : b;
}

export interface ModeCeiling {
  mode: PermissionMode;
  /** Set when the agent asked for more than the parent has. */
  capped?: string;
}

/** The child's effective mode: its agent's (or the parent's, for `inherit`), never wider than the parent's. */
export function capMode(agentMode: PermissionMode | "inherit", parentMode: PermissionMode): ModeCeiling {
  if (agentMode === "inherit") return { mode: parentMode };
  const mode = narrowerMode(agentMode, parentMode);
  if (mode === agentMode) return { mode };
  return { mode, capped: `permissionMode ${modeLabel(agentMode)} capped to ${mode} by the parent` };
}

export interface ToolCeiling {
  tools: string[];
  /** Set when the agent's explicit tool list names tools the parent does not have. */
  capped?: string;
}

/**
 * The child's tools: those it asked for that the parent has. `requested` is the agent's resolved list;
 * `explicit` says whether the agent listed its tools (inheriting everything is not "asking for more").
 */
export function capTools(
  requested: readonly string[],
  parentTools: readonly string[],
  explicit: boolean,
): ToolCeiling {
  const tools = requested.filter((t) => parentTools.includes(t));
  const missing = requested.filter((t) => !parentTools.includes(t));
  if (!explicit || missing.length === 0) return { tools };
  return { tools, capped: `tools ${missing.join(", ")} not granted: the parent does not have them` };
}
