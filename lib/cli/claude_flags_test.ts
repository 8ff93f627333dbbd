import assert from "node:assert/strict";
import { expandVariadic, notYetWarnings } from "./claude_flags.ts";

Deno.test("expandVariadic: space-separated tool rules become repeated flags; a prompt is never swallowed", () => {
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
  for (const [input, expected] of cases) assert.deepEqual(expandVariadic(input), expected, input.join(" "));
});

Deno.test("notYetWarnings: one line per not-yet-honoured flag, naming it", () => {
  const lines = notYetWarnings({ "no-session-persistence": true, verbose: true, "mcp-config": ["x.json"] });
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /--no-session-persistence/);
});

Deno.test("notYetWarnings: --permission-prompt-tool stdio is honoured with stream-json input (the Agent SDK's canUseTool)", () => {
  assert.deepEqual(notYetWarnings({ "permission-prompt-tool": "stdio", "input-format": "stream-json" }), []);
  assert.match(notYetWarnings({ "permission-prompt-tool": "stdio" })[0]!, /--permission-prompt-tool/);
  const mcpTool = notYetWarnings({
    "permission-prompt-tool": "mcp__auth__ask",
    "input-format": "stream-json",
  });
  assert.match(mcpTool[0]!, /only stdio, with stream-json input/);
});
