// Owns the Claude Code headless flags Blade accepts beyond its own (docs/guides/migrating-from-claude-code.md):
// their parseArgs table, the variadic forms (`--allowedTools Read Edit`), and the flags Blade accepts but
// cannot honour yet — each warns with one line naming it, never exit 2. `--mcp-config` and
// `--strict-mcp-config` are honoured by the MCP layer (cli/mcp_wiring.ts).

/** parseArgs options for the Claude Code flags (merged into the run options of -p and run). */
export const CLAUDE_OPTIONS = {
  verbose: { type: "boolean" },
  "include-partial-messages": { type: "boolean" },
  "input-format": { type: "string" },
  "replay-user-messages": { type: "boolean" },
  "session-id": { type: "string" },
  "fork-session": { type: "boolean" },
  settings: { type: "string" },
  "add-dir": { type: "string", multiple: true },
  "system-prompt-file": { type: "string" },
  "append-system-prompt-file": { type: "string" },
  "fallback-model": { type: "string" },
  "json-schema": { type: "string" },
  tools: { type: "string", multiple: true },
  "max-budget-usd": { type: "string" },
  "no-session-persistence": { type: "boolean" },
  agent: { type: "string" },
  "dangerously-skip-permissions": { type: "boolean" },
  // The Agent SDK's allowDangerouslySkipPermissions: a later set_permission_mode may go up to
  // bypassPermissions (cli/sdk_session.ts); it grants nothing by itself.
  "allow-dangerously-skip-permissions": { type: "boolean" },
  "setting-sources": { type: "string" },
  "mcp-config": { type: "string", multiple: true },
  "strict-mcp-config": { type: "boolean" },
  "permission-prompt-tool": { type: "string" },
  // No memory, commands, skills, output styles or MCP servers from files (cli/context_wiring.ts).
  bare: { type: "boolean" },
} as const;

/** Flags Blade accepts and does not honour yet, with what happens instead (the warning's text). */
export const NOT_YET_HONOURED: Readonly<Record<string, string>> = {
  "permission-prompt-tool":
    "MCP permission prompts are not supported yet (only stdio, with stream-json input); refused calls are refused",
  "no-session-persistence": "Blade always saves the session (its transcript is what makes runs durable)",
  "setting-sources": "every settings file Blade reads applies (project files only in a trusted folder)",
};

/** The warning lines for the not-yet-honoured flags present in `values`. */
export function notYetWarnings(values: Record<string, unknown>): string[] {
  // `--permission-prompt-tool stdio` with stream-json input is the Agent SDK's canUseTool: honoured.
  const sdkPrompts = values["permission-prompt-tool"] === "stdio" && values["input-format"] === "stream-json";
  return Object.entries(NOT_YET_HONOURED)
    .filter(([flag]) => values[flag] !== undefined && values[flag] !== false)
    .filter(([flag]) => !(sdkPrompts && flag === "permission-prompt-tool"))
    .map(([flag, what]) => `blade: warning: --${flag} is accepted but not honoured yet: ${what}.\n`);
}

/** Flags whose values may be given space-separated, as in Claude Code (`--allowedTools Read Edit`). */
const VARIADIC = new Set([
  "--allowedTools",
  "--allowed-tools",
  "--disallowedTools",
  "--disallowed-tools",
  "--tools",
  "--add-dir",
  "--mcp-config",
]);

/** A word that can be a tool rule list: `Read`, `Bash(git diff:*)`, `Edit,Write`, `mcp__x__y`. */
const RULE_LIST = /^[A-Za-z_][\w-]*(\([^)]*\))?(\s*,\s*[A-Za-z_][\w-]*(\([^)]*\))?)*$/;
/** A word that can be a folder or file: no spaces, starts like a path. */
const PATH_LIKE = /^(\/|\.{1,2}(\/|$)|~\/)\S*$|^[\w.-]+\/\S*$/;
/** A config file named without a folder (`servers.json`), as Claude Code users pass to --mcp-config. */
const JSON_FILE = /^[\w.-]+\.json$/;

/**
 * Rewrites `--flag a b c` into `--flag a --flag b --flag c` for the variadic flags. Unlike Claude Code,
 * a following word is taken only when it can be a value of that flag (a tool rule, or a path for
 * --add-dir/--mcp-config), so `blade -p --allowedTools Read "fix the bug"` keeps its prompt.
 */
export function expandVariadic(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    out.push(a);
    if (a === "--") {
      out.push(...argv.slice(i + 1));
      break;
    }
    if (!VARIADIC.has(a)) continue;
    const fits = a === "--add-dir"
      ? (w: string) => PATH_LIKE.test(w)
      : a === "--mcp-config"
      ? (w: string) => PATH_LIKE.test(w) || JSON_FILE.test(w) || w.trim().startsWith("{")
      : (w: string) => w === "" || RULE_LIST.test(w.trim());
    if (i + 1 < argv.length) out.push(argv[++i]!);
    while (i + 1 < argv.length && !argv[i + 1]!.startsWith("-") && fits(argv[i + 1]!)) {
      out.push(a, argv[++i]!);
    }
  }
  return out;
}
