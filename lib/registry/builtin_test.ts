import assert from "node:assert/strict";
import { parseBuiltins, readAgentFiles } from "../../scripts/embed_agents.ts";
import { builtinAgents } from "./builtin.ts";
import { BUILTIN_AGENT_DEFINITIONS, BUILTIN_AGENT_FILES } from "./builtin_agents.gen.ts";

Deno.test("builtin_agents.gen.ts matches agents/*.md", async () => {
  assert.deepEqual(
    BUILTIN_AGENT_FILES,
    await readAgentFiles(),
    "lib/registry/builtin_agents.gen.ts is stale: run `deno run -A scripts/embed_agents.ts`",
  );
});

Deno.test("builtin_agents.gen.ts holds each built-in's definition as the parser reads its text", async () => {
  assert.deepEqual(
    BUILTIN_AGENT_DEFINITIONS,
    await parseBuiltins(BUILTIN_AGENT_FILES),
    "lib/registry/builtin_agents.gen.ts is stale: run `deno run -A scripts/embed_agents.ts`",
  );
  // Callers get copies: changing one leaves the next load as it was.
  const first = await builtinAgents();
  first.definitions[0]!.tools?.push("Bash");
  assert.deepEqual((await builtinAgents()).definitions, BUILTIN_AGENT_DEFINITIONS);
});

Deno.test("every built-in parses without a single diagnostic", async () => {
  const { definitions, diagnostics } = await builtinAgents();
  assert.deepEqual(diagnostics, []);
  assert.equal(definitions.length, BUILTIN_AGENT_FILES.length);
});

Deno.test("built-ins have the tools, paths and defaults of docs/reference/registry.md", async () => {
  const shape = (await builtinAgents()).definitions.map((d) => ({
    name: d.name,
    path: d.path,
    tools: d.tools,
    disallowedTools: d.disallowedTools,
    model: d.model,
    permissionMode: d.permissionMode,
    isolation: d.isolation,
    background: d.background,
  }));
  const base = {
    disallowedTools: [],
    model: "inherit",
    permissionMode: "inherit",
    isolation: "none",
    background: false,
  };
  const readOnly = ["Glob", "Grep", "Read"];
  assert.deepEqual(shape, [
    { name: "Explore", path: "builtin:Explore.md", tools: readOnly, ...base },
    { name: "Plan", path: "builtin:Plan.md", tools: readOnly, ...base },
    { name: "general-purpose", path: "builtin:general-purpose.md", tools: null, ...base },
    {
      name: "goal-verification",
      path: "builtin:goal-verification.md",
      tools: [...readOnly, "Bash"],
      ...base,
    },
    { name: "review", path: "builtin:review.md", tools: [...readOnly, "Bash"], ...base },
    { name: "verification", path: "builtin:verification.md", tools: [...readOnly, "Bash"], ...base },
  ]);
});

Deno.test("verification agents ask for exactly one verdict line at the end", async () => {
  for (const name of ["verification", "goal-verification"]) {
    const prompt = (await builtinAgents()).definitions.find((d) => d.name === name)?.systemPrompt ?? "";
    assert.equal(prompt.match(/^## Verification Result: PASS$/gm)?.length, 1, name);
    assert.match(prompt, /PARTIAL/, name);
  }
});

Deno.test("callers get their own copies of the built-ins", async () => {
  const first = await builtinAgents();
  first.definitions[0]!.description = "changed";
  assert.notEqual((await builtinAgents()).definitions[0]?.description, "changed");
});
