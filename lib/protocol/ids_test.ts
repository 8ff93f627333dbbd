import assert from "node:assert/strict";
import { BladeError } from "../errors.ts";
import { isValidSessionId, validateSessionId } from "./ids.ts";

Deno.test("valid session ids", () => {
  for (const id of ["a", "agent-abc_DEF-123", "_x", "-x", "x.json", "a..b", "a".repeat(200)]) {
    assert.equal(isValidSessionId(id), true, id);
    assert.equal(validateSessionId(id), id);
  }
});

Deno.test("invalid session ids", () => {
  for (
    const id of [".", "..", ".hidden", "../x", "a/b", "a\\b", "", " a", "a b", "a".repeat(201), "é", 7, null]
  ) {
    assert.equal(isValidSessionId(id), false, String(id));
    assert.throws(() => validateSessionId(id), BladeError);
  }
});

Deno.test("the error quotes the id as JSON, cut to 80 characters", () => {
  assert.throws(() => validateSessionId("../x"), {
    code: "invalid_session_id",
    message: 'Invalid session ID: "../x"',
  });
  const long = "a".repeat(201);
  assert.throws(() => validateSessionId(long), {
    code: "invalid_session_id",
    message: `Invalid session ID: "${"a".repeat(79)}`,
  });
  assert.throws(() => validateSessionId(undefined), { message: "Invalid session ID: undefined" });
});
