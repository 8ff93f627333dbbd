// Owns what permission rules need to know about a Bash command line (docs/reference/permissions.md
// "How rules read a command"), read from its real bash parse (bash_parser.ts):
// - for allow rules, whether it is a list of plain commands (literal words only: no expansion,
//   substitution, arithmetic, function, compound command, assignment, background job or redirection
//   to a file), and their words; otherwise the first reason it is not;
// - for deny and ask rules, every command it may run, wherever it sits (substitutions, functions,
//   `case` arms, the scripts of `bash -c` and `eval`, the commands of `env`, `xargs`, `find -exec`…),
//   with words built at run time left unknown, and the first reason what it runs cannot be known at all
//   (a command name built at run time, arithmetic on variables, `${x@P}`, a grammar error…).
// Pure once the parser is loaded.

import { type BashNode, parseBash } from "./bash_parser.ts";
import { literalValue } from "./literal_word.ts";
import { innerCommands, runnerWord, type Word } from "./runners.ts";

export type { Word } from "./runners.ts";

/** One plain command of an allowed list: its literal words, and the word that makes it a runner. */
export interface PlainCommand {
  words: string[];
  runner?: { index: number; word: string };
  /** The operator before it (`;`, `&&`, `||`, `|`, `|&`; a newline reads as `;`); absent for the first. */
  separator?: string;
  /** `NAME=value` prefixes with literal values (an allow rule never matches a command that has them). */
  assignments?: string[];
}

/** One command the line may run, as deny rules see it. */
export interface CommandForm {
  /** Its words; undefined where a word is built at run time (matches anything for a deny rule). */
  words: Word[];
  /** More words may be added at run time (xargs appends its input). */
  open: boolean;
  /** Files its redirections name (literal targets; not /dev/null or descriptors). */
  targets: string[];
  /** Its words as written (quotes kept), where known: the source of words built at run time. */
  raw: string[];
}

export interface CommandLine {
  /** The top-level commands when the line is a list of plain commands, else undefined. */
  plain?: PlainCommand[];
  /** Why it is not (set when `plain` is undefined). */
  notPlain?: string;
  /** Every command it may run, its runners' commands included. */
  forms: CommandForm[];
  /** Why what it runs cannot be known in full; undefined when every command is known. */
  dynamic?: string;
  /** The line and every script it runs (`bash -c`, `eval`), trimmed, for rules written as a whole line. */
  scripts: string[];
}

/** How many scripts inside scripts (`bash -c "eval …"`) are read before the line counts as unknowable. */
const MAX_SCRIPT_DEPTH = 6;

/** Redirection targets that write or read nothing of the user's. */
const HARMLESS_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr"]);

/** Variables whose value bash runs or reads as code later (prompts, start-up files, options). */
const CODE_VARIABLES = /^(?:PS[0-4]|PROMPT_COMMAND|BASH_ENV|ENV|SHELLOPTS|BASHOPTS|BASH_FUNC_.*)$/;

/** Builtins that read a word as a variable name, where `a[…]` is evaluated as arithmetic. */
const NAME_BUILTINS = new Set(["printf", "test", "[", "read", "mapfile", "readarray", "wait", "getopts"]);

/** Reads `text`. The parser must be loaded (bash_parser.ts loadBashParser). */
export function readCommandLine(text: string): CommandLine {
  const tree = parseBash(text);
  const state: FormState = { forms: [], scripts: [], dynamic: undefined };
  collectScript(text, 0, state);
  const plain = tree.hasError ? { why: "it does not parse as bash" } : plainList(tree.root);
  const line: CommandLine = { forms: state.forms, scripts: state.scripts };
  if ("why" in plain) line.notPlain = plain.why;
  else line.plain = plain.commands;
  if (state.dynamic !== undefined) line.dynamic = state.dynamic;
  return line;
}

/**
 * Exactly one plain command with literal words and no redirection but to /dev/null or another
 * descriptor: its words; undefined otherwise. For callers that approve a fixed list of read-only
 * commands without a rule (the tools' own list); the parser must be loaded.
 */
