import assert from "node:assert/strict";
import { silentCommand } from "./hook_response.ts";

Deno.test("silentCommand: Claude Code's noOutputExpected — every command of the line one that prints nothing", () => {
  const table: [string, boolean][] = [
    // Recorded from Claude Code 2.1.332 (tests/fixtures/claude/hooks_tool_response).
    ["mkdir -p made", true],
    ["mv made moved", true],
    ["true", false],
    ["echo out; echo err >&2", false],
    // Its list, whole command lines.
    ["cd src && touch a.txt", true],
    ["rm -f a; ln -s b c", true],
    ["mkdir d && ls d", false],
    ["cp a b | cat", false],
    ["", false],
    ["  \n ", false],
    ["X=1 mkdir d", false],
  ];
  for (const [command, silent] of table) {
    assert.equal(silentCommand(command), silent, JSON.stringify(command));
  }
});
