// Owns the folders whose contents change what later runs do (docs/guides/permissions.md "Protected
// paths"): `.blade/` and `.claude/` (agent definitions and settings the next session loads), `.git/`
// (hooks and config that git, which Blade runs, executes) and `.mcp.json` (servers the next session starts). Writing them needs permission mode yolo or
// an explicit allow rule; the gate asks this module. A Bash command is read through the rule grammar
// (protocol/tool_rule.ts bashForms): one whose redirections or arguments name such a path, or that
// changes git's configuration, is protected the same way. Blade's storage root is protected by the
// write path rules (tools/paths.ts). Pure: paths arrive real and absolute.

import { isAbsolute, relative, resolve, sep } from "../path.ts";
import { compileGlob, expandBraces, hasMagic } from "../protocol/glob_pattern.ts";
import { bashForms } from "../protocol/tool_rule.ts";

const PROTECTED: Readonly<Record<string, string>> = {
  ".blade": "it is inside .blade/, whose agent definitions and settings later sessions load",
  ".claude": "it is inside .claude/, whose agent definitions and settings later sessions load",
  ".git": "it is inside .git/, whose hooks and config git runs (and Blade runs git)",
  ".mcp.json": "it is .mcp.json, whose MCP servers later sessions start",
};

/** The protected folder name `path` lies in (`.git`, `.claude`, `.blade`) or is (`.mcp.json`), or undefined. */
export function protectedFolderOf(path: string, workspaceRoot: string): string | undefined {
  const rel = relative(workspaceRoot, path);
  const parts = rel.startsWith("..") ? path.split(sep) : rel.split(sep);
  // The last part is the file itself: a file named `.git` (a worktree's pointer) is protected too.
  for (const part of parts) {
    if (Object.hasOwn(PROTECTED, part)) return part;
    const globbed = globbedFolder(part);
    if (globbed !== undefined) return globbed;
  }
  return undefined;
}

/**
 * The protected folder a shell glob in one path part may expand to (`.g*`, `.gi?`, `.[c]laude`), or
 * undefined. Like the shell, a glob names a dot folder only when it starts with a literal dot, so `*`
 * alone does not name `.git`. Meant for Bash words; a tool path literally named `.g*` is protected too.
 */
function globbedFolder(part: string): string | undefined {
  if (!part.startsWith(".") || !hasMagic(part)) return undefined;
  const glob = compileGlob(part);
  return Object.keys(PROTECTED).find((name) => glob.matches(name));
}

/** Why a write to `path` is protected, or undefined when it is not. */
export function protectedPathReason(path: string, workspaceRoot: string): string | undefined {
  const folder = protectedFolderOf(path, workspaceRoot);
  return folder === undefined ? undefined : PROTECTED[folder];
}

/** What a Bash command may change that is protected. */
export interface ProtectedTarget {
  /** The path as the command names it (absolute, resolved against the workspace), or `git config`. */
  path: string;
  /** What an allow rule must name to approve it anyway: the folder (`.git`), or `git config`. */
  named: string;
  reason: string;
}

/**
 * Programs that never write the files their arguments name (they print or read them): naming a
 * protected path in them writes nothing; their redirections are still checked.
 */
const NON_WRITERS = new Set([
  "echo",
  "printf",
  "test",
  "[",
  "cat",
  "head",
  "tail",
  "less",
  "more",
  "wc",
  "stat",
  "file",
  "ls",
  "tree",
  "du",
  "diff",
  "cmp",
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "readlink",
  "realpath",
  "basename",
  "dirname",
  "md5sum",
  "sha256sum",
]);

/** `git config` options and subcommands that only read. */
const GIT_CONFIG_READS = new Set([
  "--get",
  "--get-all",
  "--get-regexp",
  "--get-urlmatch",
  "--get-color",
  "--get-colorbool",
  "--list",
  "-l",
  "get",
  "list",
]);

/**
 * The first protected path a Bash command may write: a redirection target or an argument inside
 * `.git/`, `.claude/` or `.blade/` (of any program but a pure reader), or a `git config` that sets
 * something; `cd .git` is such an argument, so what follows it is covered, and a glob or brace that
 * may expand to a protected name (`.g*`, `.{git,x}`) counts as naming it. Text, not a sandbox: a name
 * built at run time (`cd "$D"`, `$(printf .git)`) or a script that writes there is not seen; the mode
 * and Deno are the boundary. Undefined when none.
 */
export function protectedCommandTarget(command: string, workspaceRoot: string): ProtectedTarget | undefined {
  for (const form of bashForms(command).forms) {
    const [program, ...args] = form.words;
    const named = [...form.targets, ...(program !== undefined && NON_WRITERS.has(program) ? [] : args)];
    for (const word of named) {
      for (const candidate of pathsIn(word)) {
        const path = isAbsolute(candidate) ? resolve(candidate) : resolve(workspaceRoot, candidate);
        const folder = protectedFolderOf(path, workspaceRoot);
        if (folder !== undefined) return { path, named: folder, reason: PROTECTED[folder]! };
      }
    }
    if (program === "git" && setsGitConfig(args)) {
      return {
        path: "git config",
        named: "git config",
        reason: "it changes git's configuration, which git (and Blade) run with",
      };
    }
  }
  return undefined;
}

/**
 * The paths a word may name: itself and, for `--option=value` or `name=value`, its value, each with its
 * brace expansions (`.{git,x}/config` names `.git/config`), as the shell expands braces before globs.
 */
function pathsIn(word: string): string[] {
  const eq = word.indexOf("=");
  const words = eq > 0 ? [word, word.slice(eq + 1)] : [word];
  return words.flatMap((w) => (w.includes("{") ? [...new Set([...expandBraces(w), w])] : [w]));
}

/** `git [global options] config …` that is not a read. */
function setsGitConfig(args: readonly string[]): boolean {
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-")) i += ["-C", "-c"].includes(args[i]!) ? 2 : 1;
  if (args[i] !== "config") return false;
  const rest = args.slice(i + 1);
  if (rest.some((a) => GIT_CONFIG_READS.has(a))) return false;
  // `git config name` reads; `git config name value`, `--unset`, `--add`, `set`, `--edit` write.
  const positional = rest.filter((a) => !a.startsWith("-"));
  return positional.length !== 1 || rest.some((a) => a.startsWith("--unset") || a === "--edit" || a === "-e");
}
