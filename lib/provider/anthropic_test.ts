import assert from "node:assert/strict";
import { userText } from "../protocol/messages.ts";
import { realClock } from "../sys/clock.ts";
import {
  type FakeAnthropicServer,
  fakeHang,
  fakeStatus,
  fakeTurn,
  startFakeAnthropicServer,
} from "../testing/fake_anthropic_server.ts";
import { collectEvents, modelRequest, terminalOf, textOfEvents } from "../testing/provider_test_kit.ts";
import { anthropicProvider, type AnthropicProviderOptions } from "./anthropic.ts";

const KEY = "sk-ant-test-secret-key";

function provider(server: { url: string }, options: Partial<AnthropicProviderOptions> = {}) {
  return anthropicProvider({
    baseUrl: server.url,
    apiKey: KEY,
    clock: realClock(),
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    ...options,
  });
}

const hello = modelRequest([userText("Say hello")], { system: "You are terse." });

Deno.test("anthropic: streams text and sends the Messages API request", async () => {
  await using server = startFakeAnthropicServer([
    fakeTurn({ text: "Hello there, how are you today?", chunks: 3 }),
  ]);
  const events = await collectEvents(provider(server).stream(hello));

  assert.deepEqual(events.map((e) => e.type), [
    "request_started",
    "text_delta",
    "text_delta",
    "text_delta",
    "done",
  ]);
  assert.equal(textOfEvents(events), "Hello there, how are you today?");
  assert.deepEqual(terminalOf(events), {
    type: "done",
    message: { role: "assistant", content: [{ type: "text", text: "Hello there, how are you today?" }] },
    stopReason: "end_turn",
    usage: { inputTokens: 10, outputTokens: 8 },
  });
  const [request] = server.requests;
  assert.equal(request?.path, "/v1/messages");
  assert.equal(request?.headers["x-api-key"], KEY);
  assert.equal(request?.headers["anthropic-version"], "2023-06-01");
  assert.equal(request?.headers["content-type"], "application/json");
  // An id Claude Code does not know gets its custom-model fields (config/models.ts).
  assert.equal(
    request?.headers["anthropic-beta"],
    "interleaved-thinking-2025-05-14,context-management-2025-06-27,effort-2025-11-24",
  );
  assert.deepEqual(request?.body, {
    model: "test-model",
    max_tokens: 1024,
    thinking: { type: "adaptive", display: "omitted" },
    context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
    output_config: { effort: "high" },
    system: "You are terse.",
    messages: [{ role: "user", content: [{ type: "text", text: "Say hello" }] }],
    stream: true,
  });
});

Deno.test("anthropic: tool use round trip, with merged roles and tool results first", async () => {
  await using server = startFakeAnthropicServer([fakeTurn({
    text: "Reading both.",
    toolCalls: [
      { name: "Read", input: { file_path: "a.md" }, id: "toolu_1" },
      { name: "Grep", input: { pattern: "x", glob: "*.ts" }, id: "toolu_2" },
    ],
  })]);
  const request = modelRequest([
    userText("Fix the bug"),
    userText("(also check the tests)"),
    {
      role: "assistant",
      content: [{ type: "tool_call", id: "toolu_0", name: "Glob", input: { pattern: "*" } }],
    },
    {
      role: "user",
      content: [
        { type: "text", text: "" },
        { type: "tool_result", callId: "toolu_0", content: "no such dir", isError: true },
      ],
    },
    userText("<background-subagent-completion>{}</background-subagent-completion>", true),
  ], {
    tools: [{ name: "Read", description: "Read a file", inputSchema: { type: "object", properties: {} } }],
  });
  const events = await collectEvents(provider(server).stream(request));

  const calls = events.flatMap((e) => e.type === "tool_call" ? [e.call] : []);
  assert.deepEqual(calls, [
    { type: "tool_call", id: "toolu_1", name: "Read", input: { file_path: "a.md" } },
    { type: "tool_call", id: "toolu_2", name: "Grep", input: { pattern: "x", glob: "*.ts" } },
  ]);
  assert.deepEqual(terminalOf(events), {
    type: "done",
    message: { role: "assistant", content: [{ type: "text", text: "Reading both." }, ...calls] },
    stopReason: "tool_use",
    usage: { inputTokens: 10, outputTokens: 4 },
  });
  assert.deepEqual(server.requests[0]?.body.messages, [
    {
      role: "user",
      content: [{ type: "text", text: "Fix the bug" }, { type: "text", text: "(also check the tests)" }],
    },
    {
      role: "assistant",
      content: [{ type: "tool_use", id: "toolu_0", name: "Glob", input: { pattern: "*" } }],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_0", content: "no such dir", is_error: true },
        { type: "text", text: "<background-subagent-completion>{}</background-subagent-completion>" },
      ],
    },
  ]);
  assert.deepEqual(server.requests[0]?.body.tools, [
    { name: "Read", description: "Read a file", input_schema: { type: "object", properties: {} } },
  ]);
  assert.equal(server.requests[0]?.body.system, undefined);
});

