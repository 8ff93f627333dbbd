import assert from "node:assert/strict";
import { agentSourceDirs } from "./discover.ts";

Deno.test("trusted workspace: four folders in precedence order", () => {
  assert.deepEqual(agentSourceDirs({ home: "/home/u", workspace: "/ws", trusted: true }), {
    load: [
      { source: "user-claude", dir: "/home/u/.claude/agents" },
      { source: "project-claude", dir: "/ws/.claude/agents" },
      { source: "user", dir: "/home/u/.blade/agents" },
      { source: "project", dir: "/ws/.blade/agents" },
    ],
    untrusted: [],
  });
});

Deno.test("untrusted workspace: project folders are left out and reported", () => {
  assert.deepEqual(
    agentSourceDirs({ home: "/home/u", workspace: "/ws", trusted: false, bladeHome: "/store" }),
    {
      load: [
        { source: "user-claude", dir: "/home/u/.claude/agents" },
        { source: "user", dir: "/store/agents" },
      ],
      untrusted: [
        { source: "project-claude", dir: "/ws/.claude/agents" },
        { source: "project", dir: "/ws/.blade/agents" },
      ],
    },
  );
});

Deno.test("no home: only the storage root and project folders", () => {
  assert.deepEqual(agentSourceDirs({ home: undefined, workspace: "/ws", trusted: true }).load, [
    { source: "project-claude", dir: "/ws/.claude/agents" },
    { source: "project", dir: "/ws/.blade/agents" },
  ]);
});

Deno.test("workspace = home: each folder is read once, as the user source", () => {
  assert.deepEqual(agentSourceDirs({ home: "/home/u", workspace: "/home/u", trusted: false }), {
    load: [
      { source: "user-claude", dir: "/home/u/.claude/agents" },
      { source: "user", dir: "/home/u/.blade/agents" },
    ],
    untrusted: [],
  });
});
