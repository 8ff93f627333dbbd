// Tests of the stream-time hints of lib/provider/tool_arguments.ts: the complete string fields a
// call's partial arguments open with (a table), the window they are read in, and both wire folds
// (Anthropic, OpenAI) emitting `tool_call_started` as those fields grow, before the call itself.

import assert from "node:assert/strict";
import { argumentHint, HINT_WINDOW, leadingStringFields } from "./tool_arguments.ts";
import { AnthropicStream } from "./anthropic_stream.ts";
import { OpenAiStream } from "./openai_stream.ts";
import type { AttemptEvent } from "./retry.ts";

Deno.test("leadingStringFields: the complete string fields partial arguments open with", () => {
  const cases: [string, Record<string, string>][] = [
    ["", {}],
    ["[1,", {}],
    ['{"subagent_type": "Exp', {}],
    ['{"subagent_type":"Explore"', {}], // complete only once what follows the value arrived
    ['{"subagent_type":"Explore",', { subagent_type: "Explore" }],
    ['{"subagent_type":"Explore","description":"Find it","prompt":"Look', {
      subagent_type: "Explore",
      description: "Find it",
    }],
    [' {\n "a" : "x\\"y" , "b": 3, "c": "z"}', { a: 'x"y' }], // stops at the first value not a string
    ['{"a":{"b":"c"},"d":"e"}', {}],
    ['{"a":"\\u0041\\n","b', { a: "A\n" }],
    ['{"prompt":"say \\"k\\": \\"v\\",', {}], // a key inside an unfinished value is not a field
    ['{"a":"1","b":"2"}', { a: "1", b: "2" }],
    ['{"a":"1"} and then', { a: "1" }],
  ];
  for (const [partial, fields] of cases) assert.deepEqual(leadingStringFields(partial), fields, partial);
});

Deno.test("argumentHint: only a larger set than already hinted, only in the window", () => {
  assert.deepEqual(argumentHint('{"a":"1",', 0), { a: "1" });
  assert.equal(argumentHint('{"a":"1","b', 1), undefined);
  assert.deepEqual(argumentHint('{"a":"1","b":"2",', 1), { a: "1", b: "2" });
  assert.equal(argumentHint(`{"a":"${"x".repeat(HINT_WINDOW)}",`, 0), undefined);
});

const hints = (events: AttemptEvent[]) => events.filter((e) => e.type === "tool_call_started");

Deno.test("AnthropicStream: tool_call_started while a call's arguments stream, then the call", () => {
  const stream = new AnthropicStream();
  const sse = (data: unknown) => stream.apply({ event: "message", data: JSON.stringify(data) });
  sse({ type: "message_start", message: { usage: { input_tokens: 1 } } });
  sse({
    type: "content_block_start",
    index: 0,
    content_block: { type: "tool_use", id: "toolu_1", name: "Task" },
  });
  const delta = (partial_json: string) =>
    sse({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json } });
  assert.deepEqual(delta('{"subagent_type": "Exp'), []);
  assert.deepEqual(hints(delta('lore", "prompt": "Find ')), [
    { type: "tool_call_started", id: "toolu_1", name: "Task", fields: { subagent_type: "Explore" } },
  ]);
  assert.deepEqual(delta('the entry point"}'), [
    {
      type: "tool_call_started",
      id: "toolu_1",
      name: "Task",
      fields: { subagent_type: "Explore", prompt: "Find the entry point" },
    },
  ]);
  const stop = sse({ type: "content_block_stop", index: 0 });
  assert.deepEqual(stop.map((e) => e.type), ["tool_call"]);
});

Deno.test("OpenAiStream: tool_call_started while a call's arguments stream", () => {
  const stream = new OpenAiStream();
  const chunk = (call: Record<string, unknown>) =>
    hints(stream.apply({
      event: "message",
      data: JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, ...call }] } }] }),
    }));
  assert.deepEqual(chunk({ id: "call_1", function: { name: "Task", arguments: '{"subagent_type":' } }), []);
  assert.deepEqual(chunk({ function: { arguments: '"Plan", "pro' } }), [
    { type: "tool_call_started", id: "call_1", name: "Task", fields: { subagent_type: "Plan" } },
  ]);
});
