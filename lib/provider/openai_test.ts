import assert from "node:assert/strict";
import { userText } from "../protocol/messages.ts";
import { realClock } from "../sys/clock.ts";
import {
  fakeHang,
  type FakeOpenAiServer,
  fakeSse,
  fakeStatus,
  fakeTurn,
  startFakeOpenAiServer,
} from "../testing/fake_openai_server.ts";
import { collectEvents, modelRequest, terminalOf, textOfEvents } from "../testing/provider_test_kit.ts";
import { openAiProvider, type OpenAiProviderOptions } from "./openai.ts";

const KEY = "sk-openai-test-secret";

function provider(server: { url: string }, options: Partial<OpenAiProviderOptions> = {}) {
  return openAiProvider({
    baseUrl: `${server.url}/v1`,
    apiKey: KEY,
    clock: realClock(),
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    ...options,
  });
}

const hello = modelRequest([userText("Say hello")], { system: "You are terse." });

Deno.test("openai: streams text with usage and sends a chat-completions request", async () => {
  await using server = startFakeOpenAiServer([
    fakeTurn({ text: "Hello there!", chunks: 2, usage: { inputTokens: 7, outputTokens: 3 } }),
  ]);
  const events = await collectEvents(provider(server).stream(hello));

  assert.deepEqual(events.map((e) => e.type), ["request_started", "text_delta", "text_delta", "done"]);
  assert.deepEqual(terminalOf(events), {
    type: "done",
    message: { role: "assistant", content: [{ type: "text", text: "Hello there!" }] },
    stopReason: "end_turn",
    usage: { inputTokens: 7, outputTokens: 3 },
  });
  const [request] = server.requests;
  assert.equal(request?.path, "/v1/chat/completions");
  assert.equal(request?.headers["authorization"], `Bearer ${KEY}`);
  assert.deepEqual(request?.body, {
    model: "test-model",
    messages: [{ role: "system", content: "You are terse." }, { role: "user", content: "Say hello" }],
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: 1024,
  });
});

Deno.test("openai: without a key no authorization header is sent; max_completion_tokens on request", async () => {
  await using server = startFakeOpenAiServer([fakeTurn({ text: "hi" })]);
  const events = await collectEvents(
    provider(server, { apiKey: "", maxTokensField: "max_completion_tokens" }).stream(hello),
  );
  assert.equal(terminalOf(events).type, "done");
  assert.equal(server.requests[0]?.headers["authorization"], undefined);
  assert.equal(server.requests[0]?.body.max_completion_tokens, 1024);
  assert.equal(server.requests[0]?.body.max_tokens, undefined);
});

Deno.test("openai: tool calls streamed by index, tool results sent as role tool", async () => {
  await using server = startFakeOpenAiServer([fakeTurn({
    text: "Looking.",
    toolCalls: [
      { name: "Read", input: { file_path: "a.md" }, id: "call_a" },
      {
        name: "Task",
        input: { subagent_type: "Explore", description: "find it", prompt: "Find the config loader" },
      },
    ],
  })]);
  const request = modelRequest([
    userText("Fix it"),
    {
      role: "assistant",
      content: [
        { type: "text", text: "Checking." },
        { type: "tool_call", id: "call_0", name: "Glob", input: { pattern: "*" } },
        { type: "tool_call", id: "call_1", name: "Read", input: { file_path: "x" } },
      ],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", callId: "call_0", content: "a.md", isError: false },
        { type: "tool_result", callId: "call_1", content: "ENOENT", isError: true },
      ],
    },
    userText("<background-subagent-completion>{}</background-subagent-completion>", true),
  ], { tools: [{ name: "Read", description: "Read a file", inputSchema: { type: "object" } }] });
  const events = await collectEvents(provider(server).stream(request));

  const calls = events.flatMap((e) => e.type === "tool_call" ? [e.call] : []);
  assert.deepEqual(calls, [
    { type: "tool_call", id: "call_a", name: "Read", input: { file_path: "a.md" } },
    {
      type: "tool_call",
      id: "call_fake_1_1",
      name: "Task",
      input: { subagent_type: "Explore", description: "find it", prompt: "Find the config loader" },
    },
  ]);
  const end = terminalOf(events);
  assert.equal(end.type === "done" && end.stopReason, "tool_use");
  assert.deepEqual(end.type === "done" && end.message.content, [
    { type: "text", text: "Looking." },
    ...calls,
  ]);
  assert.deepEqual(server.requests[0]?.body.messages, [
    { role: "user", content: "Fix it" },
    {
      role: "assistant",
      content: "Checking.",
      tool_calls: [
        { id: "call_0", type: "function", function: { name: "Glob", arguments: '{"pattern":"*"}' } },
        { id: "call_1", type: "function", function: { name: "Read", arguments: '{"file_path":"x"}' } },
      ],
    },
    { role: "tool", tool_call_id: "call_0", content: "a.md" },
    { role: "tool", tool_call_id: "call_1", content: "Error: ENOENT" },
    { role: "user", content: "<background-subagent-completion>{}</background-subagent-completion>" },
  ]);
  assert.deepEqual(server.requests[0]?.body.tools, [
    {
      type: "function",
      function: { name: "Read", description: "Read a file", parameters: { type: "object" } },
    },
  ]);
});

