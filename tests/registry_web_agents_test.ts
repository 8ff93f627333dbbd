// Real-world shapes of research agents (tests/fixtures/agents_web/, written for this test in the
// shapes public Claude Code agent files take: comma strings, YAML lists, quoted lists, unquoted
// descriptions with ": ", rules in `tools`, MCP names) load from a trusted workspace's .claude/agents
// with every tool they list known, WebFetch and WebSearch included, and their children get those tools.
// The one name Blade does not know is TodoWrite, which Claude Code 2.1.332 no longer has either.

import assert from "node:assert/strict";
import { cp } from "node:fs/promises";
import { loadAgents } from "../lib/registry/load.ts";
import { resolveChildTools } from "../lib/registry/child_tools.ts";
import { BLADE_TOOL_NAMES } from "../lib/protocol/tool_names.ts";
import { realFs } from "../lib/sys/fs.ts";

const FIXTURES = new URL("./fixtures/agents_web/", import.meta.url);

Deno.test("research agents load with WebFetch, WebSearch and their other tools known", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-web-agents-" }));
  try {
    await Deno.mkdir(`${dir}/ws/.claude`, { recursive: true });
    await cp(FIXTURES, new URL(`file://${dir}/ws/.claude/agents/`), { recursive: true });
    const loaded = await loadAgents({
      fs: realFs(),
      home: `${dir}/home`,
      workspace: `${dir}/ws`,
      trusted: true,
    });
    const mine = loaded.agents.filter((a) => a.source === "project-claude");
    assert.equal(mine.length, 10, JSON.stringify(loaded.diagnostics));
    const unknown = loaded.diagnostics.filter((d) => /has no tool named/.test(d.message));
    assert.deepEqual(unknown.map((d) => [d.file.replace(/.*\//, ""), d.message]), [
      ["research-planner.md", '"TodoWrite": Blade has no tool named TodoWrite; the entry has no effect'],
    ]);
    const errors = loaded.diagnostics.filter((d) => d.severity === "error");
    assert.deepEqual(errors, []);
    const granted = Object.fromEntries(mine.map((a) => [
      a.name,
      resolveChildTools({ tools: a.tools, disallowedTools: a.disallowedTools }, [
        ...BLADE_TOOL_NAMES,
        "mcp__brave-search__brave_web_search",
      ]).allowed,
    ]));
    assert.deepEqual(granted, {
      "api-doc-writer": ["Read", "Write", "Edit", "Glob", "NotebookEdit", "WebFetch"],
      "dependency-checker": ["Read", "Bash", "WebSearch", "Agent"],
      "docs-fetcher": ["Read", "Write", "WebFetch"],
      "market-analyst": ["Write", "WebFetch", "WebSearch"],
      "mcp-researcher": ["WebFetch", "WebSearch", "mcp__brave-search__brave_web_search"],
      "research-planner": ["Read", "Glob", "Grep", "WebSearch"],
      "security-auditor": ["Read", "Glob", "Grep", "Bash", "WebFetch", "WebSearch"],
      "seo-reviewer": ["WebFetch", "WebSearch"],
      "tech-scout": ["Read", "Bash", "WebFetch", "WebSearch", "Agent"],
      "web-researcher": ["Read", "Glob", "Grep", "WebFetch", "WebSearch"],
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
