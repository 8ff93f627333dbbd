// Owns the one permission-rule grammar (docs/guides/permissions.md): `Tool` or `Tool(specifier)`, as
// written in --allowed-tools, --disallowed-tools, agent `tools` / `disallowedTools` and settings
// `permissions.allow|deny|ask`; parsing rule lists and matching a tool call against allow, ask and deny
// rules. Bash specifiers are checked against a real bash parse (shell/command_line.ts: an allow rule
// matches only plain commands, a deny rule anything it cannot prove free of its program); path
// specifiers against the real path the caller resolved. Pure: no I/O, no Blade modules beyond
// protocol/ and shell/ (whose parser the caller loads first: shell/bash_parser.ts loadBashParser).

import { isAbsolute, relative, resolve, sep } from "../path.ts";
import { compileGlob } from "./glob_pattern.ts";
import { bashAllowed, bashHit } from "./bash_rule.ts";
export { type BashForm, bashForms, commandMatches } from "./bash_rule.ts";
import { isMcpToolName, toolNameMatches } from "./mcp_names.ts";
import { AGENT_TOOL, canonicalToolName } from "./tool_names.ts";
import { domainMatches, urlHost } from "./url_host.ts";

export { domainMatches, urlHost };

/** One rule: the tool (aliases resolved) and the text inside `Tool(…)`, when given. */
export interface ToolRule {
  /** The rule as written, for messages. */
  text: string;
  tool: string;
  specifier?: string;
}

export { BLADE_TOOL_NAMES, TOOL_ALIASES } from "./tool_names.ts";

/** Tools whose specifier is a path (gitignore-style pattern), and the argument holding it. */
const PATH_ARGUMENT: Readonly<Record<string, string>> = {
  Read: "file_path",
  Write: "file_path",
  Edit: "file_path",
  NotebookEdit: "notebook_path",
  Glob: "path",
  Grep: "path",
};

/** A rule for `Edit` covers every tool that edits files; `Read` every tool that reads them. */
const RULE_COVERS: Readonly<Record<string, readonly string[]>> = {
  Edit: ["Edit", "Write", "NotebookEdit"],
  Read: ["Read", "Glob", "Grep"],
};

/** A tool name; MCP names may end in `*` (`mcp__github__*`, every tool of that server). */
const NAME = /^[A-Za-z][A-Za-z0-9_-]*\*?$/;

/** Parses one rule; a string error says what is wrong with it. */
export function parseToolRule(text: string): ToolRule | { error: string } {
  const t = text.trim();
  const open = t.indexOf("(");
  if (open < 0) {
    if (!NAME.test(t)) return { error: `"${t}" is not a tool name (expected Tool or Tool(specifier))` };
    return { text: t, tool: canonicalToolName(t) };
  }
  const name = t.slice(0, open).trim();
  if (!t.endsWith(")") || !NAME.test(name)) {
    return { error: `"${t}" is not a rule (expected Tool or Tool(specifier), e.g. Bash(npm test:*))` };
  }
  const tool = canonicalToolName(name);
  const specifier = t.slice(open + 1, -1).trim();
  // `Bash(*)` and `Bash()` mean the whole tool, as in Claude Code.
  if (specifier === "" || specifier === "*") return { text: t, tool };
  return { text: t, tool, specifier };
}

/**
 * Splits a rule list on commas (and, for command-line flags, spaces) outside parentheses, so
 * `Bash(git diff:*) Edit` and `Task(Explore, Plan), Read` are two entries each. Empty entries and
 * duplicates are dropped (first kept).
 */
export function splitRuleList(
  text: string | readonly string[],
  options: { spaces?: boolean } = {},
): string[] {
  const parts: string[] = [];
  for (const item of typeof text === "string" ? [text] : text) {
    let depth = 0;
    let cur = "";
    for (const ch of item) {
      if (ch === "(") depth++;
      if (ch === ")") depth = Math.max(0, depth - 1);
      if (depth === 0 && (ch === "," || (options.spaces === true && /\s/.test(ch)))) {
        parts.push(cur);
        cur = "";
        continue;
      }
      cur += ch;
    }
    parts.push(cur);
  }
  return [...new Set(parts.map((p) => p.trim()).filter((p) => p !== ""))];
}

