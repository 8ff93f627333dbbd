import assert from "node:assert/strict";
import { jsonSchemaValidator, StructuredOutput } from "./structured_output.ts";
import { VERDICT_JSON_SCHEMA } from "../verification/verdict.ts";
import { inputSchemaOf } from "./registry.ts";
import type { ToolContext } from "./tool.ts";

const ctx = {} as ToolContext; // the tool reads nothing from its context

Deno.test("a valid object is accepted once and shown to the model with its schema", async () => {
  const out = new StructuredOutput({ schema: VERDICT_JSON_SCHEMA });
  const tool = out.tool();
  assert.deepEqual(inputSchemaOf(tool), VERDICT_JSON_SCHEMA);
  const value = { verdict: "pass", summary: "All checks passed.", findings: [] };
  const result = await tool.run(value, ctx);
  assert.equal(result.isError, false);
  assert.deepEqual(result.metadata, { structuredOutput: value });
  assert.deepEqual(out.state, { status: "accepted", value });
  assert.equal(out.followUp(), undefined);
});

Deno.test("an invalid object is retried twice with the errors, then rejected", async () => {
  const out = new StructuredOutput({ schema: VERDICT_JSON_SCHEMA });
  const tool = out.tool();
  const bad = { verdict: "ok", summary: "", findings: "none" };
  const first = await tool.run(bad, ctx);
  assert.equal(first.isError, true);
  assert.match(first.content, /correction 1 of 2/);
  assert.match(first.content, /verdict: Invalid option/);
  assert.match(first.content, /summary: Too small/);
  const second = await tool.run(bad, ctx);
  assert.match(second.content, /correction 2 of 2/);
  const third = await tool.run(bad, ctx);
  assert.match(third.content, /rejected: it still does not match/);
  assert.equal(out.state.status, "rejected");
  // A rejected output stays rejected, even for a valid object afterwards.
  const late = await tool.run({ verdict: "pass", summary: "s", findings: [] }, ctx);
  assert.equal(late.isError, true);
  assert.equal(out.followUp(), undefined);
});

Deno.test("a run that ends without the call is asked again at most twice", () => {
  const out = new StructuredOutput({ schema: VERDICT_JSON_SCHEMA, purpose: "your verdict" });
  assert.match(out.followUp() ?? "", /without calling StructuredOutput.*your verdict.*correction 1 of 2/);
  assert.match(out.followUp() ?? "", /correction 2 of 2/);
  assert.equal(out.followUp(), undefined);
  assert.equal(out.state.status, "rejected");
});

Deno.test("an invalid call and a missing call share the two corrections", async () => {
  const out = new StructuredOutput({ schema: VERDICT_JSON_SCHEMA });
  await out.tool().run({ verdict: "pass" }, ctx);
  assert.match(out.followUp() ?? "", /correction 2 of 2/);
  assert.equal(
    (await out.tool().run({ verdict: "fail", summary: "x", findings: ["a"] }, ctx)).isError,
    false,
  );
  assert.equal(out.state.status, "accepted");
});

Deno.test("an unusable schema is a clear error (when first used: zod loads then; --json-schema checks it up front)", async () => {
  await assert.rejects(jsonSchemaValidator({ type: "nonsense" }), /not a usable JSON Schema/);
  const tool = new StructuredOutput({ schema: { type: "nonsense" } }).tool();
  await assert.rejects(tool.run({ a: 1 }, ctx), /not a usable JSON Schema/);
});
