import assert from "node:assert/strict";
import { notYetWarnings, refusePrintOnly } from "./claude_flags.ts";

Deno.test("notYetWarnings: one line per not-yet-honoured flag, naming it", () => {
  const lines = notYetWarnings({ "no-session-persistence": true, verbose: true, "mcp-config": ["x.json"] });
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /--no-session-persistence/);
});

Deno.test("notYetWarnings: --permission-prompt-tool stdio is honoured with stream-json input (the Agent SDK's canUseTool)", () => {
  assert.deepEqual(notYetWarnings({ "permission-prompt-tool": "stdio", "input-format": "stream-json" }), []);
  assert.match(notYetWarnings({ "permission-prompt-tool": "stdio" })[0]!, /--permission-prompt-tool/);
  // An MCP approval tool is honoured (cli/permission_prompt_tool.ts); another word is not.
  assert.deepEqual(notYetWarnings({ "permission-prompt-tool": "mcp__auth__ask" }), []);
  assert.match(notYetWarnings({ "permission-prompt-tool": "ask" })[0]!, /--permission-prompt-tool/);
});

Deno.test("refusePrintOnly: what Claude Code refuses in print mode is a usage error naming the flag", () => {
  for (const flag of ["bg", "cloud", "desktop", "environment", "file", "teleport"]) {
    assert.throws(
      () => refusePrintOnly({ [flag]: flag === "file" ? ["f"] : true }),
      (e: Error & { exitCode?: number }) => {
        assert.match(e.message, new RegExp(`--${flag}`));
        return e.exitCode === 2;
      },
    );
  }
  assert.throws(() => refusePrintOnly({ tmux: "" }), /--tmux needs --worktree/);
  refusePrintOnly({ tmux: "", worktree: "" });
  refusePrintOnly({ verbose: true, effort: "high" });
});