export interface ParsedRules {
  rules: ToolRule[];
  /** Entries that are not rules, with the reason. */
  problems: string[];
}

/** Parses every entry of a list (flag values are split on commas and spaces outside parentheses). */
export function parseRuleList(entries: readonly string[], options: { spaces?: boolean } = {}): ParsedRules {
  const rules: ToolRule[] = [];
  const problems: string[] = [];
  for (const entry of splitRuleList(entries, options)) {
    const parsed = parseToolRule(entry);
    if ("error" in parsed) problems.push(parsed.error);
    else rules.push(parsed);
  }
  return { rules, problems };
}

/** Tool names that rules mention but no tool of `known` has (give a warning naming them). */
export function unknownRuleTools(rules: readonly ToolRule[], known: readonly string[]): string[] {
  // MCP tools come and go with their servers: their names are never reported.
  return [...new Set(rules.map((r) => r.tool).filter((t) => !known.includes(t) && !isMcpToolName(t)))];
}

/** A tool call as rules see it. */
export interface RuleTarget {
  tool: string;
  input: Record<string, unknown>;
  /** The real absolute path of the call's path argument (symlinks resolved), when it has one. */
  path?: string;
}

/** What relative path patterns are relative to. */
export interface RuleScope {
  workspaceRoot: string;
  home?: string;
}

export type RuleKind = "allow" | "deny" | "ask";

/** Whether `rule` names this call's tool (an `Edit` rule names Write too). */
export function ruleCovers(rule: ToolRule, tool: string): boolean {
  if (toolNameMatches(rule.tool, tool)) return true;
  return rule.specifier !== undefined && (RULE_COVERS[rule.tool]?.includes(tool) ?? false);
}

/**
 * Whether `rule` matches the call. An allow rule matches a Bash command only if it is a list of plain
 * commands each matching it (allowedBy does that over several rules); a deny or ask rule matches if
 * any command the line may run matches, or what it runs cannot be known (shell/command_line.ts). A
 * specifier Blade cannot read matches nothing when allowing and everything when denying.
 */