Deno.test("anthropic: 429 then 529, honouring retry-after and retry-after-ms, then success", async () => {
  await using server = startFakeAnthropicServer([
    fakeStatus(429, { headers: { "retry-after": "0" } }),
    fakeStatus(529, { headers: { "retry-after-ms": "30" } }),
    fakeTurn({ text: "finally" }),
  ]);
  const events = await collectEvents(provider(server).stream(hello));

  assert.deepEqual(events.filter((e) => e.type === "retry"), [
    {
      type: "retry",
      attempt: 2,
      delayMs: 0,
      reason: "Anthropic API returned 429 Too Many Requests: rate_limit_error: fake Anthropic server: 429",
    },
    {
      type: "retry",
      attempt: 3,
      delayMs: 30,
      reason: "Anthropic API returned 529 Overloaded: overloaded_error: fake Anthropic server: 529",
    },
  ]);
  assert.deepEqual(events.filter((e) => e.type === "request_started").map((e) => e.attempt), [1, 2, 3]);
  assert.equal(terminalOf(events).type, "done");
  assert.equal(server.requests.length, 3);
});

Deno.test("anthropic: 500s until it gives up, saying what failed, attempts and status", async () => {
  await using server = startFakeAnthropicServer(
    Array.from({ length: 3 }, () => fakeStatus(500, { message: "boom" })),
  );
  const events = await collectEvents(
    provider(server, { retry: { maxRetries: 2, baseDelayMs: 1 } }).stream(hello),
  );

  assert.deepEqual(terminalOf(events), {
    type: "error",
    error: {
      kind: "server",
      message: "Anthropic API returned 500 Internal Server Error after 3 attempts: api_error: boom",
      status: 500,
      // The API's own error, as `API Error: 500 boom` reports it (cli/turn_failures.ts).
      api: { type: "api_error", message: "boom" },
      attempts: 3,
    },
    stopReason: "error",
    usage: { inputTokens: 0, outputTokens: 0 },
  });
  assert.equal(server.requests.length, 3);
});

Deno.test("anthropic: 401 is final and never shows the key", async () => {
  await using server = startFakeAnthropicServer([fakeStatus(401, { message: "invalid x-api-key" })]);
  const lines: string[] = [];
  const events = await collectEvents(provider(server, { debug: (l) => lines.push(l) }).stream(hello));
  const end = terminalOf(events);
  assert.equal(end.type === "error" && end.error.kind, "auth");
  assert.equal(
    end.type === "error" && end.error.message,
    "Anthropic API returned 401 Unauthorized: authentication_error: invalid x-api-key",
  );
  assert.equal(server.requests.length, 1);
  assert.ok(lines.some((l) => l.includes("x-api-key: [redacted]")));
  assert.ok(lines.every((l) => !l.includes(KEY)), lines.join("\n"));
  assert.ok(!JSON.stringify(events).includes(KEY));
});

Deno.test("anthropic: a stream cut mid-message is a stream error, not retried after deltas", async () => {
  // message_start, ping, content_block_start, first text_delta: then the body ends.
  await using server = startFakeAnthropicServer([
    fakeTurn({ text: "Hello there, friend", chunks: 2, cutAfterEvents: 4 }),
  ]);
  const events = await collectEvents(provider(server).stream(hello));
  assert.deepEqual(events.map((e) => e.type), ["request_started", "text_delta", "error"]);
  const end = terminalOf(events);
  assert.equal(end.type === "error" && end.error.kind, "stream");
  assert.equal(end.type === "error" && end.error.message, "Anthropic API stream ended before message_stop");
  assert.deepEqual(end.usage, { inputTokens: 10, outputTokens: 1 });
  assert.equal(server.requests.length, 1);
});

Deno.test("anthropic: a stream cut before any delta is retried", async () => {
  await using server = startFakeAnthropicServer([
    fakeTurn({ text: "lost", cutAfterEvents: 1 }),
    fakeTurn({ text: "ok" }),
  ]);
  const events = await collectEvents(provider(server).stream(hello));
  assert.deepEqual(events.map((e) => e.type), [
    "request_started",
    "retry",
    "request_started",
    "text_delta",
    "done",
  ]);
  assert.equal(textOfEvents(events), "ok");
});

Deno.test("anthropic: invalid JSON in tool arguments gives input {} and an inputError", async () => {
  await using server = startFakeAnthropicServer([fakeTurn({
    toolCalls: [{ name: "Edit", rawArguments: '{"file_path": "a.ts", not json', id: "toolu_bad" }],
  })]);
  const events = await collectEvents(provider(server).stream(hello));
  const end = terminalOf(events);
  assert.equal(end.type, "done");
  assert.equal(end.type === "done" && end.stopReason, "tool_use");
  const call = end.type === "done" ? end.message.content[0] : undefined;
  assert.equal(call?.type, "tool_call");
  if (call?.type !== "tool_call") return;
  assert.deepEqual([call.id, call.name, call.input], ["toolu_bad", "Edit", {}]);
  assert.match(call.inputError ?? "", /^The arguments for tool "Edit" are not valid JSON/);
});

