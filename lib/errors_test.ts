import assert from "node:assert/strict";
import { BLADE_ERROR_CODES, BladeError, isBladeErrorCode, usageError } from "./errors.ts";

Deno.test("docs/reference/errors.md lists exactly the codes of BladeErrorCode", async () => {
  const doc = await Deno.readTextFile(new URL("../docs/reference/errors.md", import.meta.url));
  const bladeSection = doc.slice(0, doc.indexOf("## Why a run failed"));
  const documented = [...bladeSection.matchAll(/^\|\s*`([a-z_]+)`\s*\|/gm)].map((m) => m[1]!).sort();
  assert.deepEqual(documented, [...BLADE_ERROR_CODES].sort());
});

Deno.test("isBladeErrorCode accepts the closed set only", () => {
  assert.equal(isBladeErrorCode("session_in_use"), true);
  assert.equal(isBladeErrorCode("made_up"), false);
  assert.equal(isBladeErrorCode(undefined), false);
  assert.equal(isBladeErrorCode(42), false);
});

Deno.test("a BladeError serialises as {code, message, hint}; usage errors exit 2", () => {
  const e = usageError('Unknown provider "x".', "Use anthropic, openai or scripted.");
  assert.ok(e instanceof BladeError);
  assert.equal(e.exitCode, 2);
  assert.deepEqual(JSON.parse(JSON.stringify(e)), {
    code: "usage",
    message: 'Unknown provider "x".',
    hint: "Use anthropic, openai or scripted.",
  });
});