export function ruleMatches(rule: ToolRule, target: RuleTarget, scope: RuleScope, kind: RuleKind): boolean {
  if (!ruleCovers(rule, target.tool)) return false;
  if (rule.specifier === undefined) return true;
  if (target.tool === "Bash") {
    const command = typeof target.input.command === "string" ? target.input.command : "";
    return kind === "allow" ? bashAllowed([rule], command).ok : bashHit(rule, command) !== undefined;
  }
  if (Object.hasOwn(PATH_ARGUMENT, target.tool)) {
    if (target.path === undefined) return kind !== "allow";
    return pathMatches(rule.specifier, target.path, scope);
  }
  if (target.tool === "Skill") {
    // `Skill(deploy)`, or `Skill(deploy:*)` for a name and what follows it.
    const name = String(target.input.skill ?? "").replace(/^\//, "");
    const spec = rule.specifier.trim();
    return spec.endsWith(":*") ? name.startsWith(spec.slice(0, -2)) : name === spec;
  }
  if (target.tool === "WebFetch") {
    // `WebFetch(domain:example.com)`: that host; `domain:*.example.com`: its subdomains.
    const host = urlHost(target.input.url);
    if (host === undefined || !rule.specifier.startsWith("domain:")) return kind !== "allow";
    return domainMatches(rule.specifier.slice("domain:".length), host);
  }
  if (target.tool === AGENT_TOOL) {
    // `Agent(Explore, Plan)` (or `Task(…)`): any of the listed agent types.
    return rule.specifier.split(",").map((t) => t.trim()).includes(String(target.input.subagent_type));
  }
  return kind !== "allow";
}

/** The first rule of `rules` that matches, for deny and ask lists. */
export function firstMatch(
  rules: readonly ToolRule[],
  target: RuleTarget,
  scope: RuleScope,
  kind: "deny" | "ask",
): ToolRule | undefined {
  return rules.find((r) => ruleMatches(r, target, scope, kind));
}

/**
 * Whether allow rules approve the call. For Bash the line must be a list of plain commands (literal
 * words, no expansion, substitution, compound command or redirection to a file) each matched by one of
 * the rules (each may be matched by a different one), and a command runner (`env`, `xargs`, `bash -c`,
 * `find -exec`…) must be named by the rule; anything else is approved only by a rule without a
 * specifier or one equal to the whole text.
 */
export function allowedBy(rules: readonly ToolRule[], target: RuleTarget, scope: RuleScope): boolean {
  return allowRefusal(rules, target, scope) === undefined;
}

/** Why allow rules do not approve the call ("" when no reason beyond "no rule matches"); undefined: they do. */
export function allowRefusal(
  rules: readonly ToolRule[],
  target: RuleTarget,
  scope: RuleScope,
): string | undefined {
  const own = rules.filter((r) => ruleCovers(r, target.tool));
  if (own.some((r) => r.specifier === undefined)) return undefined;
  if (target.tool === "Bash") {
    if (own.length === 0) return "";
    const verdict = bashAllowed(own, typeof target.input.command === "string" ? target.input.command : "");
    return verdict.ok ? undefined : verdict.why;
  }
  return own.some((r) => ruleMatches(r, target, scope, "allow")) ? undefined : "";
}

export interface RuleSet {
  allow: readonly ToolRule[];
  deny: readonly ToolRule[];
  ask: readonly ToolRule[];
}

export const NO_RULES: RuleSet = { allow: [], deny: [], ask: [] };

export type RuleVerdict =
  | {
    verdict: "deny" | "ask";
    rule: ToolRule;
    /** For Bash: which command hit the rule, or why Blade cannot tell (" (it runs …)"); may be "". */
    why?: string;
  }
  | { verdict: "allow" }
  | {
    verdict: "none";
    /** For Bash: why the allow rules that name the tool do not approve it; absent or "" when none does. */
    why?: string;
  };

/** Deny, then ask, then allow: the first list with a match decides (Claude Code's order). */
export function checkRules(set: RuleSet, target: RuleTarget, scope: RuleScope): RuleVerdict {
  for (const kind of ["deny", "ask"] as const) {
    const rule = firstMatch(set[kind], target, scope, kind);
    if (rule === undefined) continue;
    const why = target.tool === "Bash" && rule.specifier !== undefined
      ? bashHit(rule, typeof target.input.command === "string" ? target.input.command : "")
      : undefined;
    return why === undefined || why === "" ? { verdict: kind, rule } : { verdict: kind, rule, why };
  }
  const refusal = allowRefusal(set.allow, target, scope);
  if (refusal === undefined) return { verdict: "allow" };
  return refusal === "" ? { verdict: "none" } : { verdict: "none", why: refusal };
}

/** Tools a list of deny rules removes whole (rules without a specifier). */
export function wholeToolsDenied(rules: readonly ToolRule[]): Set<string> {
  return new Set(rules.filter((r) => r.specifier === undefined).map((r) => r.tool));
}

// ---- Paths ----

/**
 * A gitignore-style path specifier against a real absolute path. `//p` is absolute, `~/p` is in the
 * home folder, `/p`, `./p` and `p` are relative to the workspace root. A pattern without `/` matches
 * a name at any depth; a pattern matching a folder matches everything below it.
 */
export function pathMatches(specifier: string, path: string, scope: RuleScope): boolean {
  let pattern = specifier;
  let base = scope.workspaceRoot;
  if (pattern.startsWith("//")) {
    base = "/";
    pattern = pattern.slice(2);
  } else if (pattern === "~" || pattern.startsWith("~/")) {
    if (scope.home === undefined) return false;
    base = scope.home;
    pattern = pattern.slice(2);
  } else if (pattern.startsWith("/")) pattern = pattern.slice(1);
  else if (pattern.startsWith("./")) pattern = pattern.slice(2);
  if (pattern.endsWith("/")) pattern = `${pattern}**`;
  if (pattern === "") pattern = "**";
  if (!pattern.includes("/")) pattern = `**/${pattern}`;
  const rel = relative(resolve(base), resolve(path));
  if (rel === "") return pattern === "**" || pattern === "**/**";
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return false;
  const parts = rel.split(sep);
  const glob = compileGlob(pattern);
  for (let n = parts.length; n >= 1; n--) {
    if (glob.matches(parts.slice(0, n).join("/"))) return true;
  }
  return false;
}

/** The argument of `tool` that holds the path a path rule is matched against. */
export function pathArgument(tool: string): string | undefined {
  return PATH_ARGUMENT[tool];
}
