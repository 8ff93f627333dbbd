import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { mcpServerOf, mcpToolName, toolNameMatches } from "./mcp_names.ts";

describe("MCP tool names", () => {
  it("are mcp__<server>__<tool> with characters providers refuse replaced", () => {
    assert.equal(mcpToolName("github", "create_issue"), "mcp__github__create_issue");
    assert.equal(mcpToolName("my.docs", "search docs"), "mcp__my_docs__search_docs");
    assert.equal(mcpServerOf("mcp__github__create_issue"), "github");
    assert.equal(mcpServerOf("Bash"), undefined);
  });

  it("name patterns: exact, server-wide (mcp__s and mcp__s__*), never wider", () => {
    const table: [string, string, boolean][] = [
      ["mcp__github__create_issue", "mcp__github__create_issue", true],
      ["mcp__github", "mcp__github__create_issue", true],
      ["mcp__github__*", "mcp__github__create_issue", true],
      ["mcp__github__create_*", "mcp__github__create_issue", true],
      ["mcp__github__create_*", "mcp__github__list_issues", false],
      ["mcp__github", "mcp__github2__create_issue", false],
      ["mcp__github__*", "mcp__github2__create_issue", false],
      ["mcp__*", "mcp__github__create_issue", false],
      ["*", "mcp__github__create_issue", false],
      ["Bash*", "Bash", false],
      ["Read", "Read", true],
      ["mcp__github", "mcp__github", true],
    ];
    for (const [pattern, name, expected] of table) {
      assert.equal(toolNameMatches(pattern, name), expected, `${pattern} vs ${name}`);
    }
  });
});
