// Owns what a command's or skill's `allowed-tools` does (docs/guides/memory.md): it narrows. While it
// applies, a call must also be allowed by each active list (a tool it does not name is refused; a
// named tool with specifiers must match one); it approves nothing, so the permission gate still
// decides every call it lets through, and a second list can only narrow further. Pure.

import {
  allowedBy,
  parseRuleList,
  type RuleScope,
  type RuleTarget,
  type ToolRule,
} from "../protocol/tool_rule.ts";

export interface Narrowing {
  /** Who narrowed, for the refusal: `/review`, `the skill deploy`. */
  source: string;
  rules: readonly ToolRule[];
}

/** Tools no narrowing refuses: the run's own structured answer. */
const ALWAYS = new Set(["StructuredOutput"]);

/** A narrowing from `allowed-tools` texts; rules Blade cannot read are dropped (they allow nothing). */
export function narrowingOf(source: string, texts: readonly string[]): Narrowing {
  return { source, rules: parseRuleList(texts).rules };
}

/** Undefined when every active narrowing allows the call, else why it is refused. */
export function narrowedRefusal(
  active: readonly Narrowing[],
  target: RuleTarget,
  scope: RuleScope,
): string | undefined {
  if (ALWAYS.has(target.tool)) return undefined;
  for (const n of active) {
    if (allowedBy(n.rules, target, scope)) continue;
    const allowed = n.rules.map((r) => r.text).join(", ") || "no tools";
    return `${target.tool} is refused: ${n.source} allows only ${allowed} (its allowed-tools narrow what this turn may use).`;
  }
  return undefined;
}
