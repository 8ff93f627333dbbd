import assert from "node:assert/strict";
import { promptToolVerdict } from "./permission_prompt_tool.ts";

const INPUT = { command: "npm publish" };
const text = (t: string, isError = false) => ({ content: [{ type: "text", text: t }], isError });

Deno.test("promptToolVerdict: the approval tool's JSON answer; anything else refuses", () => {
  assert.deepEqual(
    promptToolVerdict(
      text('{"behavior":"allow","updatedInput":{"command":"npm publish --dry-run"}}'),
      { input: INPUT, tool: "t" },
    ),
    {
      answer: "allow_once",
      updatedInput: { command: "npm publish --dry-run" },
    },
  );
  assert.deepEqual(promptToolVerdict(text('{"behavior":"allow"}'), { input: INPUT, tool: "t" }), {
    answer: "allow_once",
  });
  assert.deepEqual(
    promptToolVerdict(text('{"behavior":"deny","message":"Not on Fridays."}'), { input: INPUT, tool: "t" }),
    {
      answer: "deny",
      message: "Not on Fridays.",
    },
  );
  for (const bad of [text("yes"), text('{"ok":true}'), text('["allow"]'), text("boom", true)]) {
    const v = promptToolVerdict(bad, { input: INPUT, tool: "mcp__a__b" });
    assert.equal(v.answer, "deny");
    assert.match(v.message ?? "", /approval tool mcp__a__b/);
  }
});
