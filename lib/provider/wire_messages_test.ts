import assert from "node:assert/strict";
import { userText } from "../protocol/messages.ts";
import { parseToolArguments } from "./tool_arguments.ts";
import { mergeForWire } from "./wire_messages.ts";

Deno.test("mergeForWire: merges same-role runs, drops empty text and empty messages, unhides", () => {
  assert.deepEqual(
    mergeForWire([
      userText("a"),
      userText("hidden notice", true),
      { role: "assistant", content: [{ type: "text", text: "" }] },
      userText("b"),
      { role: "assistant", content: [{ type: "text", text: "c" }] },
      { role: "assistant", content: [{ type: "tool_call", id: "t", name: "Read", input: {} }] },
    ]),
    [
      {
        role: "user",
        content: [{ type: "text", text: "a" }, { type: "text", text: "hidden notice" }, {
          type: "text",
          text: "b",
        }],
      },
      {
        role: "assistant",
        content: [{ type: "text", text: "c" }, { type: "tool_call", id: "t", name: "Read", input: {} }],
      },
    ],
  );
});

Deno.test("parseToolArguments: empty is {}, objects pass, anything else is an inputError", () => {
  assert.deepEqual(parseToolArguments("", "Read"), { input: {} });
  assert.deepEqual(parseToolArguments(' {"a":1} ', "Read"), { input: { a: 1 } });
  const array = parseToolArguments("[1]", "Read");
  assert.deepEqual(array.input, {});
  assert.equal(array.inputError, 'The arguments for tool "Read" must be a JSON object, got: [1]');
  const broken = parseToolArguments('{"a":', "Read");
  assert.deepEqual(broken.input, {});
  assert.match(broken.inputError ?? "", /^The arguments for tool "Read" are not valid JSON \(.+\): \{"a":$/);
});
