// `--json-schema` (docs/guides/migrating-from-claude-code.md): the model returns its answer through the
// StructuredOutput tool; a valid object is `structured_output` in the result, an invalid one gets the
// errors back; after 5 attempts (Claude Code's limit) the run ends with
// error_max_structured_output_retries. A schema that is not JSON is exit 2.

import assert from "node:assert/strict";
import {
  type FakeAnthropicServer,
  fakeTurn,
  startFakeAnthropicServer,
} from "../lib/testing/fake_anthropic_server.ts";
import { bladeSandbox } from "./support/blade.ts";

const env = (server: FakeAnthropicServer) => ({
  ANTHROPIC_BASE_URL: server.url,
  ANTHROPIC_API_KEY: "sk-ant-test",
});

const SCHEMA = JSON.stringify({
  type: "object",
  properties: { answer: { type: "integer" } },
  required: ["answer"],
});

Deno.test("--json-schema: the StructuredOutput object is structured_output in the json result", async () => {
  await using sandbox = await bladeSandbox();
  await using server = startFakeAnthropicServer([
    fakeTurn({ toolCalls: [{ name: "StructuredOutput", input: { answer: 4 } }] }),
    fakeTurn({ text: "Done." }),
  ]);
  const run = await sandbox.run(
    ["-p", "what is 2+2", "--json-schema", SCHEMA, "--output-format", "json"],
    { env: env(server) },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.doesNotMatch(run.stderr, /json-schema/, "no 'not honoured' warning");
  const result = JSON.parse(run.stdout);
  assert.equal(result.is_error, false);
  assert.deepEqual(result.structured_output, { answer: 4 });
  const tools = (server.requests[0]!.body.tools ?? []) as { name: string; input_schema: unknown }[];
  const so = tools.find((t) => t.name === "StructuredOutput");
  assert.ok(so, "the model is given the StructuredOutput tool");
  assert.deepEqual(so.input_schema, JSON.parse(SCHEMA));
});

Deno.test("--json-schema: a schema file works; the stream-json result line carries structured_output", async () => {
  await using sandbox = await bladeSandbox();
  await Deno.writeTextFile(`${sandbox.workspace}/schema.json`, SCHEMA);
  await using server = startFakeAnthropicServer([
    fakeTurn({ toolCalls: [{ name: "StructuredOutput", input: { answer: 7 } }] }),
    fakeTurn({ text: "Done." }),
  ]);
  const run = await sandbox.run(
    ["-p", "seven", "--json-schema", "schema.json", "--output-format", "stream-json", "--verbose"],
    { env: env(server) },
  );
  assert.equal(run.code, 0, run.stderr);
  const last = JSON.parse(run.stdout.trim().split("\n").at(-1)!);
  assert.equal(last.type, "result");
  assert.deepEqual(last.structured_output, { answer: 7 });
});

Deno.test("--json-schema: after 5 invalid objects the run ends at once with error_max_structured_output_retries (as Claude Code)", async () => {
  await using sandbox = await bladeSandbox();
  // The model keeps sending invalid objects: Claude Code 2.1.332 stops after the 5th attempt
  // (tests/fixtures/claude/structured_retries); the run must not go on until --max-turns.
  await using server = startFakeAnthropicServer({
    handler: () => fakeTurn({ toolCalls: [{ name: "StructuredOutput", input: { answer: "four" } }] }),
  });
  const run = await sandbox.run(
    ["-p", "what is 2+2", "--json-schema", SCHEMA, "--output-format", "json", "--max-turns", "50"],
    { env: env(server) },
  );
  assert.equal(run.code, 1, run.stderr);
  const result = JSON.parse(run.stdout);
  assert.equal(result.is_error, true);
  assert.equal(result.subtype, "error_max_structured_output_retries");
  assert.equal(result.terminal_reason, "structured_output_retry_exhausted");
  assert.equal(result.structured_output, undefined);
  assert.equal(result.error.code, "structured_output_retries_exhausted");
  assert.match(
    result.errors[0],
    /^Failed to provide valid structured output after 5 attempts — last StructuredOutput error: .*answer/s,
  );
  assert.equal(server.requests.length, 5, "no request after the 5th rejected object");
  assert.equal(result.num_turns, 6, "counted as Claude Code counts it");
});

Deno.test("--json-schema: MAX_STRUCTURED_OUTPUT_RETRIES sets the number of attempts (Claude Code's variable)", async () => {
  await using sandbox = await bladeSandbox();
  await using server = startFakeAnthropicServer({
    handler: () => fakeTurn({ toolCalls: [{ name: "StructuredOutput", input: { answer: "four" } }] }),
  });
  const run = await sandbox.run(
    ["-p", "what is 2+2", "--json-schema", SCHEMA, "--output-format", "json"],
    { env: { ...env(server), MAX_STRUCTURED_OUTPUT_RETRIES: "2" } },
  );
  assert.equal(run.code, 1, run.stderr);
  const result = JSON.parse(run.stdout);
  assert.equal(result.subtype, "error_max_structured_output_retries");
  assert.match(result.errors[0], /after 2 attempts/);
  assert.equal(server.requests.length, 2);
});

Deno.test("--json-schema: a model that never calls StructuredOutput is asked again, then the run fails", async () => {
  await using sandbox = await bladeSandbox();
  await using server = startFakeAnthropicServer({ handler: () => fakeTurn({ text: "4" }) });
  const run = await sandbox.run(
    ["-p", "what is 2+2", "--json-schema", SCHEMA, "--output-format", "json"],
    { env: env(server) },
  );
  assert.equal(run.code, 1, run.stderr);
  const result = JSON.parse(run.stdout);
  assert.equal(result.is_error, true);
  assert.equal(result.subtype, "error_max_structured_output_retries");
  assert.equal(result.error.code, "structured_output_retries_exhausted");
  assert.equal(server.requests.length, 5, "first answer plus 4 corrective follow-ups");
});

Deno.test("--json-schema: a schema that is not JSON or not a JSON Schema is a usage error (exit 2)", async () => {
  await using sandbox = await bladeSandbox();
  for (const bad of ['{"type": "object",', '{"type": "no-such-type"}', "missing.json"]) {
    const run = await sandbox.run(["-p", "hi", "--json-schema", bad], {
      env: { ANTHROPIC_API_KEY: "sk-ant-test" },
    });
    assert.equal(run.code, 2, `${bad}: ${run.stderr}`);
    assert.match(run.stderr, /--json-schema/, bad);
    assert.doesNotMatch(run.stderr, /at .*\.ts:\d+/, "no stack trace");
  }
});