export function plainCommandWords(text: string): string[] | undefined {
  const line = readCommandLine(text);
  if (line.plain?.length !== 1) return undefined;
  const [only] = line.plain;
  return only!.runner === undefined && only!.assignments === undefined ? [...only!.words] : undefined;
}

// ---- plain lists (allow rules) ----

type Plain = { commands: PlainCommand[] } | { why: string };

const LIST_OPERATORS = new Set([";", "&&", "||", "|", "|&", "\n"]);

function plainList(root: BashNode): Plain {
  const commands: PlainCommand[] = [];
  let separator: string | undefined;
  const visit = (node: BashNode): string | undefined => {
    if (!node.named) {
      if (node.type === "&") return "it runs a command in the background (&)";
      if (!LIST_OPERATORS.has(node.type)) return `it uses ${node.type}`;
      separator = node.type === "\n" ? ";" : node.type;
      return undefined;
    }
    switch (node.type) {
      case "comment":
        return undefined;
      case "program":
      case "list":
      case "pipeline":
        for (const child of node.children) {
          const why = visit(child);
          if (why !== undefined) return why;
        }
        return undefined;
      case "redirected_statement": {
        const [body, ...redirects] = node.children;
        for (const r of redirects) {
          const why = redirectProblem(r);
          if (why !== undefined) return why;
        }
        return body === undefined ? "it is empty" : visit(body);
      }
      case "command": {
        const c = plainCommand(node);
        if ("why" in c) return c.why;
        if (commands.length > 0) c.separator = separator ?? ";";
        separator = undefined;
        commands.push(c);
        return undefined;
      }
      default:
        return `it uses ${construct(node)}`;
    }
  };
  const why = visit(root);
  if (why !== undefined) return { why };
  return commands.length === 0 ? { why: "it runs no command" } : { commands };
}

function plainCommand(node: BashNode): PlainCommand | { why: string } {
  const words: string[] = [];
  const assignments: string[] = [];
  for (const child of node.children) {
    if (child.type === "variable_assignment") {
      const value = literalValue(child.text);
      if (value === undefined || CODE_VARIABLES.test(value.slice(0, value.indexOf("=")))) {
        return { why: `it sets ${child.text} for the command` };
      }
      assignments.push(value);
      continue;
    }
    if (child.type === "file_redirect" || child.type === "herestring_redirect") {
      const why = redirectProblem(child);
      if (why !== undefined) return { why };
      continue;
    }
    if (!child.named || child.type === "comment") continue;
    const word = child.type === "command_name" ? child.children[0] ?? child : child;
    const value = literalValue(word.text);
    if (value === undefined) return { why: `the word ${word.text} is not a literal (${construct(word)})` };
    words.push(value);
  }
  const nameWord = words[0];
  if (nameWord !== undefined && NAME_BUILTINS.has(nameWord) && words.some((w) => w.includes("["))) {
    return { why: `${nameWord} reads a variable name with a subscript, which bash evaluates as arithmetic` };
  }
  const runner = runnerWord(words);
  const command: PlainCommand = runner === undefined ? { words } : { words, runner };
  if (assignments.length > 0) command.assignments = assignments;
  return command;
}

/** Why a redirection is not plain; undefined for descriptor copies and /dev/null. */
function redirectProblem(node: BashNode): string | undefined {
  if (node.type === "heredoc_redirect") return "it uses a here-document";
  if (node.type === "herestring_redirect") {
    const target = node.children.find((c) => c.named);
    return target !== undefined && literalValue(target.text) !== undefined
      ? undefined
      : `the here-string ${node.text} is not a literal`;
  }
  if (node.type !== "file_redirect") return `it uses ${construct(node)}`;
  const op = node.children.find((c) => !c.named)?.type ?? "";
  const target = node.children.filter((c) => c.named && c.type !== "file_descriptor").at(-1);
  const value = target === undefined ? undefined : literalValue(target.text);
  if (value === undefined) return `the redirection ${node.text} has no literal target`;
  if ((op === ">&" || op === "<&") && /^(?:\d+|-)$/.test(value)) return undefined;
  if (HARMLESS_TARGETS.has(value)) return undefined;
  return `it redirects to a file (${node.text})`;
}

