import assert from "node:assert/strict";
import { z } from "zod";
import { INPUT_SCHEMAS } from "../lib/tools/input_schemas.gen.ts";
import { builtInInputSchemas, coreTools, inputSchemaOf } from "../lib/tools/registry.ts";
import { convert } from "./tool_schemas.ts";

Deno.test("input_schemas.gen.ts is zod's conversion of every built-in tool's schema (else: deno run -A scripts/tool_schemas.ts)", () => {
  const builtIn = builtInInputSchemas();
  assert.deepEqual(Object.keys(INPUT_SCHEMAS).sort(), builtIn.map(([name]) => name).sort());
  for (const [name, schema] of builtIn) assert.deepEqual(INPUT_SCHEMAS[name], convert(schema), name);
});

Deno.test("inputSchemaOf: a built-in tool's precomputed schema (a copy); any other schema converted", () => {
  const read = coreTools().find((t) => t.name === "Read")!;
  const first = inputSchemaOf(read);
  assert.deepEqual(first, INPUT_SCHEMAS.Read);
  assert.notEqual(first, INPUT_SCHEMAS.Read);
  const replaced = { ...read, schema: z.object({ path: z.string() }) };
  assert.deepEqual(inputSchemaOf(replaced), convert(replaced.schema));
  assert.deepEqual(inputSchemaOf({ ...read, inputSchema: { type: "object" } }), { type: "object" });
});
