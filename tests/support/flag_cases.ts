// The flag sweep's cases (tests/flag_sweep_test.ts): every option of `claude --help` 2.1.332 and the
// hidden ones the Agent SDK passes, each once with a sample value, run as `-p "Say hi" --output-format
// json <case>` in a git checkout with one commit. scripts/record_claude_flags.ts runs them through
// Claude Code and records its exit code per case (tests/fixtures/claude/flags/); the test runs them
// through Blade. Files a case names (`prompt.md`) are made in the workspace first.

export interface FlagCase {
  args: string[];
}

/** Files every case's workspace holds. */
export const FLAG_FILES: Record<string, string> = {
  "prompt.md": "Be brief.",
  "settings.json": "{}",
};

const c = (...args: string[]): FlagCase => ({ args });

export const FLAG_CASES: FlagCase[] = [
  c("--add-dir", "."),
  c("--agent", "general-purpose"),
  c("--agents", '{"x":{"description":"d","prompt":"p"}}'),
  c("--allow-dangerously-skip-permissions"),
  c("--allowedTools", "Read"),
  c("--allowed-tools", "Read"),
  c("--append-system-prompt", "x"),
  c("--autocompact", "auto"),
  c("--ax-screen-reader"),
  c("--bg"),
  c("--background"),
  c("--bare"),
  c("--betas", "context-1m-2025-08-07"),
  c("--brief"),
  c("--chrome"),
  c("--cloud"),
  c("--continue"),
  c("-c"),
  c("--dangerously-skip-permissions"),
  c("-d"),
  c("--debug"),
  c("--debug=api"),
  c("--debug-file", "debug.log"),
  c("--desktop"),
  c("--disable-slash-commands"),
  c("--disallowedTools", "Bash"),
  c("--disallowed-tools", "Bash"),
  c("--effort", "high"),
  c("--environment", "ccpool_x"),
  c("--exclude-dynamic-system-prompt-sections"),
  c("--fallback-model", "claude-sonnet-5-5"),
  c("--file", "file_abc:doc.txt"),
  c("--fork-session"),
  c("--forward-subagent-text"),
  c("--from-pr"),
  c("-h"),
  c("--help"),
  c("--ide"),
  c("--include-hook-events"),
  c("--include-partial-messages"),
  c("--input-format", "text"),
  c("--json-schema", '{"type":"object"}'),
  c("--max-budget-usd", "5"),
  c("--mcp-config", '{"mcpServers":{}}'),
  c("--model", "sonnet"),
  c("-n", "my-session"),
  c("--name", "my-session"),
  c("--no-chrome"),
  c("--no-session-persistence"),
  c("--output-format", "json"),
  c("--permission-mode", "auto"),
  c("--permission-mode", "acceptEdits"),
  c("--permission-mode", "manual"),
  c("--permission-mode", "dontAsk"),
  c("--permission-mode", "plan"),
  c("--permission-mode", "bypassPermissions"),
  c("--permission-prompts", "none"),
  c("--permission-prompts", "host"),
  c("--plugin-dir", "."),
  c("--plugin-url", "http://127.0.0.1:1/x.zip"),
  c("-p"),
  c("--print"),
  c("--prompt-suggestions"),
  c("--remote-control"),
  c("--remote-control-session-name-prefix", "x"),
  c("--replay-user-messages"),
  c("--restricted"),
  c("-r", "0b7e2b4e-6a43-4d4e-9d5a-6c1a1d5f0b11"),
  c("--resume", "0b7e2b4e-6a43-4d4e-9d5a-6c1a1d5f0b11"),
  c("--safe-mode"),
  c("--session-id", "0b7e2b4e-6a43-4d4e-9d5a-6c1a1d5f0b12"),
  c("--setting-sources", "user"),
  c("--settings", "settings.json"),
  c("--strict-mcp-config"),
  c("--system-prompt", "x"),
  c("--system-prompt-snapshot", "off"),
  c("--teleport"),
  c("--tmux"),
  c("--tools", "Read"),
  c("--verbose"),
  c("-v"),
  c("--version"),
  c("-w"),
  c("--worktree", "wt1"),
  // Not in `claude --help`, passed by the Agent SDK or documented elsewhere.
  c("--permission-prompt-tool", "mcp__x__y"),
  c("--system-prompt-file", "prompt.md"),
  c("--append-system-prompt-file", "prompt.md"),
  c("--max-turns", "3"),
  c("--await-initialize"),
  c("--thinking=adaptive"),
  c("--thinking=disabled"),
  c("--max-thinking-tokens=1000"),
  c("--thinking-display=summarized"),
  c("--task-budget=1000"),
  c("--session-mirror"),
  c("--project-config-root=."),
  c("--plugin-dir-no-mcp=."),
  c("--managed-settings={}"),
  c("--initialize-fields=settings"),
  c("--resume-session-at=x"),
  c("--resume-drops-turn=true"),
  c("--channels=x"),
  c("--debug-to-stderr"),
  c("--sdk-url=ws://127.0.0.1:1"),
  // Not options at all: both refuse them.
  c("--mcp-debug"),
  c("--no-such-flag-xyz"),
];

/** The option names `claude --help` lists (`--add-dir`, `-c`, …), from its text. */
export function helpOptions(help: string): string[] {
  const options = help.slice(help.indexOf("Options:"), help.indexOf("Commands:"));
  const names = new Set<string>();
  for (const line of options.split("\n")) {
    const m = /^ {2}(-[^\s<[,]+(?:, -[^\s<[,]+)*)/.exec(line);
    if (m === null) continue;
    for (const name of m[1]!.split(", ")) names.add(name.trim());
  }
  return [...names].sort();
}