/** A construct's name for messages. */
function construct(node: BashNode): string {
  const names: Record<string, string> = {
    expansion: "parameter expansion ${…}",
    simple_expansion: "parameter expansion $…",
    command_substitution: "command substitution",
    process_substitution: "process substitution",
    arithmetic_expansion: "arithmetic expansion",
    ansi_c_string: "an ANSI-C string $'…'",
    translated_string: 'a translated string $"…"',
    concatenation: "a word built from parts",
    subshell: "a subshell ( … )",
    compound_statement: node.text.startsWith("((") ? "arithmetic (( … ))" : "a command group { … }",
    function_definition: "a function definition",
    if_statement: "a compound command (if)",
    while_statement: "a compound command (while/until)",
    for_statement: "a compound command (for/select)",
    c_style_for_statement: "a compound command (for ((…)))",
    case_statement: "a compound command (case)",
    declaration_command: "a declaration (declare, export, local…)",
    unset_command: "unset",
    test_command: "a test [[ … ]]",
    negated_command: "a negated command (!)",
    variable_assignment: "a variable assignment",
    variable_assignments: "variable assignments",
    heredoc_redirect: "a here-document",
    brace_expression: "brace expansion",
    ERROR: "something bash cannot parse",
  };
  return names[node.type] ?? node.type;
}

// ---- every command (deny rules) ----

interface FormState {
  forms: CommandForm[];
  scripts: string[];
  dynamic: string | undefined;
}

function markDynamic(state: FormState, why: string): void {
  state.dynamic ??= why;
}

function collectScript(text: string, depth: number, state: FormState): void {
  state.scripts.push(text.trim());
  if (depth > MAX_SCRIPT_DEPTH) {
    markDynamic(state, "it nests scripts more than six deep");
    return;
  }
  const tree = parseBash(text);
  if (tree.hasError) markDynamic(state, "part of it does not parse as bash");
  collectNode(tree.root, depth, state);
}

function collectNode(node: BashNode, depth: number, state: FormState): void {
  const why = dynamicConstruct(node);
  if (why !== undefined) markDynamic(state, why);
  if (node.type === "command") collectCommand(node, depth, state);
  if (node.type === "file_redirect") {
    const target = node.children.filter((c) => c.named && c.type !== "file_descriptor").at(-1);
    const value = target === undefined ? undefined : literalValue(target.text);
    const op = node.children.find((c) => !c.named)?.type ?? "";
    const dup = (op === ">&" || op === "<&") && value !== undefined && /^(?:\d+|-)$/.test(value);
    // A target built at run time is kept as written (a glob may still name a protected folder).
    const shown = value ?? target?.text;
    if (!dup && shown !== undefined && !HARMLESS_TARGETS.has(shown)) {
      state.forms.push({ words: [], open: false, targets: [shown], raw: [] });
    }
  }
  for (const child of node.children) collectNode(child, depth, state);
}

function collectCommand(node: BashNode, depth: number, state: FormState): void {
  const words: Word[] = [];
  const raw: string[] = [];
  for (const child of node.children) {
    if (!child.named || child.type === "comment" || child.type === "variable_assignment") continue;
    if (child.type === "file_redirect" || child.type === "herestring_redirect") continue;
    const word = child.type === "command_name" ? child.children[0] ?? child : child;
    words.push(literalValue(word.text));
    raw.push(word.text);
  }
  const [name] = words;
  if (words.length > 0 && name === undefined) {
    markDynamic(state, `the command name ${commandNameText(node)} is built at run time`);
  }
  if (name !== undefined && NAME_BUILTINS.has(name) && wordsText(node).some((w) => w.includes("["))) {
    markDynamic(state, `${name} reads a variable name with a subscript, which bash evaluates as arithmetic`);
  }
  addForm(words, { open: false, raw }, depth, state);
}

