// Owns the capability ceiling (docs/guides/permissions.md "The capability ceiling"): a child never has
// more than the session that delegates to it. Its permission mode is the narrower of its agent's mode
// and its parent's effective mode (plan < dontAsk < default < autoEdit < auto < yolo; dontAsk and default are
// the same grant, and dontAsk, which never asks, is the narrower of the two), and its tools are a subset
// of the parent's tools. Its rules are the intersection of its own and every ancestor's (childRulesOf):
// deny and ask rules accumulate down the tree, and each agent's `tools` rules become a layer every
// descendant's calls must also match. Pure and table-tested; the launch plan calls it, and the child's
// Deno permission set is derived from what it returns.

import type { PermissionMode } from "../protocol/permission_mode.ts";
import { parseToolRule, type ToolRule } from "../protocol/tool_rule.ts";
import type { RuleTexts } from "./run_rules.ts";

/** Narrowest first. */
export const MODE_ORDER: readonly PermissionMode[] = [
  "plan",
  "dontAsk",
  "default",
  "autoEdit",
  "auto",
  "yolo",
];

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

/** An agent's tool lists as its definition (or frozen snapshot) writes them. */
export interface AgentToolLists {
  /** null = every tool of the parent. */
  tools: readonly string[] | null;
  disallowedTools: readonly string[];
}

/**
 * The rules a child runs with: those of the session that delegates to it (`parent`: the run's for a
 * child of the top-level session, else its parent's effective rules), narrowed by its own definition.
 * Allow rules stay the run's (an agent's lists never approve anything); every `disallowedTools` entry
 * joins the deny rules; a `tools` list with a specifier (`Bash(git status:*)`, `Edit(docs/**)`) joins
 * as one more limit layer, so a call of a tool it names must match it, in this child and in every
 * descendant. Idempotent: applying the same definition twice adds nothing.
 */
export function childRulesOf(parent: RuleTexts | undefined, agent: AgentToolLists): RuleTexts {
  const own = validRules(agent.disallowedTools);
  const layer = agent.tools === null ? [] : validRules(agent.tools);
  const limited = layer.some((r) => r.specifier !== undefined);
  return {
    allow: [...parent?.allow ?? []],
    deny: unique([...parent?.deny ?? [], ...own.map((r) => r.text)]),
    ask: [...parent?.ask ?? []],
    limits: uniqueLayers([...parent?.limits ?? [], ...(limited ? [layer.map((r) => r.text)] : [])]),
  };
}

/**
 * A resumed child's rules: what was frozen when it first ran (its ancestors' denies and limits), never
 * more than the resuming session has. Allow rules are the resuming run's (its user's grant now); deny
 * and ask rules and limit layers are those of both.
 */
export function resumedRulesOf(frozen: RuleTexts, resuming: RuleTexts | undefined): RuleTexts {
  return {
    allow: [...resuming?.allow ?? []],
    deny: unique([...frozen.deny, ...resuming?.deny ?? []]),
    ask: unique([...frozen.ask, ...resuming?.ask ?? []]),
    limits: uniqueLayers([...frozen.limits ?? [], ...resuming?.limits ?? []]),
  };
}

function validRules(entries: readonly string[]): ToolRule[] {
  return entries.map(parseToolRule).filter((r): r is ToolRule => !("error" in r));
}

function unique(texts: readonly string[]): string[] {
  return [...new Set(texts)];
}

function uniqueLayers(layers: readonly (readonly string[])[]): string[][] {
  const seen = new Set<string>();
  return layers.filter((l) => {
    const key = JSON.stringify([...l].sort());
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  }).map((l) => [...l]);
}
