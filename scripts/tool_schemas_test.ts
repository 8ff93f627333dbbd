import assert from "node:assert/strict";
import { INPUT_SCHEMAS } from "../lib/tools/input_schemas.gen.ts";
import { BUILT_IN_INPUTS } from "../lib/tools/input_zod.ts";
import { coreTools, inputSchemaOf } from "../lib/tools/registry.ts";
import { convert } from "./tool_schemas.ts";

Deno.test("input_schemas.gen.ts is zod's conversion of every built-in tool's schema (else: deno run -A scripts/tool_schemas.ts)", () => {
  assert.deepEqual(Object.keys(INPUT_SCHEMAS).sort(), BUILT_IN_INPUTS.map(([name]) => name).sort());
  for (const [name, schema] of BUILT_IN_INPUTS) assert.deepEqual(INPUT_SCHEMAS[name], convert(schema), name);
});

Deno.test("inputSchemaOf: the tool's JSON Schema (a built-in tool's generated one), as a copy", () => {
  const read = coreTools().find((t) => t.name === "Read")!;
  const first = inputSchemaOf(read);
  assert.deepEqual(first, INPUT_SCHEMAS.Read);
  assert.notEqual(first, INPUT_SCHEMAS.Read);
  assert.deepEqual(inputSchemaOf({ ...read, inputSchema: { type: "object" } }), { type: "object" });
});