Deno.test("openai: 429 with retry-after-ms, then success", async () => {
  await using server = startFakeOpenAiServer([
    fakeStatus(429, { headers: { "retry-after-ms": "20" }, message: "slow down" }),
    fakeTurn({ text: "ok" }),
  ]);
  const events = await collectEvents(provider(server).stream(hello));
  assert.deepEqual(events.filter((e) => e.type === "retry"), [
    {
      type: "retry",
      attempt: 2,
      delayMs: 20,
      reason: "OpenAI-compatible API returned 429 Too Many Requests: rate_limit_exceeded: slow down",
    },
  ]);
  assert.equal(terminalOf(events).type, "done");
});

Deno.test("openai: 503s until it gives up", async () => {
  await using server = startFakeOpenAiServer([
    fakeStatus(503, { body: "upstream down" }),
    fakeStatus(503, { body: "upstream down" }),
  ]);
  const events = await collectEvents(
    provider(server, { retry: { maxRetries: 1, baseDelayMs: 1 } }).stream(hello),
  );
  assert.deepEqual(terminalOf(events), {
    type: "error",
    error: {
      kind: "server",
      message: "OpenAI-compatible API returned 503 Service Unavailable after 2 attempts: upstream down",
      status: 503,
      attempts: 2,
    },
    stopReason: "error",
    usage: { inputTokens: 0, outputTokens: 0 },
  });
});

Deno.test("openai: a stream cut before finish_reason is a stream error", async () => {
  // role chunk, first text chunk: then the body ends.
  await using server = startFakeOpenAiServer([
    fakeTurn({ text: "Hello there, friend", chunks: 2, cutAfterEvents: 2 }),
  ]);
  const events = await collectEvents(provider(server).stream(hello));
  assert.deepEqual(events.map((e) => e.type), ["request_started", "text_delta", "error"]);
  const end = terminalOf(events);
  assert.equal(
    end.type === "error" && end.error.message,
    "OpenAI-compatible API stream ended before a finish_reason",
  );
});

Deno.test("openai: a body that ends after finish_reason without [DONE] still completes", async () => {
  await using server = startFakeOpenAiServer([fakeTurn({ text: "done", cutAfterEvents: 4 })]);
  const events = await collectEvents(provider(server).stream(hello));
  assert.equal(textOfEvents(events), "done");
  assert.equal(terminalOf(events).type, "done");
});

Deno.test("openai: invalid JSON arguments give inputError; a mid-stream error chunk is an error", async () => {
  await using server = startFakeOpenAiServer([
    fakeTurn({ toolCalls: [{ name: "Edit", rawArguments: "{not json", id: "call_x" }] }),
    fakeTurn({ text: "part", streamError: { type: "server_error", message: "model crashed" } }),
  ]);
  const first = terminalOf(await collectEvents(provider(server).stream(hello)));
  const call = first.type === "done" ? first.message.content[0] : undefined;
  assert.equal(call?.type === "tool_call" && call.name, "Edit");
  assert.deepEqual(call?.type === "tool_call" && call.input, {});
  assert.match(call?.type === "tool_call" ? call.inputError ?? "" : "", /not valid JSON/);

  const second = terminalOf(await collectEvents(provider(server).stream(hello)));
  assert.deepEqual(second.type === "error" && second.error, {
    kind: "server",
    message: "OpenAI-compatible API reported an error mid-stream: model crashed",
    attempts: 1,
  });
});

Deno.test("openai: servers that stream a tool call without index or in one chunk", async () => {
  const chunk = (delta: unknown, finish: string | null = null) => ({
    data: { choices: [{ delta, finish_reason: finish }] },
  });
  await using server = startFakeOpenAiServer([fakeSse([
    chunk({ tool_calls: [{ id: "c1", function: { name: "Read", arguments: '{"file_path":"a"}' } }] }),
    chunk({}, "tool_calls"),
    { data: "[DONE]" },
  ])]);
  const end = terminalOf(await collectEvents(provider(server).stream(hello)));
  assert.deepEqual(end.type === "done" && end.message.content, [
    { type: "tool_call", id: "c1", name: "Read", input: { file_path: "a" } },
  ]);
});

Deno.test("openai: hung server times out; abort mid-stream is prompt", async () => {
  await using server = startFakeOpenAiServer([
    fakeHang(),
    fakeTurn({ text: "Hello there, friend", chunks: 2, stallAfterEvents: 2 }),
  ]);
  const timedOut = terminalOf(
    await collectEvents(provider(server, { requestTimeoutMs: 40, retry: { maxRetries: 0 } }).stream(hello)),
  );
  assert.deepEqual(timedOut.type === "error" && timedOut.error, {
    kind: "timeout",
    message: "OpenAI-compatible API sent no response within 40 ms (request timeout)",
    attempts: 1,
  });

  const controller = new AbortController();
  const events = [];
  for await (const event of provider(server).stream(hello, { signal: controller.signal })) {
    events.push(event);
    if (event.type === "text_delta") controller.abort();
  }
  assert.deepEqual(events.map((e) => e.type), ["request_started", "text_delta", "error"]);
  assert.equal(terminalOf(events).stopReason, "aborted");
});

Deno.test("openai: connection refused never throws", async () => {
  const closed: FakeOpenAiServer = startFakeOpenAiServer();
  await closed.close();
  const end = terminalOf(await collectEvents(provider(closed, { retry: { maxRetries: 0 } }).stream(hello)));
  assert.equal(end.type === "error" && end.error.kind, "network");
  assert.match(
    end.type === "error" ? end.error.message : "",
    /^Could not connect to OpenAI-compatible API at /,
  );
});
