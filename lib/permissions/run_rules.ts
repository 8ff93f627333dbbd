// Owns turning a run's rule sources (--allowed-tools, --disallowed-tools, settings permissions.allow |
// deny | ask) into one RuleSet with the one grammar (protocol/tool_rule.ts): an entry that is not a
// rule is a usage error naming it; a rule naming no Blade tool is a warning. Children inherit the set.
// Pure; no I/O.

import { BladeError } from "../errors.ts";
import {
  BLADE_TOOL_NAMES,
  parseRuleList,
  type RuleSet,
  type ToolRule,
  unknownRuleTools,
  wholeToolsDenied,
} from "../protocol/tool_rule.ts";

/**
 * A session's rules as plain text lists (serialisable: they travel to child Workers and are frozen in a
 * child's sidecar). For a child they are its effective rules (permissions/ceiling.ts childRulesOf): the
 * run's allow rules, the deny and ask rules of the run and of every agent above it and its own, and
 * `limits`, one layer per agent on the way whose `tools` list has a specifier.
 */
export interface RuleTexts {
  allow: string[];
  deny: string[];
  ask: string[];
  /**
   * Layers of an agent's `tools` rules (`[["Bash(git status:*)", "Task"]]`): a call of a tool that a
   * layer names must match that layer, in every layer. They narrow; they approve nothing.
   */
  limits?: string[][];
}

export interface RuleSources {
  allowedTools?: readonly string[];
  disallowedTools?: readonly string[];
  /** settings `permissions.allow|deny|ask` (each entry one rule). */
  settings?: { allow?: readonly string[]; deny?: readonly string[]; ask?: readonly string[] };
}

export interface RunRules {
  rules: RuleSet;
  texts: RuleTexts;
  warnings: string[];
}

/** Parses every source; throws a usage BladeError for an entry that is not a rule. */
export function runRules(sources: RuleSources, known: readonly string[] = BLADE_TOOL_NAMES): RunRules {
  const warnings: string[] = [];
  const take = (entries: readonly string[] | undefined, where: string, spaces: boolean): ToolRule[] => {
    const parsed = parseRuleList(entries ?? [], { spaces });
    if (parsed.problems.length > 0) {
      throw new BladeError("bad_tool_rule", `${where}: ${parsed.problems.join("; ")}`, {
        hint: "Write rules as Tool or Tool(specifier), e.g. Read, Bash(npm test:*), Edit(src/**)",
        exitCode: 2,
      });
    }
    const unknown = unknownRuleTools(parsed.rules, known);
    if (unknown.length > 0) {
      warnings.push(`${where} names no Blade tool: ${unknown.join(", ")} (known: ${known.join(", ")})`);
    }
    return parsed.rules;
  };
  const s = sources.settings ?? {};
  const rules: RuleSet = {
    allow: [
      ...take(sources.allowedTools, "--allowed-tools", true),
      ...take(s.allow, "permissions.allow", false),
    ],
    deny: [
      ...take(sources.disallowedTools, "--disallowed-tools", true),
      ...take(s.deny, "permissions.deny", false),
    ],
    ask: take(s.ask, "permissions.ask", false),
  };
  return { rules, texts: textsOf(rules), warnings };
}

/** A top-level session's tool names: Blade's tools minus those a deny rule removes whole. */
export function sessionToolNames(rules: RuleSet, all: readonly string[] = BLADE_TOOL_NAMES): string[] {
  const denied = wholeToolsDenied(rules.deny);
  return all.filter((t) => !denied.has(t));
}

export function textsOf(rules: RuleSet): RuleTexts {
  return {
    allow: rules.allow.map((r) => r.text),
    deny: rules.deny.map((r) => r.text),
    ask: rules.ask.map((r) => r.text),
  };
}

/** The RuleSet of texts that were parsed before (a child's copy of its run's rules). */
export function rulesOf(texts: RuleTexts | undefined): RuleSet {
  return texts === undefined
    ? { allow: [], deny: [], ask: [] }
    : { allow: parseTexts(texts.allow), deny: parseTexts(texts.deny), ask: parseTexts(texts.ask) };
}

/** The limit layers of `texts`, parsed (an entry that is not a rule is dropped, as when it was frozen). */
export function limitsOf(texts: RuleTexts | undefined): ToolRule[][] {
  return (texts?.limits ?? []).map(parseTexts);
}

function parseTexts(list: readonly string[]): ToolRule[] {
  return parseRuleList(list).rules;
}
