// Hook context's system turns on both wires (messages.ts Role "system"): Anthropic gets Claude Code
// 2.1.332's `role: "system"` message — consecutive turns merged, texts joined by a blank line, a string,
// or one cached text block at the tail (tests/fixtures/claude/hooks_events) —, chat completions a system
// message where it stands. And a prompt hook's answer schema as Anthropic's `output_config.format`.

import assert from "node:assert/strict";
import { systemText, userText } from "../protocol/messages.ts";
import { modelRequest } from "../testing/provider_test_kit.ts";
import { anthropicRequestBody } from "./anthropic_wire.ts";
import { openAiRequestBody } from "./openai_wire.ts";

const conversation = [
  userText("Do it."),
  systemText("SessionStart hook additional context: a"),
  systemText("UserPromptSubmit hook success: b"),
];

Deno.test("system turns: Anthropic merges them into one string, cached as one block at the tail", () => {
  const tail = anthropicRequestBody(modelRequest(conversation, { model: "claude-sonnet-5-5" }));
  assert.deepEqual(tail.messages.at(-1), {
    role: "system",
    content: [{
      type: "text",
      text: "SessionStart hook additional context: a\n\nUserPromptSubmit hook success: b",
      cache_control: { type: "ephemeral" },
    }],
  });
  const later = anthropicRequestBody(
    modelRequest([...conversation, { role: "assistant", content: [{ type: "text", text: "Hi." }] }], {
      model: "claude-sonnet-5-5",
    }),
  );
  assert.deepEqual(later.messages[1], {
    role: "system",
    content: "SessionStart hook additional context: a\n\nUserPromptSubmit hook success: b",
  });
  const uncached = anthropicRequestBody(
    modelRequest(conversation, { model: "claude-sonnet-5-5", promptCache: false }),
  );
  assert.equal(
    uncached.messages.at(-1)!.content,
    "SessionStart hook additional context: a\n\nUserPromptSubmit hook success: b",
  );
});

Deno.test("system turns: chat completions get a system message where the turn stands", () => {
  const body = openAiRequestBody(modelRequest(conversation, { system: "S" }));
  assert.deepEqual(body.messages, [
    { role: "system", content: "S" },
    { role: "user", content: "Do it." },
    {
      role: "system",
      content: "SessionStart hook additional context: a\n\nUserPromptSubmit hook success: b",
    },
  ]);
});

Deno.test("outputSchema: Anthropic's output_config.format beside the effort", () => {
  const schema = { type: "object", properties: { ok: { type: "boolean" } } };
  const body = anthropicRequestBody(
    modelRequest([userText("Judge.")], { model: "claude-opus-5-5", outputSchema: schema }),
  );
  assert.deepEqual(body.output_config?.format, { type: "json_schema", schema });
  assert.equal(anthropicRequestBody(modelRequest([userText("x")])).output_config?.format, undefined);
});