/** Records a command and, when it is a runner, what it runs (read again for scripts). */
function addForm(
  words: Word[],
  how: { open: boolean; raw?: string[] },
  depth: number,
  state: FormState,
): void {
  if (words.length === 0) return;
  const raw = how.raw ?? words.map((w) => w ?? "");
  state.forms.push({ words: stripPath(words), open: how.open, targets: [], raw });
  for (const inner of innerCommands(words)) {
    if (inner.kind === "dynamic") markDynamic(state, inner.why);
    else if (inner.kind === "script") collectScript(inner.script, depth + 1, state);
    else if (inner.words.length > 0 && inner.words[0] === undefined) {
      markDynamic(state, "a runner's command name is built at run time");
    } else if (depth <= MAX_SCRIPT_DEPTH) addForm(inner.words, { open: inner.open }, depth + 1, state);
    else markDynamic(state, "it nests command runners more than six deep");
  }
}

/** `/usr/bin/touch` is `touch` to a rule. */
function stripPath(words: Word[]): Word[] {
  const [program, ...rest] = words;
  if (program === undefined || !program.includes("/")) return words;
  return [program.slice(program.lastIndexOf("/") + 1), ...rest];
}

function commandNameText(node: BashNode): string {
  return node.children.find((c) => c.type === "command_name")?.text ?? node.text;
}

function wordsText(node: BashNode): string[] {
  return node.children.filter((c) => c.named && c.type !== "command_name").map((c) => c.text);
}

/** Allowed `${…}` forms: a name, its length, or a default/assign/alternative/error/trim/replace/case operator. */
const PLAIN_EXPANSION =
  /^\$\{#?(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])(?:\}|(?::?[-=+?]|##?|%%?|\/[/#%]?|\^\^?|,,?)[\s\S]*\}$)/;

/** Why a construct makes what the line runs unknowable (bash evaluates text as code), or undefined. */
function dynamicConstruct(node: BashNode): string | undefined {
  switch (node.type) {
    case "ERROR":
    case "MISSING":
      return "part of it does not parse as bash";
    case "expansion":
      return PLAIN_EXPANSION.test(node.text) && !/^\$\{[^}]*@/.test(node.text)
        ? undefined
        : `the expansion ${node.text} may evaluate code (indirection, subscripts, offsets or @ operators)`;
    case "arithmetic_expansion":
    case "c_style_for_statement":
      return arithmeticProblem(node.text);
    case "compound_statement":
      return node.text.startsWith("((") ? arithmeticProblem(node.text) : undefined;
    case "subscript": {
      const index = node.children.filter((c) => c.named).at(-1)?.text ?? "";
      return /^(?:\d+|[@*])$/.test(index)
        ? undefined
        : `the subscript ${node.text} is evaluated as arithmetic, which can run commands`;
    }
    case "test_command":
      return /(?:^|\s)-(?:eq|ne|lt|le|gt|ge|v|R)(?:\s|$)/.test(node.text)
        ? `the test ${node.text} evaluates its operands as arithmetic or variable names`
        : undefined;
    case "declaration_command":
      return /(?:^|\s)[-+][a-zA-Z]*[in]/.test(node.text) || node.text.includes("[")
        ? `${node.text.split(/\s/)[0]} with integer, reference or subscripted names evaluates code`
        : undefined;
    case "unset_command":
      return node.text.includes("[") ? "unset with a subscript evaluates it as arithmetic" : undefined;
    case "variable_assignment": {
      const name = node.children[0]?.text ?? "";
      return CODE_VARIABLES.test(name) ? `it sets ${name}, which bash runs or reads as code` : undefined;
    }
  }
  return undefined;
}

function arithmeticProblem(text: string): string | undefined {
  return /[A-Za-z_$`]/.test(text.replace(/^\$?\(\(|\)\)$|^\$\[|\]$/g, "").replace(/\b0x[0-9a-f]+\b/gi, ""))
    ? `the arithmetic ${text} reads variables, whose values bash evaluates and which can run commands`
    : undefined;
}
