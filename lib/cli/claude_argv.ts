// Owns reading a Claude Code command line into the strict form lib/cli/parse_args.ts reads: the
// variadic flags (`--allowedTools Read Edit` → one flag per value) and the flags whose value is
// optional (`--debug`, `--debug=api`, `-d api`, `-w`, `--worktree name`) → `--flag=` / `--flag=value`.
// Unlike Claude Code, a following word is taken only when it can be a value of that flag, so
// `blade -p --allowedTools Read "fix the bug"` keeps its prompt. Pure; table-tested.

/** Flags whose values may be given space-separated, as in Claude Code (`--allowedTools Read Edit`). */
const VARIADIC = new Set([
  "--allowedTools",
  "--allowed-tools",
  "--disallowedTools",
  "--disallowed-tools",
  "--tools",
  "--add-dir",
  "--mcp-config",
  "--betas",
  "--plugin-dir",
  "--plugin-url",
  "--file",
]);

/** A word that can be a tool rule list: `Read`, `Bash(git diff:*)`, `Edit,Write`, `mcp__x__y`. */
const RULE_LIST = /^[A-Za-z_][\w-]*(\([^)]*\))?(\s*,\s*[A-Za-z_][\w-]*(\([^)]*\))?)*$/;
/** A word that can be a folder or file: no spaces, starts like a path. */
const PATH_LIKE = /^(\/|\.{1,2}(\/|$)|~\/)\S*$|^[\w.-]+\/\S*$/;
/** A config file named without a folder (`servers.json`), as Claude Code users pass to --mcp-config. */
const JSON_FILE = /^[\w.-]+\.json$/;
/** A beta header name (`context-1m-2025-08-07`: a date at the end) or a comma-separated list of them. */
const BETA = /^[a-z0-9][a-z0-9.-]*-\d{4}-\d{2}-\d{2}(,[a-z0-9][a-z0-9.-]*-\d{4}-\d{2}-\d{2})*$/;

function variadicValue(flag: string): (word: string) => boolean {
  switch (flag) {
    case "--add-dir":
    case "--plugin-dir":
      return (w) => PATH_LIKE.test(w);
    case "--mcp-config":
      return (w) => PATH_LIKE.test(w) || JSON_FILE.test(w) || w.trim().startsWith("{");
    case "--betas":
      return (w) => BETA.test(w);
    case "--plugin-url":
      return (w) => /^https?:\/\/\S+$/.test(w);
    case "--file":
      return (w) => /^file_\w+:\S+$/.test(w);
    default:
      return (w) => w === "" || RULE_LIST.test(w.trim());
  }
}

/**
 * Flags whose value is optional in Claude Code (`-d, --debug [filter]`), by long name, with the short
 * letter and what a following word must look like to be taken as the value.
 */
export const OPTIONAL_VALUE: Readonly<Record<string, { short?: string; value: RegExp }>> = {
  // Debug categories: `api,hooks` or `!statsig,!file`.
  debug: { short: "d", value: /^!?[a-z][\w-]*(,!?[a-z][\w-]*)*$/ },
  // A worktree name: one safe word.
  worktree: { short: "w", value: /^[A-Za-z0-9][\w.-]{0,99}$/ },
  "from-pr": { value: /^(\d+|https?:\/\/\S+)$/ },
  "remote-control": { value: /^[\w.-]{1,100}$/ },
  "prompt-suggestions": { value: /^(true|false|1|0|yes|no|on|off)$/ },
  cloud: { value: /^[\w.:/-]{1,200}$/ },
  teleport: { value: /^[\w-]{1,200}$/ },
  tmux: { value: /^classic$/ },
};

const SHORT_TO_LONG: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(OPTIONAL_VALUE).flatMap(([long, o]) => o.short === undefined ? [] : [[`-${o.short}`, long]]),
);

/** `--debug` / `-d` → the long name when `arg` is an optional-value flag without an inline value. */
function optionalFlag(arg: string): string | undefined {
  if (arg.startsWith("--") && Object.hasOwn(OPTIONAL_VALUE, arg.slice(2))) return arg.slice(2);
  return SHORT_TO_LONG[arg];
}

/**
 * Rewrites a Claude Code command line for the strict parser: `--flag a b c` → `--flag a --flag b
 * --flag c` for the variadic flags, and an optional-value flag always inline (`--worktree` →
 * `--worktree=`, `-w feature` → `--worktree=feature`, `-d=api` → `--debug=api`).
 */
export function claudeArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") {
      out.push(...argv.slice(i));
      break;
    }
    const shortInline = /^-([a-z])=(.*)$/s.exec(a);
    if (shortInline !== null && SHORT_TO_LONG[`-${shortInline[1]}`] !== undefined) {
      out.push(`--${SHORT_TO_LONG[`-${shortInline[1]}`]}=${shortInline[2]}`);
      continue;
    }
    const optional = optionalFlag(a);
    if (optional !== undefined) {
      const next = argv[i + 1];
      const takes = next !== undefined && !next.startsWith("-") && OPTIONAL_VALUE[optional]!.value.test(next);
      out.push(`--${optional}=${takes ? argv[++i] : ""}`);
      continue;
    }
    out.push(a);
    if (!VARIADIC.has(a)) continue;
    const fits = variadicValue(a);
    if (i + 1 < argv.length) out.push(argv[++i]!);
    while (i + 1 < argv.length && !argv[i + 1]!.startsWith("-") && fits(argv[i + 1]!)) {
      out.push(a, argv[++i]!);
    }
  }
  return out;
}
