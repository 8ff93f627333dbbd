import assert from "node:assert/strict";
import { capMode, capTools, MODE_ORDER, narrowerMode } from "./ceiling.ts";
import { PERMISSION_MODES, type PermissionMode } from "../protocol/permission_mode.ts";

// Every (agent, parent) pair: [agent, parent, effective].
const PAIRS: [PermissionMode, PermissionMode, PermissionMode][] = [
  ["plan", "plan", "plan"],
  ["plan", "dontAsk", "plan"],
  ["plan", "default", "plan"],
  ["plan", "autoEdit", "plan"],
  ["plan", "yolo", "plan"],
  ["dontAsk", "plan", "plan"],
  ["dontAsk", "dontAsk", "dontAsk"],
  ["dontAsk", "default", "dontAsk"],
  ["dontAsk", "autoEdit", "dontAsk"],
  ["dontAsk", "yolo", "dontAsk"],
  ["default", "plan", "plan"],
  ["default", "dontAsk", "dontAsk"],
  ["default", "default", "default"],
  ["default", "autoEdit", "default"],
  ["default", "yolo", "default"],
  ["autoEdit", "plan", "plan"],
  ["autoEdit", "dontAsk", "dontAsk"],
  ["autoEdit", "default", "default"],
  ["autoEdit", "autoEdit", "autoEdit"],
  ["autoEdit", "yolo", "autoEdit"],
  ["yolo", "plan", "plan"],
  ["yolo", "dontAsk", "dontAsk"],
  ["yolo", "default", "default"],
  ["yolo", "autoEdit", "autoEdit"],
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
