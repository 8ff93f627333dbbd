// Owns the one permission-rule grammar (docs/guides/permissions.md): `Tool` or `Tool(specifier)`, as
// written in --allowed-tools, --disallowed-tools, agent `tools` / `disallowedTools` and settings
// `permissions.allow|deny|ask`; parsing rule lists and matching a tool call against allow, ask and deny
// rules. Bash specifiers are checked per simple command (shell_parse.ts); path specifiers against the
// real path the caller resolved. Pure: no I/O, no Blade modules beyond protocol/.

import { isAbsolute, relative, resolve, sep } from "../path.ts";
import { compileGlob } from "./glob_pattern.ts";
import { parseShell, shellWords, type SimpleCommand } from "./shell_parse.ts";
import { isMcpToolName, toolNameMatches } from "./mcp_names.ts";

/** One rule: the tool (aliases resolved) and the text inside `Tool(…)`, when given. */
export interface ToolRule {
  /** The rule as written, for messages. */
  text: string;
  tool: string;
  specifier?: string;
}

/** Blade's tools, as rules name them. */
export const BLADE_TOOL_NAMES: readonly string[] = [
  "Read",
  "Write",
  "Edit",
  "Glob",
  "Grep",
  "Bash",
  "Task",
  "TaskOutput",
  "TaskStop",
  "Skill",
];

/** Claude Code names for Blade tools. */
export const TOOL_ALIASES: Readonly<Record<string, string>> = { Agent: "Task" };

/** Tools whose specifier is a path (gitignore-style pattern), and the argument holding it. */
const PATH_ARGUMENT: Readonly<Record<string, string>> = {
  Read: "file_path",
  Write: "file_path",
  Edit: "file_path",
  Glob: "path",
  Grep: "path",
};

/** A rule for `Edit` covers every tool that edits files; `Read` every tool that reads them. */
const RULE_COVERS: Readonly<Record<string, readonly string[]>> = {
  Edit: ["Edit", "Write"],
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
    return { text: t, tool: TOOL_ALIASES[t] ?? t };
  }
  const name = t.slice(0, open).trim();
  if (!t.endsWith(")") || !NAME.test(name)) {
    return { error: `"${t}" is not a rule (expected Tool or Tool(specifier), e.g. Bash(npm test:*))` };
  }
  const tool = TOOL_ALIASES[name] ?? name;
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
 * Whether `rule` matches the call. An allow rule matches a Bash command only if it matches every
 * simple command (matchCommand does that over several rules); a deny or ask rule matches if any simple
 * command, nested ones included, matches. A specifier Blade cannot read matches nothing when
 * allowing and everything when denying.
 */
