import assert from "node:assert/strict";
import { type Message, userText } from "../protocol/messages.ts";
import { modelRequest } from "../testing/provider_test_kit.ts";
import { anthropicRequestBody, wireBlocks } from "./anthropic_wire.ts";
import { cachesPrompt, messageBreakpoint, systemBlocks } from "./prompt_cache.ts";

const CC = { type: "ephemeral" };

Deno.test("prompt cache: which models cache, by Claude Code's switches", () => {
  const table: [string, string[], boolean][] = [
    ["claude-sonnet-4-5", [], true],
    ["claude-sonnet-4-5", ["*"], false],
    ["claude-sonnet-4-5", ["haiku"], true],
    ["claude-sonnet-4-5", ["sonnet"], false],
    ["claude-haiku-4-5", ["sonnet", "haiku"], false],
    ["claude-opus-4-1", ["haiku", "sonnet"], true],
    ["Claude-OPUS-5-5", ["opus"], false],
    ["my-gateway-model", ["opus", "sonnet", "haiku"], true],
    ["my-gateway-model", ["*"], false],
  ];
  for (const [model, off, want] of table) {
    assert.equal(cachesPrompt(model, off), want, `${model} with ${JSON.stringify(off)}`);
  }
});

Deno.test("prompt cache: the system prompt splits after its first paragraph and joins back unchanged", () => {
  const table: [string, string[]][] = [
    ["", []],
    ["One line.", ["One line."]],
    ["Who.\n\n# Environment\n- x\n\n# Tools", ["Who.", "# Environment\n- x\n\n# Tools"]],
    ["Who.\n\n", ["Who.\n\n"]],
    ["\n\nStarts blank", ["\n\nStarts blank"]],
    ["Two\nlines\n\nrest", ["Two\nlines", "rest"]],
  ];
  for (const [system, want] of table) {
    assert.deepEqual(systemBlocks(system), want, JSON.stringify(system));
    if (system !== "") assert.equal(systemBlocks(system).join("\n\n"), system);
  }
});

Deno.test("prompt cache: the tail's breakpoint skips thinking blocks", () => {
  const table: [string[], number][] = [
    [[], -1],
    [["text"], 0],
    [["tool_result", "text"], 1],
    [["text", "tool_use"], 1],
    [["tool_use", "thinking"], 0],
    [["thinking"], -1],
  ];
  for (const [types, want] of table) {
    assert.equal(messageBreakpoint(types.map((type) => ({ type }))), want, types.join(","));
  }
});

const conversation: Message[] = [
  userText("Fix it"),
  {
    role: "assistant",
    content: [{ type: "text", text: "Reading." }, {
      type: "tool_call",
      id: "toolu_1",
      name: "Read",
      input: { file_path: "a" },
    }],
  },
  { role: "user", content: [{ type: "tool_result", callId: "toolu_1", content: "1\tx", isError: false }] },
];

Deno.test("prompt cache: three breakpoints as Claude Code places them, none on tools", () => {
  const body = anthropicRequestBody(
    modelRequest(conversation, {
      system: "You are Blade.\n\n# Environment\n- Platform: linux",
      tools: [{ name: "Read", description: "Reads a file.", inputSchema: { type: "object" } }],
    }),
  );
  assert.deepEqual(body.system, [
    { type: "text", text: "You are Blade.", cache_control: CC },
    { type: "text", text: "# Environment\n- Platform: linux", cache_control: CC },
  ]);
  assert.deepEqual(body.messages.map((m) => wireBlocks(m).map((b) => "cache_control" in b)), [
    [false],
    [false, false],
    [true],
  ]);
  assert.deepEqual(body.tools, [
    { name: "Read", description: "Reads a file.", input_schema: { type: "object" } },
  ]);
  // The conversation itself is not changed: the next request marks only its own tail.
  const next = anthropicRequestBody(modelRequest([...conversation, userText("More")], { system: "S" }));
  assert.deepEqual(next.messages.map((m) => wireBlocks(m).map((b) => "cache_control" in b)), [
    [false],
    [false, false],
    [false, true],
  ]);
});

Deno.test("prompt cache: switched off for the request's model, no breakpoint anywhere", () => {
  for (const cacheOff of [["*"], ["sonnet"]]) {
    const body = anthropicRequestBody(
      modelRequest(conversation, { system: "A\n\nB", model: "claude-sonnet-4-5" }),
      { cacheOff },
    );
    assert.doesNotMatch(JSON.stringify(body), /cache_control/);
    assert.deepEqual(body.system, [{ type: "text", text: "A" }, { type: "text", text: "B" }]);
  }
  const other = anthropicRequestBody(
    modelRequest(conversation, { system: "A", model: "claude-haiku-4-5" }),
    { cacheOff: ["sonnet"] },
  );
  assert.match(JSON.stringify(other), /cache_control/);
});

Deno.test("prompt cache: a one-shot side request (promptCache: false) carries no breakpoint", () => {
  const body = anthropicRequestBody({
    ...modelRequest(conversation, { system: "A\n\nB" }),
    promptCache: false,
  });
  assert.doesNotMatch(JSON.stringify(body), /cache_control/);
});