Deno.test("anthropic: an overloaded_error event mid-stream is retried only before deltas", async () => {
  await using server = startFakeAnthropicServer([
    fakeTurn({ streamError: { type: "overloaded_error", message: "Overloaded" } }),
    fakeTurn({ text: "partial", streamError: { type: "overloaded_error", message: "Overloaded" } }),
  ]);
  const events = await collectEvents(provider(server).stream(hello));
  assert.deepEqual(events.map((e) => e.type), [
    "request_started",
    "retry",
    "request_started",
    "text_delta",
    "error",
  ]);
  const end = terminalOf(events);
  assert.deepEqual(end.type === "error" && end.error, {
    kind: "overloaded",
    message: "Anthropic API reported an error mid-stream after 2 attempts: overloaded_error: Overloaded",
    attempts: 2,
  });
});

Deno.test("anthropic: a server that never answers times out (request timeout), with retries", async () => {
  await using server = startFakeAnthropicServer([fakeHang(), fakeHang()]);
  const events = await collectEvents(
    provider(server, { requestTimeoutMs: 50, retry: { maxRetries: 1, baseDelayMs: 1 } }).stream(hello),
  );
  const end = terminalOf(events);
  assert.deepEqual(end.type === "error" && end.error, {
    kind: "timeout",
    message: "Anthropic API sent no response within 50 ms (request timeout) after 2 attempts",
    attempts: 2,
  });
  assert.equal(server.requests.length, 2);
});

Deno.test("anthropic: an idle stream times out; retried before deltas, not after", async () => {
  await using server = startFakeAnthropicServer([
    fakeTurn({ text: "never", stallAfterEvents: 2 }),
    fakeTurn({ text: "some text", chunks: 2, stallAfterEvents: 4 }),
  ]);
  const events = await collectEvents(provider(server, { streamIdleTimeoutMs: 50 }).stream(hello));
  assert.deepEqual(events.map((e) => e.type), [
    "request_started",
    "retry",
    "request_started",
    "text_delta",
    "error",
  ]);
  const end = terminalOf(events);
  assert.equal(end.type === "error" && end.error.kind, "timeout");
  assert.match(end.type === "error" ? end.error.message : "", /stream idle timeout/);
});

Deno.test("anthropic: abort mid-stream ends promptly with an aborted error", async () => {
  await using server = startFakeAnthropicServer([
    fakeTurn({ text: "Hello there, friend", chunks: 2, stallAfterEvents: 4 }),
  ]);
  const controller = new AbortController();
  const events = [];
  for await (const event of provider(server).stream(hello, { signal: controller.signal })) {
    events.push(event);
    if (event.type === "text_delta") controller.abort();
  }
  assert.deepEqual(events.map((e) => e.type), ["request_started", "text_delta", "error"]);
  const end = terminalOf(events);
  assert.deepEqual(end.type === "error" && [end.stopReason, end.error.kind], ["aborted", "aborted"]);
});

Deno.test("anthropic: abort while waiting for headers, and an already-aborted signal", async () => {
  await using server = startFakeAnthropicServer([fakeHang()]);
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 20);
  const events = await collectEvents(provider(server).stream(hello, { signal: controller.signal }));
  assert.deepEqual(events.map((e) => e.type), ["request_started", "error"]);
  assert.equal(terminalOf(events).stopReason, "aborted");

  const before = await collectEvents(provider(server).stream(hello, { signal: AbortSignal.abort() }));
  assert.deepEqual(before.map((e) => e.type), ["error"]);
  assert.equal(terminalOf(before).stopReason, "aborted");
  assert.equal(server.requests.length, 1);
});

Deno.test("anthropic: connection refused never throws: network error after retries", async () => {
  const closed: FakeAnthropicServer = startFakeAnthropicServer();
  await closed.close();
  const events = await collectEvents(
    provider(closed, { retry: { maxRetries: 1, baseDelayMs: 1 } }).stream(hello),
  );
  const end = terminalOf(events);
  assert.equal(end.type === "error" && end.error.kind, "network");
  assert.match(
    end.type === "error" ? end.error.message : "",
    /^Could not connect to Anthropic API at http:\/\/127\.0\.0\.1:\d+\/v1\/messages \(connection refused\) after 2 attempts$/,
  );
});

Deno.test("anthropic: a malformed base URL is a final invalid_request error", async () => {
  const events = await collectEvents(provider({ url: "not a url" }).stream(hello));
  const end = terminalOf(events);
  assert.equal(end.type === "error" && end.error.kind, "invalid_request");
  assert.equal(events.filter((e) => e.type === "retry").length, 0);
});

Deno.test("anthropic: prompt-cache reads and writes are reported apart from input tokens (as Claude Code does)", async () => {
  await using server = startFakeAnthropicServer([
    fakeTurn({
      text: "Hi.",
      usage: { inputTokens: 10, cacheCreationInputTokens: 1000, cacheReadInputTokens: 2000, outputTokens: 7 },
    }),
  ]);
  const end = terminalOf(await collectEvents(provider(server).stream(hello)));
  assert.deepEqual(end.usage, {
    inputTokens: 10,
    outputTokens: 7,
    cacheCreationInputTokens: 1000,
    cacheReadInputTokens: 2000,
  });
});
