import assert from "node:assert/strict";
import { claudeArgv } from "./claude_argv.ts";

Deno.test("claudeArgv: space-separated tool rules become repeated flags; a prompt is never swallowed", () => {
  const cases: [string[], string[]][] = [
    [["-p", "hi", "--allowedTools", "Read", "Edit"], [
      "-p",
      "hi",
      "--allowedTools",
      "Read",
      "--allowedTools",
      "Edit",
    ]],
    [["--allowedTools", "Read", "fix the bug"], ["--allowedTools", "Read", "fix the bug"]],
    [["--allowed-tools", "Bash(git diff:*)", "Edit,Write", "-p", "x"], [
      "--allowed-tools",
      "Bash(git diff:*)",
      "--allowed-tools",
      "Edit,Write",
      "-p",
      "x",
    ]],
    [["--tools", "", "-p", "x"], ["--tools", "", "-p", "x"]],
    [["--add-dir", "../lib", "/tmp/x", "explain"], ["--add-dir", "../lib", "--add-dir", "/tmp/x", "explain"]],
    [["--", "--allowedTools", "Read", "Edit"], ["--", "--allowedTools", "Read", "Edit"]],
    // Claude Code users list config files as they are named (`a.json`, no folder), and JSON texts.
    [["--mcp-config", "servers.json", "more.json", '{"mcpServers":{}}', "fix it"], [
      "--mcp-config",
      "servers.json",
      "--mcp-config",
      "more.json",
      "--mcp-config",
      '{"mcpServers":{}}',
      "fix it",
    ]],
    [["--mcp-config", "a.json", "explain"], ["--mcp-config", "a.json", "explain"]],
  ];
  for (const [input, expected] of cases) assert.deepEqual(claudeArgv(input), expected, input.join(" "));
});

Deno.test("claudeArgv: an optional value is taken inline, or from the next word only when it fits", () => {
  const cases: [string[], string[]][] = [
    [["-p", "hi", "--debug"], ["-p", "hi", "--debug="]],
    [["-d", "-p", "hi"], ["--debug=", "-p", "hi"]],
    [["--debug=api,hooks", "-p", "x"], ["--debug=api,hooks", "-p", "x"]],
    [["-d", "!statsig", "-p", "x"], ["--debug=!statsig", "-p", "x"]],
    [["-p", "-d", "explain the code"], ["-p", "--debug=", "explain the code"]],
    [["-w", "-p", "x"], ["--worktree=", "-p", "x"]],
    [["-w", "feature-1", "-p", "x"], ["--worktree=feature-1", "-p", "x"]],
    [["-w=feature-1"], ["--worktree=feature-1"]],
    [["--worktree", "fix the bug"], ["--worktree=", "fix the bug"]],
    [["--from-pr", "123"], ["--from-pr=123"]],
    [["--betas", "a-2025-01-01", "b-2025-02-02", "go"], [
      "--betas",
      "a-2025-01-01",
      "--betas",
      "b-2025-02-02",
      "go",
    ]],
    [["--", "-d", "x"], ["--", "-d", "x"]],
  ];
  for (const [input, expected] of cases) assert.deepEqual(claudeArgv(input), expected, input.join(" "));
});
