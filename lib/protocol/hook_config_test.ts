import assert from "node:assert/strict";
import { hooksOf, matcherMatches } from "./hook_config.ts";

Deno.test("hooksOf: Claude Code's format into hooks with their source; broken entries named and left out", () => {
  const read = hooksOf({
    PreToolUse: [
      {
        matcher: "Bash",
        hooks: [
          { type: "command", command: "a.sh", timeout: 5 },
          { type: "prompt", prompt: "x", model: "haiku", timeout: 9 },
          { type: "prompt", prompt: "" },
          { type: "agent", prompt: "verify", timeout: 7 },
          { type: "agent", prompt: " " },
          { type: "http", url: "x" },
        ],
      },
      { hooks: [{ type: "command", command: "" }] },
      { matcher: "(", hooks: [{ type: "command", command: "b.sh" }] },
    ],
    Stop: [{ hooks: [{ type: "command", command: "stop.sh" }] }],
    Bogus: [],
    PostToolUse: "nope",
  }, { source: "project", where: ".claude/settings.json" });
  assert.deepEqual(read.hooks, [
    {
      event: "PreToolUse",
      matcher: "Bash",
      run: { command: "a.sh" },
      timeoutSeconds: 5,
      source: "project",
      where: ".claude/settings.json",
    },
    // A `prompt` hook: the model judges the event (lib/hooks/prompt_hook.ts).
    {
      event: "PreToolUse",
      matcher: "Bash",
      run: { prompt: "x", model: "haiku" },
      timeoutSeconds: 9,
      source: "project",
      where: ".claude/settings.json",
    },
    // An `agent` hook: a verifier subagent judges the event (lib/hooks/agent_hook.ts).
    {
      event: "PreToolUse",
      matcher: "Bash",
      run: { agent: "verify", model: undefined },
      timeoutSeconds: 7,
      source: "project",
      where: ".claude/settings.json",
    },
    {
      event: "Stop",
      matcher: undefined,
      run: { command: "stop.sh" },
      timeoutSeconds: undefined,
      source: "project",
      where: ".claude/settings.json",
    },
  ]);
  // The empty prompt, the empty agent prompt, the http hook, the empty command, the bad matcher, Bogus, "nope".
  assert.equal(read.problems.length, 7, read.problems.join("\n"));
  assert.ok(
    read.problems.some((p) =>
      /type "http" is not supported \(only "command", "prompt" and "agent"\)/.test(p)
    ),
    read.problems.join("\n"),
  );
  assert.deepEqual(hooksOf(undefined, { source: "user", where: "u" }), { hooks: [], problems: [] });
  assert.equal(hooksOf([], { source: "user", where: "u" }).problems.length, 1);
});

Deno.test("hooksOf: an agent file's Stop hooks are its run's SubagentStop hooks", () => {
  const read = hooksOf({
    Stop: [{ hooks: [{ type: "command", command: "stop.sh" }] }],
    PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "pre.sh" }] }],
  }, { source: "agent", where: ".claude/agents/checker.md" });
  assert.deepEqual(read.hooks.map((h) => h.event), ["SubagentStop", "PreToolUse"]);
  assert.deepEqual(read.problems, []);
});

Deno.test("matcherMatches: names, A|B, mcp__server__tool, regular expressions, all", () => {
  const cases: [string | undefined, string, boolean][] = [
    [undefined, "Bash", true],
    ["", "Bash", true],
    ["*", "Bash", true],
    ["Bash", "Bash", true],
    ["Bash", "BashOutput", false],
    ["Edit|Write", "Write", true],
    ["Edit|Write", "Read", false],
    ["mcp__github__create_issue", "mcp__github__create_issue", true],
    ["mcp__github__.*", "mcp__github__list", true],
    ["mcp__github__.*", "mcp__gitlab__list", false],
    ["Notebook.*", "NotebookEdit", true],
    ["startup", "startup", true],
    ["(", "(", false],
  ];
  for (const [m, v, want] of cases) assert.equal(matcherMatches(m, v), want, `${m} ${v}`);
});
