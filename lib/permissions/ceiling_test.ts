import assert from "node:assert/strict";
import { capMode, capTools, childRulesOf, MODE_ORDER, narrowerMode, resumedRulesOf } from "./ceiling.ts";
import { PERMISSION_MODES, type PermissionMode } from "../protocol/permission_mode.ts";

// Every (agent, parent) pair: [agent, parent, effective].
const PAIRS: [PermissionMode, PermissionMode, PermissionMode][] = [
  ["plan", "plan", "plan"],
  ["plan", "dontAsk", "plan"],
  ["plan", "default", "plan"],
  ["plan", "autoEdit", "plan"],
  ["plan", "auto", "plan"],
  ["plan", "yolo", "plan"],
  ["dontAsk", "plan", "plan"],
  ["dontAsk", "dontAsk", "dontAsk"],
  ["dontAsk", "default", "dontAsk"],
  ["dontAsk", "autoEdit", "dontAsk"],
  ["dontAsk", "auto", "dontAsk"],
  ["dontAsk", "yolo", "dontAsk"],
  ["default", "plan", "plan"],
  ["default", "dontAsk", "dontAsk"],
  ["default", "default", "default"],
  ["default", "autoEdit", "default"],
  ["default", "auto", "default"],
  ["default", "yolo", "default"],
  ["autoEdit", "plan", "plan"],
  ["autoEdit", "dontAsk", "dontAsk"],
  ["autoEdit", "default", "default"],
  ["autoEdit", "autoEdit", "autoEdit"],
  ["autoEdit", "auto", "autoEdit"],
  ["autoEdit", "yolo", "autoEdit"],
  ["auto", "plan", "plan"],
  ["auto", "dontAsk", "dontAsk"],
  ["auto", "default", "default"],
  ["auto", "autoEdit", "autoEdit"],
  ["auto", "auto", "auto"],
  ["auto", "yolo", "auto"],
  ["yolo", "plan", "plan"],
  ["yolo", "dontAsk", "dontAsk"],
  ["yolo", "default", "default"],
  ["yolo", "autoEdit", "autoEdit"],
  ["yolo", "auto", "auto"],
  ["yolo", "yolo", "yolo"],
];

Deno.test("the table covers every pair of modes exactly once", () => {
  assert.equal(PAIRS.length, PERMISSION_MODES.length ** 2);
  assert.deepEqual([...MODE_ORDER].sort(), [...PERMISSION_MODES].sort());
  assert.equal(new Set(PAIRS.map(([a, p]) => `${a}/${p}`)).size, PAIRS.length);
});

for (const [agent, parent, effective] of PAIRS) {
  Deno.test(`ceiling: agent ${agent} under parent ${parent} runs as ${effective}`, () => {
    const capped = capMode(agent, parent);
    assert.equal(capped.mode, effective);
    assert.equal(narrowerMode(agent, parent), effective);
    // Reported exactly when the agent asked for more than it got.
    assert.equal(capped.capped !== undefined, effective !== agent);
  });
}

Deno.test("inherit takes the parent's mode; the note names the mode as an agent file writes it", () => {
  for (const parent of PERMISSION_MODES) assert.deepEqual(capMode("inherit", parent), { mode: parent });
  assert.equal(
    capMode("yolo", "plan").capped,
    "permissionMode yolo (bypassPermissions) capped to plan by the parent",
  );
});

Deno.test("a child's tools are a subset of its parent's; Task only if the parent has it", () => {
  const parent = ["Read", "Grep", "Glob", "Task"];
  assert.deepEqual(capTools(["Read", "Write", "Edit", "Glob", "Grep", "Bash", "Task"], parent, false), {
    tools: ["Read", "Glob", "Grep", "Task"],
  });
  assert.deepEqual(capTools(["Read", "Bash"], ["Read"], true), {
    tools: ["Read"],
    capped: "tools Bash not granted: the parent does not have them",
  });
  assert.deepEqual(capTools(["Read", "Task"], ["Read", "Grep"], true).tools, ["Read"]);
});