export function ruleMatches(rule: ToolRule, target: RuleTarget, scope: RuleScope, kind: RuleKind): boolean {
  if (!ruleCovers(rule, target.tool)) return false;
  if (rule.specifier === undefined) return true;
  if (target.tool === "Bash") {
    const command = typeof target.input.command === "string" ? target.input.command : "";
    return kind === "allow" ? bashAllowed([rule], command) : bashHits(rule.specifier, command);
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
  if (target.tool === "Task") {
    // `Task(Explore, Plan)`: any of the listed agent types.
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
 * Whether allow rules approve the call. For Bash every simple command must be matched by one of the
 * rules (each may be matched by a different one); a command with substitutions, subshells or
 * redirections to files is approved only by a rule without a specifier or one equal to the whole text.
 */
export function allowedBy(rules: readonly ToolRule[], target: RuleTarget, scope: RuleScope): boolean {
  const own = rules.filter((r) => ruleCovers(r, target.tool));
  if (own.some((r) => r.specifier === undefined)) return true;
  if (target.tool === "Bash") {
    return bashAllowed(own, typeof target.input.command === "string" ? target.input.command : "");
  }
  return own.some((r) => ruleMatches(r, target, scope, "allow"));
}

export interface RuleSet {
  allow: readonly ToolRule[];
  deny: readonly ToolRule[];
  ask: readonly ToolRule[];
}

export const NO_RULES: RuleSet = { allow: [], deny: [], ask: [] };

export type RuleVerdict =
  | { verdict: "deny" | "ask"; rule: ToolRule }
  | { verdict: "allow" }
  | { verdict: "none" };

/** Deny, then ask, then allow: the first list with a match decides (Claude Code's order). */
export function checkRules(set: RuleSet, target: RuleTarget, scope: RuleScope): RuleVerdict {
  const denied = firstMatch(set.deny, target, scope, "deny");
  if (denied !== undefined) return { verdict: "deny", rule: denied };
  const asked = firstMatch(set.ask, target, scope, "ask");
  if (asked !== undefined) return { verdict: "ask", rule: asked };
  return allowedBy(set.allow, target, scope) ? { verdict: "allow" } : { verdict: "none" };
}

/** Tools a list of deny rules removes whole (rules without a specifier). */
export function wholeToolsDenied(rules: readonly ToolRule[]): Set<string> {
  return new Set(rules.filter((r) => r.specifier === undefined).map((r) => r.tool));
}

// ---- Bash ----

function bashAllowed(rules: readonly ToolRule[], command: string): boolean {
  const specs = rules.filter((r) => r.specifier !== undefined).map((r) => r.specifier!);
  if (specs.some((s) => s === command.trim())) return true;
  const { commands } = parseShell(command);
  if (commands.length === 0) return false;
  return commands.every((c) => c.hazards.length === 0 && specs.some((s) => commandMatches(s, c.words)));
}

/** A deny/ask rule hits when any simple command, nested or behind a wrapper, matches it. */
function bashHits(specifier: string, command: string): boolean {
  const { scripts, forms } = bashForms(command);
  return scripts.includes(specifier) || forms.some((f) => commandMatches(specifier, f.words));
}

/** One way of reading a simple command a shell would run: its words, and its redirection targets. */
export interface BashForm {
  words: readonly string[];
  targets: readonly string[];
}

/**
 * Everything `command` would run, as deny rules see it: every simple command, nested ones included,
 * each as written and with keywords, `VAR=value` prefixes, wrappers and program paths removed, and
 * the scripts `sh -c "…"`, `bash -c '…'` and `eval …` run (up to four levels), which `scripts` lists
 * with the command itself (trimmed). The protected-path check (permissions/protected_paths.ts) reads
 * commands through it too.
 */
export function bashForms(command: string): { scripts: string[]; forms: BashForm[] } {
  const scripts: string[] = [];
  const forms: BashForm[] = [];
  const visit = (script: string, depth: number) => {
    scripts.push(script.trim());
    const { commands, nested } = parseShell(script);
    for (const c of [...commands, ...nested]) {
      for (const words of denyForms(c)) {
        forms.push({ words, targets: c.targets });
        const inner = innerScript(words);
        if (inner !== undefined && depth < 4) visit(inner, depth + 1);
      }
    }
  };
  visit(command, 0);
  return { scripts, forms };
}

/** Wrapper programs that run the rest of their arguments as a command. */
const WRAPPERS: Readonly<Record<string, RegExp | null>> = {
  command: /^-[pvV]+$/,
  builtin: null,
  exec: /^-[cl]+$|^-a$/,
  nohup: null,
  time: /^-p$/,
  env: /^-[i0u]|^--/,
  nice: /^-n$|^-\d+$|^--adjustment/,
  sudo: /^-/,
  doas: /^-/,
  timeout: /^-|^\d+(?:\.\d+)?[smhd]?$/,
  stdbuf: /^-/,
  ionice: /^-/,
  xargs: /^-/,
};

const KEYWORDS = new Set(["if", "then", "else", "elif", "do", "while", "until", "!", "{", "time"]);

/** The command as written and with keywords, `VAR=value` prefixes, wrappers and program paths removed. */
function denyForms(c: SimpleCommand): string[][] {
  const forms = [c.words];
  let words = c.words;
  for (let guard = 0; guard < 8 && words.length > 0; guard++) {
    let i = 0;
    while (i < words.length && (KEYWORDS.has(words[i]!) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!))) i++;
    const program = words[i];
    if (program === undefined) break;
    const base = program.includes("/") ? program.slice(program.lastIndexOf("/") + 1) : program;
    const rest = [base, ...words.slice(i + 1)];
    forms.push(rest);
    const flags = WRAPPERS[base];
    if (flags === undefined) break;
    let j = 1;
    while (
      j < rest.length && (flags?.test(rest[j]!) === true || (base === "env" && rest[j]!.includes("=")))
    ) {
      if (["-u", "-n", "-a"].includes(rest[j]!)) j++; // the flag's argument
      j++;
    }
    if (base === "timeout" && j < rest.length && /^\d/.test(rest[j]!)) j++;
    words = rest.slice(j);
  }
  return forms;
}

function innerScript(words: readonly string[]): string | undefined {
  const base = words[0];
  if (base === "eval") return words.slice(1).join(" ");
  if (base === "sh" || base === "bash" || base === "zsh" || base === "dash") {
    const c = words.findIndex((w, i) => i > 0 && /^-[a-z]*c[a-z]*$/.test(w));
    if (c > 0 && c + 1 < words.length) return words[c + 1];
  }
  return undefined;
}

/**
 * One Bash specifier against one simple command's words:
 * - `prefix:*` or `prefix *` (nothing else starred): the command's first words are the prefix's words
 *   (whole words: `echo:*` does not match `echox`), anything may follow;
 * - with `*` elsewhere: a wildcard over the words joined by single spaces (`git * main`, `ls*`);
 * - otherwise exact: the same words.
 */
export function commandMatches(specifier: string, words: readonly string[]): boolean {
  const prefix = specifier.endsWith(":*")
    ? specifier.slice(0, -2)
    : specifier.endsWith(" *") && !specifier.slice(0, -2).includes("*")
    ? specifier.slice(0, -2)
    : undefined;
  if (prefix !== undefined) {
    const want = shellWords(prefix);
    return want.length > 0 && want.length <= words.length && want.every((w, i) => words[i] === w);
  }
  if (specifier.includes("*")) {
    const source = specifier.split("*").map(escapeRegExp).join(".*").replace(/ \.\*$/, "(?: .*)?");
    return new RegExp(`^${source}$`, "s").test(words.join(" "));
  }
  const want = shellWords(specifier);
  return want.length === words.length && want.every((w, i) => words[i] === w);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
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
