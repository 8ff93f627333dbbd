// Table test of the rule print mode suggests for a refused call: the narrowest rule of the one grammar
// that approves exactly that call (and that the gate then really approves).

import assert from "node:assert/strict";
import { allowingRule, type RefusedCall } from "./allowing_rule.ts";
import { decide } from "./gate.ts";
import { parseRuleList } from "../protocol/tool_rule.ts";
import type { ToolKind } from "../protocol/tool_kind.ts";

const ws = "/ws";
const cases: [string, ToolKind, Omit<RefusedCall, "workspaceRoot">, string | undefined][] = [
  [
    "a command",
    "execute",
    { name: "Bash", input: { command: " git push origin main " } },
    "Bash(git push origin main)",
  ],
  ["a multi-line command", "execute", { name: "Bash", input: { command: "a\nb" } }, undefined],
  ["a command with parentheses", "execute", { name: "Bash", input: { command: "echo (x)" } }, undefined],
  ["a long command", "execute", { name: "Bash", input: { command: "x".repeat(301) } }, undefined],
  [
    "a write in the workspace",
    "write",
    { name: "Write", input: {}, path: "/ws/src/a.ts" },
    "Edit(/src/a.ts)",
  ],
  ["an edit outside it", "write", { name: "Edit", input: {}, path: "/etc/hosts" }, "Edit(//etc/hosts)"],
  ["a notebook", "write", { name: "NotebookEdit", input: {}, path: "/ws/nb.ipynb" }, "Edit(/nb.ipynb)"],
  [
    "a page",
    "network",
    { name: "WebFetch", input: { url: "https://Docs.Example.com/x" } },
    "WebFetch(domain:docs.example.com)",
  ],
  ["a search", "network", { name: "WebSearch", input: { query: "q" } }, "WebSearch"],
  [
    "a delegation by its older name",
    "delegate",
    { name: "Task", input: { subagent_type: "Explore" } },
    "Agent(Explore)",
  ],
  ["an MCP tool", "external", { name: "mcp__gh__create_issue", input: {} }, "mcp__gh__create_issue"],
];

for (const [what, kind, call, rule] of cases) {
  Deno.test(`allowingRule: ${what}`, () => {
    assert.equal(allowingRule({ ...call, workspaceRoot: ws }), rule);
    if (rule === undefined || kind === "delegate") return;
    // The suggested rule does approve the call.
    const name = call.name;
    const decision = decide({
      name,
      kind,
      input: call.input,
      ...(call.path === undefined ? {} : { path: call.path }),
      trusted: true,
      mode: "default",
      rules: { allow: parseRuleList([rule]).rules, deny: [], ask: [] },
      scope: { workspaceRoot: ws },
    });
    assert.ok(
      decision.allow || /protected|may write/.test(decision.message),
      `${rule}: ${JSON.stringify(decision)}`,
    );
  });
}
