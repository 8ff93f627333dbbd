import assert from "node:assert/strict";
import { BladeError } from "../errors.ts";
import type { AgentDefinition } from "./schema.ts";
import { describeTools, RegistrySnapshot } from "./snapshot.ts";

function agent(name: string, overrides: Partial<AgentDefinition> = {}): AgentDefinition {
  return {
    name,
    description: `${name} description`,
    systemPrompt: "p",
    tools: null,
    disallowedTools: [],
    model: "inherit",
    permissionMode: "inherit",
    maxTurns: null,
    isolation: "none",
    background: false,
    color: null,
    skills: [],
    source: "user",
    path: `/a/${name}.md`,
    ...overrides,
  };
}

Deno.test("get, has, names and list; names sort case-insensitively; later definitions win", () => {
  const snapshot = new RegistrySnapshot("/ws", [
    agent("zeta"),
    agent("Alpha"),
    agent("beta"),
    agent("zeta", { model: "opus" }),
  ]);
  assert.deepEqual(snapshot.names(), ["Alpha", "beta", "zeta"]);
  assert.equal(snapshot.get("zeta")?.model, "opus");
  assert.equal(snapshot.get("alpha"), undefined, "lookup is case-sensitive");
  assert.equal(snapshot.has("beta"), true);
  assert.equal(snapshot.size, 3);
  assert.equal(snapshot.workspace, "/ws");
});

Deno.test("a snapshot is frozen and does not follow changes to its input", () => {
  const input = agent("a", { tools: ["Read"] });
  const snapshot = new RegistrySnapshot("/ws", [input]);
  input.tools?.push("Bash");
  input.description = "changed";
  assert.deepEqual(snapshot.get("a")?.tools, ["Read"]);
  assert.equal(snapshot.get("a")?.description, "a description");
  const stored = snapshot.get("a") as AgentDefinition;
  assert.throws(() => (stored.description = "x"), TypeError);
  assert.throws(() => stored.tools?.push("Bash"), TypeError);
  assert.throws(() => (snapshot.list() as AgentDefinition[]).push(agent("b")), TypeError);
  assert.ok(Object.isFrozen(snapshot));
});

Deno.test("require() throws agent_not_found listing the available names", () => {
  const snapshot = new RegistrySnapshot("/ws", [agent("Explore"), agent("Plan")]);
  assert.equal(snapshot.require("Plan").name, "Plan");
  assert.throws(() => snapshot.require("missing"), (e) => {
    assert.ok(e instanceof BladeError);
    assert.deepEqual(e.toJSON(), {
      code: "agent_not_found",
      message: 'Unknown agent "missing"',
      hint: "Available agents: Explore, Plan",
    });
    return true;
  });
  assert.throws(() => snapshot.require("explore"), /Unknown agent "explore"/);
  assert.throws(
    () => snapshot.require("explore"),
    (e) => (e as BladeError).hint?.startsWith('Did you mean "Explore"?'),
  );
});

Deno.test("describeForModel lists name, description and tools", () => {
  const snapshot = new RegistrySnapshot("/ws", [
    agent("all"),
    agent("none", { tools: [] }),
    agent("some", { tools: ["Glob", "Read", "Bash"], disallowedTools: ["Bash"] }),
    agent("most", { disallowedTools: ["Bash", "Write"] }),
  ]);
  assert.equal(
    snapshot.describeForModel(),
    [
      "Available agent types and the tools they have access to:",
      "- all: all description (Tools: All tools)",
      "- most: most description (Tools: All tools except Bash, Write)",
      "- none: none description (Tools: No tools)",
      "- some: some description (Tools: Glob, Read)",
    ].join("\n"),
  );
  assert.equal(new RegistrySnapshot("/ws", []).describeForModel(), "No subagents available.");
});

Deno.test("describeTools says No tools when the deny list removes every allowed tool", () => {
  assert.equal(describeTools({ tools: ["Bash"], disallowedTools: ["Bash"] }), "No tools");
});
