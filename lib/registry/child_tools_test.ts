import assert from "node:assert/strict";
import { ALWAYS_DENIED_TOOLS, parseToolEntry, resolveChildTools } from "./child_tools.ts";

const ALL = [
  "Read",
  "Write",
  "Edit",
  "Glob",
  "Grep",
  "Bash",
  "Task",
  "TaskOutput",
  "TaskStop",
  "EnterWorktree",
];

Deno.test("absent tools inherit everything except the always-denied tools", () => {
  assert.deepEqual(resolveChildTools({ tools: null, disallowedTools: [] }, ALL), {
    allowed: ["Read", "Write", "Edit", "Glob", "Grep", "Bash", "Task", "TaskOutput", "TaskStop"],
    denied: ["EnterWorktree", "ExitWorktree", "TeamCreate"],
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
  assert.deepEqual(r, { allowed: ["Read"], denied: [...ALWAYS_DENIED_TOOLS, "Bash"] });
});

Deno.test("Claude Code's Agent is Blade's Task; rules narrow but never widen", () => {
  assert.deepEqual(parseToolEntry(" Agent(Explore, Plan) "), { tool: "Task", rule: "Explore, Plan" });
  assert.deepEqual(parseToolEntry("Read"), { tool: "Read", rule: undefined });
  const r = resolveChildTools({
    tools: ["Agent(Explore)", "Bash(git:*)", "Read"],
    disallowedTools: ["Write(*.md)"],
  }, ALL);
  assert.deepEqual(r.allowed, ["Read", "Task"]);
  assert.ok(r.denied.includes("Write"));
  assert.deepEqual(
    resolveChildTools({ tools: null, disallowedTools: ["Agent"] }, ALL).allowed.includes("Task"),
    false,
  );
});
