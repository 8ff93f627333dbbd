import assert from "node:assert/strict";
import { coreTools, toolSpecs } from "./registry.ts";

Deno.test("coreTools lists the core tools in a stable order with their kinds", () => {
  assert.deepEqual(coreTools().map((t) => [t.name, t.kind]), [
    ["Read", "read"],
    ["Write", "write"],
    ["Edit", "write"],
    ["Glob", "read"],
    ["Grep", "read"],
    ["Bash", "execute"],
    ["NotebookEdit", "write"],
    ["WebFetch", "network"],
    ["WebSearch", "network"],
  ]);
});

Deno.test("toolSpecs gives JSON Schema objects without $schema, every field described", () => {
  const specs = toolSpecs(coreTools());
  for (const spec of specs) {
    assert.ok(spec.description.length > 100, spec.name);
    assert.equal(spec.inputSchema["$schema"], undefined);
    assert.equal(spec.inputSchema["type"], "object");
    const properties = spec.inputSchema["properties"] as Record<string, { description?: string }>;
    for (const [name, property] of Object.entries(properties)) {
      assert.ok((property.description ?? "").length > 0, `${spec.name}.${name}`);
    }
  }
  const read = specs[0]!;
  assert.deepEqual(read.inputSchema["required"], ["file_path"]);
  assert.deepEqual(Object.keys(read.inputSchema["properties"] as object), ["file_path", "offset", "limit"]);
  const grep = specs.find((s) => s.name === "Grep")!;
  assert.deepEqual(Object.keys(grep.inputSchema["properties"] as object), [
    "pattern",
    "path",
    "glob",
    "output_mode",
    "-B",
    "-A",
    "-C",
    "context",
    "-n",
    "-i",
    "-o",
    "type",
    "head_limit",
    "offset",
    "multiline",
  ]);
});