// ---- Rules: a child's are the intersection of its own and every ancestor's ----

const RUN = { allow: ["Bash(npm test:*)", "Write"], deny: ["Bash(rm:*)"], ask: ["Bash(git push:*)"] };

Deno.test("childRulesOf: deny rules accumulate, tools with specifiers add a layer, allow stays the run's", () => {
  const table: [string, Parameters<typeof childRulesOf>, ReturnType<typeof childRulesOf>][] = [
    ["no parent, no lists", [undefined, { tools: null, disallowedTools: [] }], {
      allow: [],
      deny: [],
      ask: [],
      limits: [],
    }],
    ["the run's rules pass down unchanged", [RUN, { tools: null, disallowedTools: [] }], {
      ...RUN,
      limits: [],
    }],
    ["disallowedTools join the deny rules (whole tools too)", [RUN, {
      tools: null,
      disallowedTools: ["Bash(touch:*)", "mcp__github__create_issue", "WebFetch"],
    }], {
      ...RUN,
      deny: ["Bash(rm:*)", "Bash(touch:*)", "mcp__github__create_issue", "WebFetch"],
      limits: [],
    }],
    ["a tools list without specifiers adds no layer (the tool subset does it)", [RUN, {
      tools: ["Read", "Bash", "Task"],
      disallowedTools: [],
    }], { ...RUN, limits: [] }],
    ["a tools list with a specifier is one layer, whole", [RUN, {
      tools: ["Bash(git status:*)", "Task"],
      disallowedTools: [],
    }], { ...RUN, limits: [["Bash(git status:*)", "Task"]] }],
    ["a parent's layers stay and the child's is added", [
      { ...RUN, deny: [...RUN.deny, "Bash(touch:*)"], limits: [["Edit(docs/**)", "Task"]] },
      { tools: ["Bash(git:*)", "Edit", "Task"], disallowedTools: ["mcp__x__write(*)"] },
    ], {
      ...RUN,
      deny: ["Bash(rm:*)", "Bash(touch:*)", "mcp__x__write(*)"],
      limits: [["Edit(docs/**)", "Task"], ["Bash(git:*)", "Edit", "Task"]],
    }],
    ["an MCP tool named with a specifier limits that tool", [undefined, {
      tools: ["mcp__db__query(select:*)", "Read"],
      disallowedTools: [],
    }], { allow: [], deny: [], ask: [], limits: [["mcp__db__query(select:*)", "Read"]] }],
    ["entries that are not rules are dropped", [undefined, {
      tools: ["Bash(git:*)", "not a rule("],
      disallowedTools: ["(bad"],
    }], { allow: [], deny: [], ask: [], limits: [["Bash(git:*)"]] }],
  ];
  for (const [name, args, want] of table) assert.deepEqual(childRulesOf(...args), want, name);
});

Deno.test("childRulesOf is idempotent: the same definition applied twice adds nothing", () => {
  const agent = { tools: ["Bash(git status:*)", "Task"], disallowedTools: ["Bash(touch:*)"] };
  const once = childRulesOf(RUN, agent);
  assert.deepEqual(childRulesOf(once, agent), once);
});

Deno.test("resumedRulesOf: frozen denies and layers stay; allow is the resuming run's", () => {
  const frozen = {
    allow: ["Bash"],
    deny: ["Bash(touch:*)"],
    ask: [],
    limits: [["Bash(git status:*)", "Task"]],
  };
  assert.deepEqual(resumedRulesOf(frozen, undefined), {
    allow: [],
    deny: ["Bash(touch:*)"],
    ask: [],
    limits: [["Bash(git status:*)", "Task"]],
  });
  assert.deepEqual(resumedRulesOf(frozen, { ...RUN, limits: [["Edit(src/**)"]] }), {
    allow: RUN.allow,
    deny: ["Bash(touch:*)", "Bash(rm:*)"],
    ask: ["Bash(git push:*)"],
    limits: [["Bash(git status:*)", "Task"], ["Edit(src/**)"]],
  });
});
