import assert from "node:assert/strict";
import { parseAgentFile } from "./parse.ts";
import { defaultAgentPrompt, renderAgentFile, yamlScalar } from "./render.ts";

Deno.test("plain scalars stay plain; anything YAML could misread is quoted", () => {
  assert.equal(yamlScalar("Reviews diffs, carefully."), "Reviews diffs, carefully.");
  for (const risky of ["Use when: x", "# heading", "yes", "12", "- item", "[a]", " padded", "a'b", "it's"]) {
    assert.equal(yamlScalar(risky), JSON.stringify(risky), risky);
  }
});

Deno.test("rendered files parse back to the same values without diagnostics", async () => {
  const descriptions = ['Use when: the user says "review"', "Line one\nline two", "émoji ✓ #1", "true"];
  for (const description of descriptions) {
    const text = renderAgentFile({
      name: "r",
      description,
      tools: ["Read", "Task(Explore)"],
      model: "claude-sonnet-4-5",
      prompt: "\nDo it.\n",
    });
    const result = await parseAgentFile(text, { path: "x.md", source: "user" });
    assert.equal(result.definition?.description, description.trim());
    assert.deepEqual(result.definition?.tools, ["Read", "Task(Explore)"]);
    assert.equal(result.definition?.model, "claude-sonnet-4-5");
    assert.equal(result.definition?.systemPrompt, "Do it.");
    assert.deepEqual(result.diagnostics.filter((d) => d.severity !== "warning"), []);
  }
});

Deno.test("no tools renders as [] and inherited tools leave the field out", () => {
  assert.match(renderAgentFile({ name: "a", description: "d", tools: [], prompt: "p" }), /^tools: \[\]$/m);
  assert.doesNotMatch(renderAgentFile({ name: "a", description: "d", prompt: "p" }), /tools:/);
  assert.match(defaultAgentPrompt("a", "Does things."), /^You are the "a" agent\. Does things\./);
});
