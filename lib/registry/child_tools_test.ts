import assert from "node:assert/strict";
import { ALWAYS_DENIED_TOOLS, resolveChildTools, toolRuleNotes } from "./child_tools.ts";

const ALL = [
  "Read",
  "Write",
  "Edit",
  "Glob",
  "Grep",
  "Bash",
  "Agent",
  "TaskOutput",
  "TaskStop",
  "EnterWorktree",
];

Deno.test("absent tools inherit everything except the always-denied tools", () => {
  assert.deepEqual(resolveChildTools({ tools: null, disallowedTools: [] }, ALL), {
    allowed: ["Read", "Write", "Edit", "Glob", "Grep", "Bash", "Agent", "TaskOutput", "TaskStop"],
    denied: ["EnterWorktree", "ExitWorktree", "TeamCreate"],
    limits: [],
    denyRules: [],
  });
});

Deno.test("[] means no tools", () => {
  assert.deepEqual(resolveChildTools({ tools: [], disallowedTools: [] }, ALL).allowed, []);
});

Deno.test("allow list keeps the tool table's order and drops unknown names", () => {
  const r = resolveChildTools({ tools: ["Grep", "Read", "WebFetch"], disallowedTools: [] }, ALL);
  assert.deepEqual(r.allowed, ["Read", "Grep"]);
});

Deno.test("deny beats allow, including the always-denied tools", () => {
  const r = resolveChildTools({ tools: ["Read", "Bash", "EnterWorktree"], disallowedTools: ["Bash"] }, ALL);
  assert.deepEqual(r, {
    allowed: ["Read"],
    denied: [...ALWAYS_DENIED_TOOLS, "Bash"],
    limits: [],
    denyRules: [],
  });
});

Deno.test("Task is Agent's older name; a rule in tools grants its tool limited to the rule", () => {
  const r = resolveChildTools({
    tools: ["Task(Explore)", "Bash(git:*)", "Read"],
    disallowedTools: ["Write(*.md)"],
  }, ALL);
  assert.deepEqual(r.allowed, ["Read", "Bash", "Agent"]);
  // An agent file's `tools: Agent` and `tools: Task` both grant the delegation tool (issue 32 item 3).
  for (const name of ["Agent", "Task"]) {
    assert.deepEqual(resolveChildTools({ tools: [name, "Read"], disallowedTools: [] }, ALL).allowed, [
      "Read",
      "Agent",
    ]);
  }
  assert.deepEqual(r.limits.map((l) => l.text), ["Task(Explore)", "Bash(git:*)"]);
  // a deny rule with a specifier refuses matching calls; the tool stays
  assert.deepEqual(r.denyRules.map((l) => l.text), ["Write(*.md)"]);
  assert.ok(r.allowed.includes("Read") && !r.denied.includes("Write"));
  assert.equal(
    resolveChildTools({ tools: null, disallowedTools: ["Task"] }, ALL).allowed.includes("Agent"),
    false,
  );
  // a tool named whole as well as with a rule is not limited
  assert.deepEqual(
    resolveChildTools({ tools: ["Bash", "Bash(git:*)"], disallowedTools: [] }, ALL).limits,
    [],
  );
});

Deno.test("entries that are not rules or name no Blade tool get warnings", () => {
  const notes = toolRuleNotes({ tools: ["Read", "CronCreate", "Bash(npm"], disallowedTools: ["Bsah"] });
  assert.deepEqual(notes.map((n) => [n.field, n.entry]), [
    ["tools", "CronCreate"],
    ["tools", "Bash(npm"],
    ["disallowedTools", "Bsah"],
  ]);
  assert.match(notes[0]!.message, /Blade has no tool named CronCreate/);
});

Deno.test("MCP entries: whole-server names and `mcp__s__*` allow or deny that server's tools only", () => {
  const all = ["Read", "mcp__github__create_issue", "mcp__github__list_issues", "mcp__docs__search"];
  assert.deepEqual(
    resolveChildTools({ tools: ["Read", "mcp__github__*"], disallowedTools: [] }, all).allowed,
    [
      "Read",
      "mcp__github__create_issue",
      "mcp__github__list_issues",
    ],
  );
  assert.deepEqual(resolveChildTools({ tools: ["mcp__docs"], disallowedTools: [] }, all).allowed, [
    "mcp__docs__search",
  ]);
  assert.deepEqual(
    resolveChildTools({ tools: null, disallowedTools: ["mcp__github", "mcp__docs__search"] }, all).allowed,
    ["Read"],
  );
  assert.deepEqual(resolveChildTools({ tools: ["mcp__*", "*"], disallowedTools: [] }, all).allowed, []);
});
