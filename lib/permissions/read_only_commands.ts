// Owns the fixed list of read-only commands Bash may run without an allow rule, in every permission
// mode Claude Code allows them in (default, plan, dontAsk, autoEdit: tests/fixtures/claude/tools/
// read_only_*.json), as documented in docs/reference/tools.md. The caller hands the words of a command
// the real bash parse proved to be exactly one plain command with literal words and no file
// redirection (shell/command_line.ts plainCommandWords); this decides only whether those words are on
// the list and name nothing outside the session's folders (no absolute path elsewhere, no `..`, no
// `~`). Anything else (a pipe, an expansion, a flag that writes, runs a program or names an output
// file) needs a rule as before. Deny rules still win (the gate checks them first), and the command
// runs in the read-only sandbox profile. Pure.

import { isAbsolute, relative, resolve, sep } from "../path.ts";

/** Programs that only read, whatever their (literal) arguments, except the flags listed against them. */
const PROGRAMS: Readonly<Record<string, RegExp | null>> = {
  ls: null,
  pwd: null,
  cat: null,
  head: null,
  tail: null,
  wc: null,
  file: null,
  stat: null,
  du: null,
  df: null,
  which: null,
  whoami: null,
  date: /^(-s|--set)/,
  basename: null,
  dirname: null,
  realpath: null,
  readlink: null,
  tree: /^(-o|--output)/,
  diff: null,
  cmp: null,
  // Flags that write a file or run a program.
  sort: /^(-o|--output|--compress-program)/,
  uniq: null,
  grep: null,
  rg: /^(--pre|--search-zip|-z)/,
  find: /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/,
};

/** Flags of git itself that change where it works or what it runs (`-c`, `--exec-path`, …). */
const GIT_GLOBAL_FLAGS = /^(-c|-C|--exec-path|--git-dir|--work-tree|--namespace|--config-env|--super-prefix)/;

/**
 * git subcommands that only read, each with the flags that would make it write or run something
 * (an output file, an external diff or text conversion, a pager-like program, a branch change).
 */
const GIT: Readonly<Record<string, RegExp | null>> = {
  status: null,
  diff: /^(--output|--ext-diff|--textconv)/,
  log: /^(--output|--ext-diff|--textconv)/,
  show: /^(--output|--ext-diff|--textconv)/,
  blame: /^--contents/,
  "rev-parse": null,
  "ls-files": null,
  // Listing only: any flag that creates, renames, deletes or moves a branch is refused.
  branch:
    /^(-[dDmMcCf]|--delete|--move|--copy|--force|--set-upstream|--unset-upstream|--edit-description|--track|--no-track|-u)/,
};

/** The folders a read-only command may name: the workspace and the `--add-dir` folders. */
export interface ReadScope {
  workspaceRoot: string;
  additionalDirs?: readonly string[];
}

/** Whether `words` (one plain command's literal words) is a command on the read-only list. */
export function isReadOnlyCommand(words: readonly string[], scope: ReadScope): boolean {
  const [program, ...args] = words;
  if (program === undefined || program.includes("/")) return false;
  if (!args.every((a) => staysInside(a, scope))) return false;
  if (program === "git") return readOnlyGit(args);
  if (!Object.hasOwn(PROGRAMS, program)) return false;
  const refused = PROGRAMS[program];
  return refused === null || refused === undefined || !args.some((a) => refused.test(a));
}

/** An argument names no place outside the scope: no `~`, no `..` segment, no absolute path elsewhere. */
function staysInside(arg: string, scope: ReadScope): boolean {
  const value = arg.startsWith("-") ? (arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : "") : arg;
  if (value.startsWith("~") || value.split(/[/:]/).includes("..")) return false;
  // `git show HEAD:/etc/passwd` names a path after the colon.
  const path = value.includes(":/") ? value.slice(value.indexOf(":/") + 1) : value;
  if (!path.startsWith("/")) return true;
  return [scope.workspaceRoot, ...scope.additionalDirs ?? []].some((root) => {
    const rel = relative(root, resolve(path));
    return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
  });
}

function readOnlyGit(args: readonly string[]): boolean {
  const [sub, ...rest] = args;
  if (sub === undefined || GIT_GLOBAL_FLAGS.test(sub) || !Object.hasOwn(GIT, sub)) return false;
  const refused = GIT[sub];
  if (refused !== null && refused !== undefined && rest.some((a) => refused.test(a))) return false;
  // `git branch <name>` creates a branch: only listing forms (flags, or -l/--list with patterns).
  if (sub === "branch") {
    const listing = rest.some((a) => a === "-l" || a === "--list");
    return listing || rest.every((a) => a.startsWith("-"));
  }
  return true;
}

/** The list as docs/reference/tools.md shows it. */
export function readOnlyCommandList(): string[] {
  return [...Object.keys(PROGRAMS), ...Object.keys(GIT).map((s) => `git ${s}`)];
}
