// Owns matching a Bash command against rule specifiers (docs/reference/permissions.md "How rules read a
// command"): an allow specifier approves only a list of plain commands whose words it matches and
// whose command runners it names; a deny or ask specifier hits any command the line may run, and
// anything whose commands Blade cannot know (shell/command_line.ts). The specifier grammar (`prefix:*`,
// wildcards, exact) is Claude Code's. Pure; the caller loads the parser first (shell/bash_parser.ts),
// and without it nothing is approved and every deny rule hits.

import { bashParserLoaded } from "../shell/bash_parser.ts";
import { type CommandForm, readCommandLine } from "../shell/command_line.ts";
import { literalValue } from "../shell/literal_word.ts";

/** The part of a rule a Bash matcher needs. */
interface SpecifiedRule {
  text: string;
  specifier?: string;
}

/** Why allow rules do not approve a Bash command (undefined: they do). */
export function bashAllowed(
  rules: readonly SpecifiedRule[],
  command: string,
): { ok: true } | { ok: false; why: string } {
  const specs = rules.filter((r) => r.specifier !== undefined);
  if (specs.some((r) => r.specifier === command.trim())) return { ok: true };
  if (!bashParserLoaded()) return { ok: false, why: "the command parser is not loaded" };
  const line = readCommandLine(command);
  if (line.plain === undefined) {
    return { ok: false, why: `an allow rule matches only plain commands, and ${line.notPlain}` };
  }
  for (const c of line.plain) {
    if (c.assignments !== undefined) {
      return {
        ok: false,
        why: `an allow rule never matches a command that sets ${c.assignments[0]} for itself`,
      };
    }
    const matching = specs.filter((r) => commandMatches(r.specifier!, c.words));
    if (matching.length === 0) {
      return { ok: false, why: `${c.words.join(" ")} matches no allow rule` };
    }
    const runner = c.runner;
    if (runner !== undefined && !matching.some((r) => literalPrefix(r.specifier!).length > runner.index)) {
      return {
        ok: false,
        why: `${c.words.join(" ")} runs another command through ${runner.word}, which ${
          matching.map((r) => r.text).join(", ")
        } does not name`,
      };
    }
  }
  return { ok: true };
}

/** Why a deny or ask rule hits the command (undefined: it provably does not). */
export function bashHit(rule: SpecifiedRule, command: string): string | undefined {
  const specifier = rule.specifier!;
  if (!bashParserLoaded()) return "the command parser is not loaded";
  const line = readCommandLine(command);
  if (line.scripts.includes(specifier)) return "";
  const unknowable = line.dynamic === undefined
    ? undefined
    : ` (Blade cannot tell what it runs: ${line.dynamic})`;
  const form = line.forms.find((f) => formMayMatch(specifier, f));
  if (form === undefined) return unknowable;
  if (form.words[0] === undefined && unknowable !== undefined) return unknowable;
  const shown = form.words.map((w) => w ?? "…").join(" ");
  return shown === command.trim() ? "" : ` (it runs ${shown})`;
}

/** One way of reading a simple command a shell would run: its words, and its redirection targets. */
export interface BashForm {
  /** Its words; as written (quotes kept) where a word is built at run time. */
  words: readonly string[];
  targets: readonly string[];
}

/**
 * Everything `command` would run, as deny rules see it (shell/command_line.ts): every command,
 * nested ones and those its runners run included, and `scripts`, the command itself and every
 * script it runs (`bash -c`, `eval`), trimmed. The protected-path check
 * (permissions/protected_paths.ts) reads commands through it too. Empty when the parser is not loaded.
 */
export function bashForms(command: string): { scripts: string[]; forms: BashForm[] } {
  if (!bashParserLoaded()) return { scripts: [command.trim()], forms: [] };
  const line = readCommandLine(command);
  return {
    scripts: line.scripts,
    forms: line.forms.map((f) => ({ words: f.words.map((w, i) => w ?? f.raw[i] ?? ""), targets: f.targets })),
  };
}

/** A specifier's words, quotes removed (rule text is written by the user, not run). */
export function specifierWords(text: string): string[] {
  const words: string[] = [];
  let cur = "";
  let quote: string | undefined;
  const push = () => {
    if (cur !== "") words.push(literalValue(cur) ?? cur);
    cur = "";
  };
  for (const ch of text) {
    if (quote === undefined && /\s/.test(ch)) {
      push();
      continue;
    }
    if (ch === quote) quote = undefined;
    else if (quote === undefined && (ch === "'" || ch === '"')) quote = ch;
    cur += ch;
  }
  push();
  return words;
}

/** The prefix form of a specifier (`git diff:*`, `ls *`), or undefined. */
function prefixOf(specifier: string): string | undefined {
  if (specifier.endsWith(":*")) return specifier.slice(0, -2);
  if (specifier.endsWith(" *") && !specifier.slice(0, -2).includes("*")) return specifier.slice(0, -2);
  return undefined;
}

/** The words a specifier fixes literally, from the start: what a match is sure to begin with. */
function literalPrefix(specifier: string): string[] {
  const prefix = prefixOf(specifier);
  if (prefix !== undefined) return specifierWords(prefix);
  const words = specifierWords(specifier);
  const star = words.findIndex((w) => w.includes("*"));
  return star < 0 ? words : words.slice(0, star);
}

/**
 * Whether a deny or ask specifier may match a command the line runs: words built at run time match
 * any word, and an open command (xargs) may gain the words the specifier wants.
 */
function formMayMatch(specifier: string, form: CommandForm): boolean {
  if (form.words.length === 0) return false;
  const known = !form.open && form.words.every((w) => w !== undefined);
  if (known) return commandMatches(specifier, form.words as string[]);
  const prefix = prefixOf(specifier);
  const exact = prefix === undefined && !specifier.includes("*");
  const want = prefix !== undefined ? specifierWords(prefix) : literalPrefix(specifier);
  if (want.length === 0) return true;
  if (exact && !form.open && form.words.length !== want.length) return false;
  for (let i = 0; i < want.length; i++) {
    if (i >= form.words.length) return form.open;
    const w = form.words[i];
    if (w !== undefined && w !== want[i]) return false;
  }
  return true;
}

/**
 * One Bash specifier against one simple command's words:
 * - `prefix:*` or `prefix *` (nothing else starred): the command's first words are the prefix's words
 *   (whole words: `echo:*` does not match `echox`), anything may follow;
 * - with `*` elsewhere: a wildcard over the words joined by single spaces (`git * main`, `ls*`);
 * - otherwise exact: the same words.
 */
export function commandMatches(specifier: string, words: readonly string[]): boolean {
  const prefix = prefixOf(specifier);
  if (prefix !== undefined) {
    const want = specifierWords(prefix);
    return want.length > 0 && want.length <= words.length && want.every((w, i) => words[i] === w);
  }
  if (specifier.includes("*")) {
    const source = specifier.split("*").map(escapeRegExp).join(".*").replace(/ \.\*$/, "(?: .*)?");
    return new RegExp(`^${source}$`, "s").test(words.join(" "));
  }
  const want = specifierWords(specifier);
  return want.length === words.length && want.every((w, i) => words[i] === w);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
